"""What the person fears or cannot do, in English. "can't" counts only for an ability on the list,
and never for a thing or a time ("I can't run this code", "I can't cook tonight")."""

from __future__ import annotations

import re

from engram.core.profile.english_phrases import ADVERBS, key_of, noun_phrase, tidy
from engram.core.profile.english_words import ABILITIES
from engram.core.profile.rules import Rule, english_rule
from engram.core.profile.said import Said


def _fear(m: re.Match) -> Said | None:
    thing = noun_phrase(m.group("x"), 3)
    if not thing or re.match(r"\w+ing\s+\w+", thing) and thing.lower() != "public speaking":
        return None
    key = key_of(thing)
    return Said("limits", "fear", key, f"afraid of {thing}", 4, copula=True)


_PHOBIAS = {"claustrophobic": "enclosed spaces", "agoraphobic": "open spaces", "arachnophobic": "spiders",
            "acrophobic": "heights"}


def _phobic(m: re.Match) -> Said:
    word = m.group("x").lower()
    return Said("limits", "fear", _PHOBIAS[word], word, 4, copula=True)


def _cannot(m: re.Match) -> Said | None:
    ability = m.group("x").lower()
    rest = tidy(m.group("rest") or "")
    if re.search(r"\b(?:this|that|it|these|those|the|today|tonight|now|yet|right now|at the moment)\b", rest, re.IGNORECASE):
        return None                 # "I can't run this code", "I can't cook tonight": not a limit of the person
    if len(rest.split()) > 4:
        rest = ""
    key = ability.split()[0] if ability not in ("ride a bike", "ride a bicycle", "ride a motorbike") else ability
    verb = "can't" if m.re.pattern.startswith("(?:can't") else "doesn't"
    return Said("limits", "cannot", key, f"{verb} {ability} {rest}".strip(), 4)


def _motion_sick(m: re.Match) -> Said:
    kind = m.group("x").lower()
    return Said("limits", "limit", kind.replace(" ", ""), f"gets {kind}", 3)


def freaks_out(m: re.Match) -> Said | None:
    thing = m.group("x")
    if thing.lower() in ("it", "this", "that", "he", "she", "they", "you", "everything", "people"):
        return None
    return Said("limits", "fear", key_of(thing), f"afraid of {thing.lower()}", 4, copula=True)


RULES: list[Rule] = [
    english_rule(rf"am\s+{ADVERBS}(?:afraid|scared|terrified|frightened)\s+of\s+(?P<x>.+)", _fear),
    english_rule(r"have\s+(?:an?\s+)?(?:real\s+|serious\s+|huge\s+|big\s+)?(?:fear|phobia)\s+of\s+(?P<x>.+)", _fear),
    english_rule(rf"am\s+{ADVERBS}(?P<x>claustrophobic|agoraphobic|arachnophobic|acrophobic)(?:\s.*)?", _phobic),
    english_rule(rf"(?:can't|cannot|can not|am unable to|don't know how to|never learned to|never learned how to)\s+"
                 rf"(?P<x>{'|'.join(ABILITIES)})\b(?P<rest>.*)", _cannot),
    english_rule(r"(?:don't|do not|never)\s+(?P<x>drive|swim|fly)(?P<rest>)", _cannot),
    english_rule(r"get\s+(?P<x>seasick|carsick|airsick|motion sick|motion sickness)(?:\s.*)?", _motion_sick),
]
