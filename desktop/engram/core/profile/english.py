"""Rules that read facts about a subject in an English clause: the tables, by what a clause says.

A clause reaches the predicate rules as its predicate, the subject taken off ("I'm allergic to
peanuts" is read as "am allergic to peanuts"; "my dad has asthma" as "have asthma"), so one rule
serves the person and the people in their life. Objects are kept tight: a clause's trailing reason
or question ("..., so what snack") never reaches a line. Open-ended verbs ("take", "can't", "hate")
only count with words from short lists (medicines, abilities, foods): "I take the bus every day"
and "I can't find my keys" are not facts about the person. The rules of each category and what
they read stand in a module of their own (``english_health`` and so on).
"""

from __future__ import annotations

import re

from engram.core.profile import english_commitments as commitments
from engram.core.profile import english_diet as diet
from engram.core.profile import english_health as health
from engram.core.profile import english_identity as identity
from engram.core.profile import english_limits as limits
from engram.core.profile.english_phrases import CALENDAR_DAY, DATE, NAME, tidy
from engram.core.profile.rules import Rule, english_rule
from engram.core.profile.said import Said

# Predicates, read after the subject: "am allergic to X", "have asthma", "take X every evening".
PREDICATES: list[Rule] = health.RULES + identity.RULES + diet.RULES + limits.RULES + commitments.RULES


def _prefers_format(m: re.Match) -> Said:
    return Said("style", "format", "", f"prefers {tidy(m.group('x'))}", 2)


def _units(m: re.Match) -> Said:
    return Said("style", "units", "", f"wants {m.group('x').lower()} units", 2)



# Whole clauses about the person that are not "I ...": "My name is Wei", "Call me Sam".
CLAUSES: list[Rule] = [
    english_rule(rf"(?:my\s+)?(?:first\s+|full\s+)?name(?:'s|\s+is)\s+(?P<x>{NAME})"
                 r"(?:\s+(?:by the way|btw|but|and|though|so)\b.*)?", identity.name),
    english_rule(r"i(?:'m|\s+am)\s+called\s+(?P<x>\S+)", identity.name),
    english_rule(r"i\s+go\s+by\s+(?P<x>\S+)", identity.name),
    english_rule(r"(?:please\s+|you can\s+|just\s+)?call\s+me\s+(?P<x>\S+(?:\s+[A-Z]\S*)?)(?:\s+(?:please|everyone does|from now on))?",
                 identity.name),
    english_rule(r"i(?:'m|\s+am)\s+(?P<x>[A-Z][a-z]+)(?:\s+by the way|\s+btw|\s+here)?", identity.name),
    english_rule(r"my\s+pronouns\s+are\s+(?P<x>\w+/\w+(?:/\w+)?)", identity.pronouns),
    english_rule(r"(?P<x>\w+)\s+is\s+my\s+(?:native|first|mother)\s+(?:language|tongue)(?:\s.*)?", identity.native_language),
    english_rule(r"my\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+(?P<x>\w+)", identity.native_language),
    english_rule(rf"(?:my|our|the)\s+(?P<x>[\w' -]+?)\s+(?:is|are)\s+due\s+(?:on\s+|by\s+)?(?P<when>{DATE}.*)", commitments.deadline),
    english_rule(rf"(?:my|our|the)\s+(?P<x>[\w' -]+?)\s+(?:has|have)\s+to\s+be\s+(?:in|submitted|done|finished|handed in|sent)\s+"
                 rf"(?:by|before)\s+(?P<when>{DATE}.*)", commitments.deadline),
    english_rule(rf"my\s+birthday\s+is\s+(?:on\s+)?(?P<x>{CALENDAR_DAY})", lambda m: Said(
        "identity", "birthday", "", m.group("x"), 3, line=f"Birthday: {m.group('x')}.")),
    english_rule(rf"my\s+(?P<x>exam|final exam|interview|job interview|surgery|operation|wedding|presentation|flight|defen[cs]e"
                 rf"|driving test|appointment)\s+is\s+(?P<when>(?:on\s+|next\s+|this\s+|in\s+|tomorrow|{DATE}).*)", commitments.my_event),
    english_rule(rf"my\s+(?P<x>[\w' -]+?)\s+(?:expires|runs out|ends)\s+(?P<when>(?:on\s+|in\s+|next\s+|this\s+|at the end of\s+)?{DATE}.*)",
                 commitments.expires),
    english_rule(r"(?:my\s+)?deadline\s+for\s+(?P<x>[\w' -]+?)\s+is\s+(?P<when>.+)", commitments.deadline),
    english_rule(r"(?P<x>spiders|snakes|heights|dogs|needles|clowns|birds|bees|wasps|crowds|the dark|deep water|rats|mice)\s+"
                 r"(?:really\s+)?(?:freak|scare|terrify|frighten)\s+me(?:\s+out)?(?:\s.*)?", limits.freaks_out),
    english_rule(r"no\s+(?P<x>[\w -]+?)\s+for\s+me(?:\s.*)?", diet.no_food),
    english_rule(r"(?:severe\s+|bad\s+|serious\s+)?(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+allergy(?:\s+here|\s+btw)?", health.allergy_fragment),
    english_rule(r"(?:i|we)\s+(?:have|have got|got)\s+an?\s+(?:[\w-]+\s+){0,2}(?P<pet>dog|cat|puppy|kitten|rabbit|parrot|hamster"
                 r"|retriever|labrador|poodle|terrier|spaniel|beagle|bulldog|collie|husky|dachshund|pug|shepherd|tabby)\s+"
                 r"(?:named|called)\s+(?P<x>\S+)(?:\s.*)?", identity.pet),
    english_rule(r"i\s+(?:much\s+|really\s+|always\s+)?prefer\s+(?P<x>(?:bullet points|bullets|lists|tables|numbered steps"
                 r"|short paragraphs|code examples|examples|step-by-step)(?:\s.*)?)", _prefers_format),
    english_rule(r"(?:please\s+)?(?:always\s+)?use\s+(?P<x>metric|imperial)(?:\s+units)?(?:\s.*)?", _units),
]

# "My mother ...", "my husband Tom ...": the person's people, by what they are to them.
RELATIONS = {
    "mother": "mother", "mom": "mother", "mum": "mother", "mommy": "mother", "mam": "mother", "father": "father",
    "dad": "father", "daddy": "father", "wife": "wife", "husband": "husband", "partner": "partner",
    "spouse": "partner", "son": "son", "daughter": "daughter", "kids": "children", "children": "children",
    "child": "child", "sister": "sister", "brother": "brother", "grandmother": "grandmother", "grandma": "grandmother",
    "granny": "grandmother", "nan": "grandmother", "grandfather": "grandfather", "grandpa": "grandfather",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "fiance": "fiance", "fiancé": "fiance",
    "fiancée": "fiance", "baby": "baby", "dog": "dog", "cat": "cat", "boss": "boss", "stepmother": "stepmother",
    "stepfather": "stepfather", "stepson": "stepson", "stepdaughter": "stepdaughter", "twins": "twins",
    "granddaughter": "granddaughter", "grandson": "grandson", "grandchildren": "grandchildren", "grandkids": "grandchildren",
}
RELATION = re.compile(
    rf"my\s+(?P<adj>(?:older|younger|little|big|elder|baby|twin)\s+)?(?P<rel>{'|'.join(RELATIONS)})\b"
    rf"(?:\s*,?\s+(?P<name>(?-i:[A-Z][a-z]+))\b,?)?(?P<rest>.*)$", re.IGNORECASE)
PERSON_FACTS: list[Rule] = [
    english_rule(rf"'s\s+birthday\s+is\s+(?:on\s+)?(?P<x>{CALENDAR_DAY})(?:\s.*)?", lambda m: Said(
        "people", "birthday", "", f"birthday is {m.group('x')}", 3)),
    english_rule(rf"(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+goes\s+by)\s+(?P<x>{NAME})(?:\s.*)?", lambda m: Said(
        "people", "name", "", f"is called {m.group('x')}", 3)),
    english_rule(r"(?:\s+|'s\s+)(?:uses|is\s+in|needs)\s+(?P<x>an?\s+(?:wheelchair|walker|cane|hearing aid|walking stick))(?:\s.*)?",
                 lambda m: Said("people", "need", "", f"uses {m.group('x')}", 4)),
    english_rule(r"(?:\s+is|'s)\s+(?P<x>blind|deaf|hard of hearing|partially sighted|bedridden|housebound|disabled"
                 r"|in a wheelchair)(?:\s.*)?", lambda m: Said("people", "need", "", f"is {m.group('x')}", 4)),
    english_rule(r"\s+can't\s+(?P<x>walk|see|hear|climb stairs|drive)(?P<rest>.*)", lambda m: Said(
        "people", "need", "", f"can't {m.group('x')}{tidy(m.group('rest')) and ' ' + tidy(m.group('rest'))}", 4)),
]
