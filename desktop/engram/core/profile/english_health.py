"""Health, in English: allergies, intolerances, conditions, medicines and aids (importance 5: a
missed allergy costs most). "take" makes a medicine only with a word from the list or a drug's
shape ("-statin"), so "I take the bus every day" says nothing about health."""

from __future__ import annotations

import re

from engram.core.profile.english_phrases import ADVERBS, FREQUENCY, key_of, noun_phrase, tidy
from engram.core.profile.english_words import (CONDITION_ADJECTIVES, CONDITION_SHAPE, CONDITIONS, DRUG_SHAPE,
                                               MEDICINES)
from engram.core.profile.rules import Rule, english_rule
from engram.core.profile.said import Said

_PLURALS = {"nut": "nuts", "peanut": "peanuts", "cat": "cats", "dog": "dogs", "egg": "eggs", "tree nut": "tree nuts"}


def _allergy(m: re.Match) -> list[Said]:
    """One line for each thing: "tree nuts and sesame" are two allergies, each superseded alone."""
    found = []
    for part in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+or\s+", tidy(m.group("x"))):
        thing = noun_phrase(part)
        if not thing:
            return []
        key = _PLURALS.get(key_of(thing), key_of(thing))
        shown = key if key_of(thing) in _PLURALS else thing         # "a peanut allergy": allergic to peanuts
        found.append(Said("health", "allergy", key, f"allergic to {shown}", 5, copula=True))
    return found


def _allergy_noun(m: re.Match) -> list[Said]:
    return _allergy(m) if m.group("x").lower() not in ("mild", "severe", "bad", "serious", "an", "a") else []


def _intolerance(m: re.Match) -> Said:
    x = m.group("x").lower()
    return Said("health", "intolerance", x, f"{x} intolerant", 5, copula=True)


def _condition(m: re.Match) -> Said | None:
    thing = tidy(m.group("x"))
    known = CONDITIONS.get(thing.lower()) or CONDITIONS.get(re.sub(r"^(?:a|an|mild|severe|chronic)\s+", "", thing.lower()))
    if not known and not (len(thing.split()) <= 4 and CONDITION_SHAPE.search(thing.lower())):
        return None
    return Said("health", "condition", known or key_of(thing), f"has {thing}", 5)


# Conditions that come and go, by the slot each has: "get" counts only for these ("I get migraines
# a few times a month"), so "I get tired" and "I get the flu" say nothing.
_EPISODES = {"migraines": "migraines", "migraine attacks": "migraines", "cluster headaches": "cluster headaches",
             "seizures": "seizures", "panic attacks": "panic attacks", "asthma attacks": "asthma", "gout attacks": "gout"}


def _episodes(m: re.Match) -> Said:
    thing = m.group("x").lower()
    return Said("health", "condition", _EPISODES[thing], f"gets {thing}", 5)


def _condition_adjective(m: re.Match) -> Said:
    adjective = m.group("x").lower()
    rest = tidy(m.group("rest") or "")
    rest = re.sub(r"^in\s+", "in the ", rest) if rest.lower().startswith("in ") else ""
    return Said("health", "condition", CONDITION_ADJECTIVES[adjective], f"{m.group('x')} {rest}".strip(), 5, copula=True)


def _medicine(thing: str, how: str) -> Said | None:
    thing = tidy(thing)
    words = re.sub(r"^(?:an?|some|one|two|\d+\s*(?:mg|mcg|g|ml|units?|iu)?)\s+(?:of\s+)?", "", thing.lower())
    words = re.sub(r"^(?:\d+\s*(?:mg|mcg|g|ml|units?|iu)|a|an)\s+(?:of\s+)?", "", words)
    if (not words or len(words.split()) > 3 or words.startswith(("the ", "a ", "my ")) and words != "the pill"
            or not (any(re.search(rf"\b{re.escape(m)}\b", words) for m in MEDICINES)
                    or DRUG_SHAPE.search(words.split()[-1]) and len(words.split()) == 1)):
        return None
    return Said("health", "medicine", words, f"takes {thing} {how}".strip(), 5)


def _take(m: re.Match) -> Said | None:
    return _medicine(m.group("x"), m.group("how") or "")


def _on_medicine(m: re.Match) -> Said | None:
    said = _medicine(m.group("x"), "")
    return Said("health", "medicine", said.key, f"on {tidy(m.group('x'))}", 5, copula=True) if said else None


def _device(m: re.Match) -> Said:
    device = m.group("x").lower()
    family = "medicine" if device in ("inhaler", "insulin pump", "cpap", "cpap machine") else "aid"
    return Said("health", family, device, f"uses {m.group('a')} {device} {tidy(m.group('how') or '')}".strip(), 5)


def allergy_fragment(m: re.Match) -> list[Said]:
    """An allergy said without a subject ("Peanut allergy here"), not one that only names its kind."""
    if m.group("x").lower() in ("the", "a", "an", "this", "that", "your", "his", "her", "food", "seasonal", "skin",
                                "an allergy", "no", "any", "my"):
        return []
    return _allergy(m)


RULES: list[Rule] = [
    english_rule(rf"am\s+{ADVERBS}allergic\s+to\s+(?P<x>.+)", _allergy),
    english_rule(rf"have\s+(?:got\s+)?(?:an?\s+)?{ADVERBS}(?:mild\s+|severe\s+|bad\s+|serious\s+)?allerg(?:y|ies)\s+to\s+(?P<x>.+)",
                 _allergy),
    english_rule(rf"have\s+(?:got\s+)?(?:an?\s+)?{ADVERBS}(?:mild\s+|severe\s+|bad\s+|serious\s+)?(?P<x>[\w -]+?)\s+allergy(?:\s.*)?",
                 _allergy_noun),
    english_rule(r"am\s+(?:also\s+|very\s+|a bit\s+)?(?P<x>lactose|gluten|fructose|histamine)[ -]intolerant(?:\s.*)?", _intolerance),
    english_rule(r"have\s+(?:an?\s+)?(?P<x>lactose|gluten|fructose|histamine)\s+intolerance(?:\s.*)?", _intolerance),
    english_rule(r"(?:have got|have had|have|live with|was diagnosed with|have been diagnosed with|got diagnosed with|suffer from"
                 r"|am diagnosed with|got)\s+(?P<x>.+)", _condition),
    english_rule(rf"(?:often\s+|still\s+|sometimes\s+)?(?:get|keep getting)\s+(?P<x>{'|'.join(_EPISODES)})(?:\s.*)?", _episodes),
    english_rule(rf"am\s+{ADVERBS}(?P<x>{'|'.join(CONDITION_ADJECTIVES)})(?P<rest>\s+in\s+.+|\s.*)?", _condition_adjective),
    english_rule(rf"(?:take|have to take|need to take|inject)\s+(?P<x>.+?)\s+(?P<how>(?:{FREQUENCY}).*)", _take),
    english_rule(r"(?:take|am taking)\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)(?P<how>)", _take),
    english_rule(r"am\s+(?:currently\s+|now\s+|still\s+)?on\s+(?P<x>[\w-]+(?:\s+[\w-]+){0,2})(?:\s.*)?", _on_medicine),
    english_rule(r"(?:use|need)\s+(?P<a>an?)\s+(?P<x>inhaler|cpap machine|cpap|insulin pump|hearing aid|wheelchair|cane|walker"
                 r"|walking stick)(?:\s+(?P<how>.*))?", _device),
]
