"""The rule-based learner: profile lines from what a person says, with no model (the bundled demo
model cannot distil), in English and Chinese, in the spirit of seed 002's LearnFromInteractionAsync.

A wrong line is in every prompt from then on, so precision comes before recall: only the person's
own plain statements count (see ``statements``), each rule asks for the words that make a fact
(see ``english`` and ``chinese``), and a fact about someone in the person's life ("my mother uses
a wheelchair") is a line about them, never about the person. What someone else has ("my friend is
allergic to peanuts") teaches nothing. A later line with the same slot supersedes an earlier one,
in the message and in the profile: "I moved to Lyon" replaces the old home.
"""

from __future__ import annotations

import re
from dataclasses import replace

from engram.core.profile import chinese, english
from engram.core.profile.lines import CATEGORIES, Learned, PreferenceChange
from engram.core.profile.replies import changes
from engram.core.profile.rules import read
from engram.core.profile.said import Said
from engram.core.profile.statements import Clause, sentences, statements

__all__ = ["CATEGORIES", "Learned", "PreferenceChange", "learn"]

# What a fact about someone in the person's life can be: their health, diet, fears, where they live
# and work. Their routines and deadlines are theirs to keep.
_ABOUT_OTHERS = {"allergy", "intolerance", "condition", "medicine", "aid", "diet", "avoid", "fear", "cannot", "home",
                 "work", "job", "age", "languages", "name", "birthday", "need"}
_FAMILY_FOR_OTHERS = {"avoid": "diet", "intolerance": "allergy", "aid": "need", "cannot": "need"}
_HEALTH = {"allergy", "intolerance", "condition", "medicine", "need"}
_EN_SUBJECT = re.compile(r"(?:i|we)(?:'m|'ve|'re|\s)\s*(?P<p>.*)$", re.IGNORECASE)
_EN_FRAGMENT = re.compile(r"(?:(?:really|very|so|severely|deathly|terribly|super)\s+)*(?:allergic|afraid|scared|terrified)"
                          r"\s+(?:to|of)\s", re.IGNORECASE)
_EN_BASE = {"is": "am", "'s": "am", "has": "have", "doesn't": "don't", "takes": "take", "uses": "use", "lives": "live",
            "works": "work", "eats": "eat", "drinks": "drink", "speaks": "speak", "suffers": "suffer", "gets": "get",
            "keeps": "keep", "avoids": "avoid", "hates": "hate", "needs": "need"}
_EN_VERB = re.compile(r"^((?:(?:also|just|really|still|now|recently|never|always|actually)\s+)*)"
                      rf"({'|'.join(map(re.escape, _EN_BASE))})(?=\s)", re.IGNORECASE)
# Someone a clause names besides its subject: "she" in the next clause may be them.
_ANOTHER_PERSON = re.compile(r"\b(?:friend|colleague|coworker|co-worker|neighbou?r|boss|sister|brother|mother|father|mom|mum"
                             r"|dad|aunt|uncle|cousin|niece|nephew|daughter|son|wife|husband|partner|girlfriend|boyfriend"
                             r"|someone|somebody|woman|man|girl|boy|lady|guy|teacher|doctor|nurse|carer|her|him)s?\b",
                             re.IGNORECASE)
# The person's own words, which a line about them in the third person cannot hold. Case counts:
# a line's own words are in lower case, so "the US" and "I.B.M." are not the person speaking.
_EN_FIRST_PERSON = re.compile(r"\b(?:I(?:'m|'ve|'d|'ll)?(?![.\w])|me|my|mine|myself|we|us|our|ours)\b")
_EN_MY_AFTER = re.compile(r"\b(for|with|from|about|of|on|in|at|to)\s+my\s+")
_EN_TRAILING = re.compile(r"\s+(?:for|with|from|about|of|on|in|at|to|so|because|since|as|when|while|and|but|which|that"
                          r"|after|before|until)\b")
_ZH_SELF = re.compile(r"(?:我|本人)(?!们)(?P<p>.+)$")
_ZH_OTHER_SUBJECT = re.compile(r"^(?:我|本人|你|他|她|它|这|那|大家|别人|有人)")
# Someone or something a Chinese clause names after its subject: 我养了一只猫 (the cat is who
# a next clause without a subject, 三岁了, is about), 我有一只兔子 (an animal, whatever its kind),
# 我和老公 (it could be either of them).
_ZH_BEINGS = "|".join(sorted([*chinese.RELATIONS, "同事", "朋友", "邻居", "同学", "室友", "宠物"], key=len, reverse=True))
_ZH_INTRODUCED = re.compile(rf"(?<!没)(?:有|养|生)了?[一两三几]?(?:(?:只|条|个|位|匹|头|名)?(?P<b>{_ZH_BEINGS})|只|条|匹|头)")
_ZH_ALONGSIDE = re.compile(rf"(?:和|跟|同|与|陪|带着?)(?:{_ZH_BEINGS})|[他她它]")


def learn(text: str) -> tuple[list[Learned], list[PreferenceChange]]:
    """What a message from the person says about them, by rules (no model)."""
    lines: dict[str, Learned] = {}
    for sentence in statements(text):
        subject = ""
        for clause in sentence:
            found, subject = (_chinese if clause.chinese else _english)(clause, subject)
            for line in filter(None, map(_in_third_person, found)):
                lines.pop(line.slot, None)          # the later one stands, in its place in the message
                lines[line.slot] = line
    asked: dict[str, PreferenceChange] = {}
    for sentence_text in sentences(text):
        for change in changes(sentence_text):
            asked[change.key] = change
    return list(lines.values()), list(asked.values())


def _in_third_person(line: Learned) -> Learned | None:
    """``line`` as a line about the person, not in their words: "for my blood pressure" becomes
    "for blood pressure" (去看我爸妈, 去看爸妈), a trailing phrase that still says "I" or "me" comes
    off, and a line that cannot lose them is no line."""
    text = re.sub(r"我的?", "", _EN_MY_AFTER.sub(r"\1 ", line.text))
    first = _EN_FIRST_PERSON.search(text)
    if first:
        cut = [m.start() for m in _EN_TRAILING.finditer(text, 0, first.start())]
        if not cut or " " not in text[:cut[-1]].strip():
            return None                     # nothing a line can stand on is left ("Works.")
        text = text[:cut[-1]].rstrip(" ,") + "."
    return line if text == line.text else replace(line, text=text)


def _english(clause: Clause, subject: str) -> tuple[list[Learned], str]:
    """Lines from an English clause, and who "he" or "she" in the next clause is: the relative this
    one told a fact about ("My grandmother lives with us and she's hard of hearing")."""
    said = clause.said.replace("’", "'")
    if subject:
        said = re.sub(r"^(?:he|she)\b", subject, said, flags=re.IGNORECASE)
    own = read(said, english.CLAUSES)
    if own:
        return [_own(s, clause.text, "en") for s in own], ""
    person = english.RELATION.match(said)
    if person:
        relation = english.RELATIONS[person.group("rel").lower()]
        adjective = (person.group("adj") or "").strip().lower()
        if adjective in ("older", "big", "elder", "younger", "little"):
            relation = ("older " if adjective in ("older", "big", "elder") else "younger ") + relation
        found = _english_relative(relation, person.group("name"), person.group("rest"), clause.text)
        rest = person.group("rest").strip()
        about_them = (found or _EN_VERB.match(rest)) and not _ANOTHER_PERSON.search(rest)
        return found, f"my {person.group('rel')}" if about_them else ""
    mine = _EN_SUBJECT.match(said)
    if mine:
        predicate = mine.group("p")
        if re.match(r"(?:i|we)'m", said, re.IGNORECASE) or re.match(r"we're", said, re.IGNORECASE):
            predicate = "am " + predicate
        elif re.match(r"(?:i|we)'ve", said, re.IGNORECASE):
            predicate = "have " + predicate
        elif re.match(r"(?:i|we)\s+(?:am|are)\s", said, re.IGNORECASE):
            predicate = re.sub(r"^are\b", "am", predicate, flags=re.IGNORECASE)
    elif _EN_FRAGMENT.match(said):
        predicate = "am " + said
    else:
        return [], ""
    return [_own(s, clause.text, "en") for s in read(predicate, english.PREDICATES)], ""


def _english_relative(relation: str, name: str | None, rest: str, evidence: str) -> list[Learned]:
    found = []
    if name:
        found.append(_theirs(Said("people", "name", "", f"is called {name}", 3), relation, evidence, "en"))
    facts = read(rest, english.PERSON_FACTS)
    if not facts:
        predicate = _EN_VERB.sub(lambda m: m.group(1) + _EN_BASE[m.group(2).lower()], re.sub(r"^'s\s+", "is ", rest.strip()))
        facts = read(predicate, english.PREDICATES)
    return found + [_theirs(s, relation, evidence, "en") for s in facts if s.family in _ABOUT_OTHERS]


def _chinese(clause: Clause, subject: str) -> tuple[list[Learned], str]:
    """Lines from a Chinese clause, and the subject a next clause without one has ("" when none)."""
    said = clause.said
    if subject and not _ZH_OTHER_SUBJECT.match(said):
        found, _ = _chinese_with_subject(clause, said, subject)
        if found:
            return found, subject
    found, subject = _chinese_with_subject(clause, said, "")
    if not found and not _ZH_OTHER_SUBJECT.match(said):
        return found, ""
    return found, subject


def _chinese_with_subject(clause: Clause, said: str, subject: str) -> tuple[list[Learned], str]:
    text = subject + said
    time_first = chinese.TIME_FIRST.match(text)
    if time_first:
        text = time_first.group("who") + time_first.group("when") + time_first.group("rest")
    found = read(text, chinese.CLAUSES)
    if found:
        return [_own(s, clause.text, "zh", clause) for s in found], _carried("我" if re.match("我(?![的们])", text) else "", text)
    person = chinese.RELATION.match(text)
    if person:
        relation = person.group("rel")
        rest = person.group("rest")
        facts = read(rest, chinese.PERSON_FACTS) or read(rest, chinese.PREDICATES)
        shown = chinese.SHOWN.get(relation, relation)
        lines = [_theirs(s, chinese.RELATIONS[relation], clause.text, "zh", shown, clause)
                 for s in facts if s.family in _ABOUT_OTHERS]
        return lines, _carried(text[:person.start("rest")], rest)
    own = _ZH_SELF.match(text)
    if not own:
        return [], ""
    mine = [_own(s, clause.text, "zh", clause) for s in read(own.group("p"), chinese.PREDICATES)]
    if not mine and own.group("p").startswith("的"):
        return [], ""                       # 我的同事学历挺高的: what follows is not about the person
    return mine, _carried(text[:own.start("p")], own.group("p"))


def _carried(subject: str, rest: str) -> str:
    """Who a next Chinese clause without a subject is about: the last one this clause named
    (我养了一只猫叫咪咪，三岁了 is the cat's age), or nobody when that is in doubt (我和老公...)."""
    named = [*_ZH_INTRODUCED.finditer(rest), *_ZH_ALONGSIDE.finditer(rest)]
    if not named:
        return subject
    last = max(named, key=lambda m: m.start())
    being = last.group("b") if last.re is _ZH_INTRODUCED else None
    return f"我的{being}" if being in chinese.RELATIONS else ""


def _own(said: Said, evidence: str, language: str, clause: Clause | None = None) -> Learned:
    if said.line:
        text = said.line
    elif language == "en":
        text = said.predicate[:1].upper() + said.predicate[1:] + "."
    else:
        text = said.predicate + "。"
    return Learned(said.category, _as_written(text, clause), said.slot, said.importance, evidence)


def _theirs(said: Said, relation: str, evidence: str, language: str, shown: str = "",
            clause: Clause | None = None) -> Learned:
    family = _FAMILY_FOR_OTHERS.get(said.family, said.family)
    if language == "en":
        who = relation[:1].upper() + relation[1:]
        if family == "birthday":
            text = f"{who}'s {said.predicate}."
        elif family == "age" and said.copula:
            text = f"{who} is {said.predicate}."
        else:
            text = f"{who} {'is ' if said.copula else ''}{said.predicate}."
    else:
        text = f"{shown}{said.predicate}。"
    importance = 4 if family in _HEALTH else 3
    return Learned("people", _as_written(text, clause), f"{family}:{relation}", importance, evidence)


def _as_written(text: str, clause: Clause | None) -> str:
    """``text`` in the person's script: a clause written in Traditional characters gives a line in them."""
    if clause is None or clause.said == clause.text or len(clause.said) != len(clause.text):
        return text
    written = {s: t for s, t in zip(clause.said, clause.text) if s != t}
    return "".join(written.get(c, c) for c in text)
