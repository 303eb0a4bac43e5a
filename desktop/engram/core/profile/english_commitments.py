"""The person's routines and dates, in English: what they do every week, appointments, events
and deadlines. A deadline needs a date ("due on the 3rd", "by Friday"), so "my essay is due"
alone is no line."""

from __future__ import annotations

import re

from engram.core.profile.english_phrases import DATE, FREQUENCY, key_of, noun_phrase, tidy
from engram.core.profile.rules import Rule, english_rule
from engram.core.profile.said import Said


def _routine(m: re.Match) -> Said | None:
    doing, when = m.group("x").strip(), m.group("how").strip()
    first = doing.split()[0].lower()
    if first in ("am", "was", "have", "had", "do", "did", "feel", "think", "get", "want", "need", "hate", "love",
                 "like", "wish", "miss", "take", "eat", "drink", "work", "live", "can't", "cannot", "don't", "never",
                 "am", "see", "check", "use", "try", "go", "went") and not doing.lower().startswith(("go to ", "go ")):
        return None
    if len(doing.split()) > 9:
        return None
    verb, _, rest = tidy(doing).partition(" ")
    key = key_of(re.sub(r"^(?:to|for|at)\s+", "", rest)) if verb.lower() in ("go", "play", "teach", "attend") and rest \
        else verb.lower()
    return Said("commitments", "routine", key, f"{_third_person(verb)} {rest} {when}".replace("  ", " ").strip(), 2)


def _third_person(verb: str) -> str:
    verb = verb.lower()
    if verb in ("have",):
        return "has"
    if verb in ("go", "do"):
        return verb + "es"
    if re.search(r"(?:s|sh|ch|x|z)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _appointment(m: re.Match) -> Said:
    what = m.group("x").lower().replace("doctor's", "doctor").strip()
    return Said("commitments", "appointment", what or "appointment",
                f"{what} appointment {tidy(m.group('when'))}".strip(), 3, copula=False,
                line=f"{(what + ' appointment').capitalize()} {tidy(m.group('when'))}.")


def _event(m: re.Match) -> Said:
    what = m.group("x").lower()
    adjective = m.group("adj") or ""
    article = "an" if (adjective or what)[0] in "aeiou" else "a"
    return Said("commitments", "event", what, f"has {article} {adjective}{what} {tidy(m.group('when'))}", 3)


def _married(m: re.Match) -> Said:
    return Said("commitments", "event", "wedding", f"getting married {tidy(m.group('when'))}", 3, copula=True)


def _due(m: re.Match, words: str, most_words: int) -> Said | None:
    """A line for a date something is due by ("Essay due on the 3rd."), ``words`` binding it to the date."""
    thing = noun_phrase(m.group("x"), most_words)
    if not thing:
        return None
    line = f"{thing[0].upper() + thing[1:]} {words} {tidy(m.group('when'))}."
    return Said("commitments", "deadline", key_of(thing), line, 3, line=line)


def _deadline_to(m: re.Match) -> Said | None:
    return _due(m, "due by", 4)


def deadline(m: re.Match) -> Said | None:
    return _due(m, "due", 4)


def my_event(m: re.Match) -> Said:
    what = m.group("x").lower()
    key = {"final exam": "exam", "job interview": "interview", "operation": "surgery"}.get(what, what)
    return Said("commitments", "event", key, "", 3, line=f"{what.capitalize()} {tidy(m.group('when'))}.")


def expires(m: re.Match) -> Said | None:
    return _due(m, "expires", 3)


RULES: list[Rule] = [
    english_rule(rf"(?P<x>[a-z][\w' :.-]*?)\s+(?P<how>(?:{FREQUENCY}|every\s+\w+(?:\s+\w+)?|on\s+\w+days)(?:\s.*)?)", _routine),
    english_rule(r"have\s+(?:an?|my)\s+(?P<x>(?:dentist|doctor's|doctor|hospital|eye|gp|dental|vet|physio|therapy|hair)?)\s*"
                 r"appointment\s+(?P<when>(?:on\s+|at\s+|next\s+|this\s+|tomorrow|in\s+).*)", _appointment),
    english_rule(r"have\s+(?:an?|my)\s+(?P<adj>(?:big|important|final|job)\s+)?(?P<x>presentation|exam|interview|surgery"
                 r"|operation|test|recital|marathon|race|defen[cs]e|viva)\s+(?P<when>(?:on|next|this|tomorrow|in)\b.*)", _event),
    english_rule(r"am\s+getting\s+married\s+(?P<when>(?:on|in|next|this)\b.*)", _married),
    english_rule(rf"(?:have|need|must)\s+to\s+(?:submit|finish|hand in|turn in|send|deliver|file)\s+(?P<x>.+?)\s+by\s+"
                 rf"(?P<when>{DATE}.*)", _deadline_to),
]
