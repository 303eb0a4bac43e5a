"""What the person eats, in English: a diet ("vegetarian", "on a keto diet"), and what they do
not eat or drink. "hate", "avoid" and "gave up" count only for a known food, so "I hate Mondays"
and "I avoid people" teach nothing."""

from __future__ import annotations

import re

from engram.core.profile.english_phrases import key_of, noun_phrase, tidy
from engram.core.profile.english_words import DIETS, FOODS
from engram.core.profile.rules import Rule, english_rule
from engram.core.profile.said import Said


def _diet(m: re.Match) -> Said:
    since = m.group("since") or ""
    return Said("diet", "diet", "", f"{m.group('x').lower()} {since}".strip(), 4, copula=True)


def _diet_regime(m: re.Match) -> Said | None:
    thing = tidy(m.group("x"))
    if not thing or len(thing.split()) > 4:
        return None
    verb = {"follow": "follows", "eat": "eats", "keep to": "keeps to", "stick to": "sticks to", "keep": "keeps",
            "eat only": "eats only", "only eat": "only eats", "doing": "doing"}.get(m.group("v").lower(), m.group("v").lower())
    return Said("diet", "diet", "", f"{verb} {thing}".strip(), 4, copula=verb in ("on", "doing"))


def _eats_again(m: re.Match) -> Said | None:
    thing = noun_phrase(m.group("x"), 3)
    return Said("diet", "diet", "", f"eats {thing} again", 4) if thing else None


def _avoids(m: re.Match) -> list[Said]:
    """One line for each thing: "red meat or pork" are two, each superseded alone."""
    found = []
    for part in re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", tidy(m.group("x") or "alcohol")):
        said = _avoids_one(m, part)
        if not said:
            return []
        found.append(said)
    return found


def _avoids_one(m: re.Match, part: str) -> Said | None:
    verb = m.group("v").lower()
    thing = noun_phrase(part, 3)
    if not thing:
        return None
    key = key_of(thing)
    if (m.group("do") or "").lower() == "have" and key not in FOODS:
        return None
    if verb in ("hate", "can't stand", "dislike") and key not in FOODS:
        return None
    key = {"drink": "alcohol", "booze": "alcohol", "spicy": "spicy food", "coriander": "cilantro"}.get(key, key)
    phrase = {"don't": "doesn't", "do not": "doesn't", "never": "never", "can't": "can't", "cannot": "can't",
              "hate": "doesn't like", "can't stand": "doesn't like", "dislike": "doesn't like"}[m.group("neg").lower()
                                                                                           if m.group("neg") else verb]
    action = m.group("do").lower() if m.group("do") else "eat"
    if phrase == "never":
        action += "s"
    text = f"{phrase} {action} {thing}" if phrase != "doesn't like" else f"doesn't like {thing}"
    return Said("diet", "avoid", key, text, 4)


def _food(text: str) -> str:
    """The food ``text`` names, or "" when it names none on the list ("I avoid people")."""
    thing = noun_phrase(text, 3)
    return thing if thing and key_of(thing) in FOODS else ""


def _gave_up(m: re.Match) -> Said | None:
    thing = _food(m.group("x"))
    if not thing:
        return None
    action = "eat" if m.group("do").lower() == "eating" else "drink"
    return Said("diet", "avoid", key_of(thing), f"doesn't {action} {thing}", 4)


def _avoid(m: re.Match) -> Said | None:
    thing = _food(m.group("x"))
    return Said("diet", "avoid", key_of(thing), f"avoids {thing}", 4) if thing else None


def no_food(m: re.Match) -> Said | None:
    thing = m.group("x")
    if key_of(thing) not in FOODS:
        return None
    return Said("diet", "avoid", key_of(thing), f"doesn't eat {thing.lower()}", 4)


RULES: list[Rule] = [
    english_rule(rf"(?:am|have been|have been a|am a|have gone|went|became|turned)\s+(?:now\s+|also\s+|fully\s+|mostly\s+)?(?:an?\s+)?"
                 rf"(?P<x>{'|'.join(DIETS)})(?:\s+(?P<since>since\s+\S+|for\s+\S+\s+years?))?(?:\s.*)?", _diet),
    english_rule(r"(?P<v>keep|eat only|only eat|eat)\s+(?P<x>kosher|halal)(?:\s+only)?(?:\s.*)?", _diet_regime),
    english_rule(r"am\s+(?P<v>on)\s+(?P<x>an?\s+[\w -]+?\s+diet)(?:\s.*)?", _diet_regime),
    english_rule(r"(?P<v>follow|eat|keep to|stick to)\s+(?P<x>an?\s+[\w -]+?\s+diet)(?:\s.*)?", _diet_regime),
    english_rule(r"am\s+(?P<v>doing)\s+(?P<x>intermittent fasting|keto|paleo|whole30|a juice cleanse)(?:\s.*)?", _diet_regime),
    english_rule(r"(?:stopped|quit|gave up)\s+(?P<do>eating|drinking)\s+(?P<x>.+)", _gave_up),
    english_rule(r"(?:eat|have started eating|started eating|am eating)\s+(?P<x>[\w ]+?)\s+again(?:\s.*)?", _eats_again),
    english_rule(r"(?P<neg>don't|do not|never|can't|cannot)\s+(?P<v>)(?P<do>eat|drink|have)(?:\s+(?P<x>.+))?", _avoids),
    english_rule(r"(?P<neg>)(?P<v>hate|can't stand|dislike)(?P<do>)\s+(?P<x>.+)", _avoids),
    english_rule(r"(?:avoid|stay away from|stay off)\s+(?P<x>.+)", _avoid),
]
