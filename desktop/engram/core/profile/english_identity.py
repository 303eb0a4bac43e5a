"""Who the person is, in English: home and origin, work and studies, languages, age, name and
pronouns. A job needs a word from the occupations list ("I'm a nurse", not "I'm a mess"); a name
must look like one, capitalised and not a word such as "Tired" or "Polish"."""

from __future__ import annotations

import re

from engram.core.profile.english_phrases import noun_phrase, organisation_in, place_in, tidy
from engram.core.profile.english_words import FIELDS, LANGUAGES, OCCUPATIONS
from engram.core.profile.rules import Rule, english_rule
from engram.core.profile.said import Said

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12}
_NOT_A_NAME = {"Sorry", "Fine", "Good", "Great", "Done", "Ready", "Sure", "Tired", "Hungry", "Bored", "Lost", "Back",
               "Home", "Here", "Ok", "Okay", "Not", "Also", "Just", "Still", "So", "In", "On", "At", "Out", "Off",
               "Muslim", "Christian", "Catholic", "Jewish", "Hindu", "Buddhist", "Atheist", "Vegan", "Vegetarian",
               "Thai", "Swiss", "Dutch", "French", "Greek", "Welsh", "Irish", "Scottish", "British", "American",
               "Mexican", "German", "Korean", "Italian", "Canadian", "Australian", "Indian", "Russian", "Brazilian",
               "Gay", "Straight", "Single", "Married", "Divorced", "Retired", "Busy", "Free", "Happy", "Sad", "Alive",
               "Dead", "Crazy", "Late", "Early", "Right", "Wrong", "Yes", "No", "Batman", "Human", "Serious"}


def _home(m: re.Match) -> Said | None:
    place = place_in(m.group("x"))
    return Said("identity", "home", "", f"lives in {place}", 3) if place else None


def _origin(m: re.Match) -> Said | None:
    place = place_in(m.group("x"))
    verb = {"grew up": "grew up in", "was born": "born in"}.get(m.group("v").lower(), "from")
    return Said("identity", "origin", "", f"{verb} {place}", 2, copula=verb != "grew up in") if place else None


def _work(m: re.Match) -> list[Said]:
    found = []
    organisation = organisation_in(m.group("x"))
    if organisation:
        found.append(Said("identity", "work", "", f"works {m.group('p').lower()} {organisation}", 3))
    job = re.search(r"\s+as\s+(?:an?\s+)?(.+)$", m.group("x"))
    if job:
        found += _job_named(job.group(1))
    return found


def _work_in(m: re.Match) -> Said | None:
    field = tidy(m.group("x"))
    if field.lower() not in FIELDS and not place_in(field):
        return None
    return Said("identity", "work", "", f"works in {field if field.lower() in FIELDS else place_in(field)}", 3)


def _studies(m: re.Match) -> list[Said]:
    subject, place = noun_phrase(m.group("x"), 3), place_in(m.group("y"))
    if not subject or not place:
        return []
    text = f"student of {subject} {m.group('p').lower()} {place}"
    return [Said("identity", "job", "", text, 3, copula=True, line=f"Job: {text}.")]


def _job_named(text: str) -> list[Said]:
    text = tidy(re.sub(r"^(?:an?)\s+", "", text, flags=re.IGNORECASE))
    words = text.lower().split()
    for n, word in enumerate(words[:5]):
        if word in OCCUPATIONS or (n + 1 < len(words) and f"{word} {words[n + 1]}" in OCCUPATIONS):
            return [Said("identity", "job", "", f"a {text}", 3, copula=True, line=f"Job: {text}.")]
    return []


def _job(m: re.Match) -> list[Said]:
    return _job_named(m.group("x"))


def _retired(m: re.Match) -> Said:
    return Said("identity", "job", "", "retired", 3, copula=True)


def _languages(m: re.Match) -> Said | None:
    text = tidy(m.group("x"))
    words = [w for w in re.split(r"\s*(?:,|\band\b|\bor\b|\bsome\b|\ba bit of\b|\ba little\b|\bfluent\b|\bbasic\b"
                                 r"|\bfluently\b|\bnative\b|\bconversational\b|\bokay\b|\bgood\b)\s*", text.lower()) if w]
    if not words or any(w not in LANGUAGES for w in words):
        return None
    return Said("identity", "languages", "", f"speaks {text}", 3)


def _native_speaker(m: re.Match) -> Said | None:
    language = m.group("x")
    if language.lower() not in LANGUAGES:
        return None
    return Said("identity", "languages", "", f"a native {language} speaker", 3, copula=True)


def _age(m: re.Match) -> Said | None:
    age = m.group("x")
    age = str(_NUMBER_WORDS.get(age.lower(), age))
    if not age.isdigit() or not 0 < int(age) < 120:
        return None
    return Said("identity", "age", "", age, 2, copula=True, line=f"Age: {age}.")


def _ages(m: re.Match) -> Said:
    return Said("identity", "age", "", f"{m.group('x')} and {m.group('y')}", 2, copula=False)


def name(m: re.Match) -> Said | None:
    """The person's name ("Call me Sam"), never a word that says how they are ("I'm Tired")."""
    name = m.group("x").strip()
    if not re.fullmatch(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}", name) or name.split()[0] in _NOT_A_NAME:
        return None
    if name.lower() in LANGUAGES or re.search(r"(?:ese|ish|ian|ean|ic)$", name):     # "I'm Chinese", "I'm Polish"
        return None
    return Said("identity", "name", "", name, 4, line=f"Name: {name}.")


def pronouns(m: re.Match) -> Said:
    return Said("identity", "pronouns", "", m.group("x"), 3, line=f"Pronouns: {m.group('x')}.")


def native_language(m: re.Match) -> Said | None:
    language = m.group("x")
    if language.lower() not in LANGUAGES:
        return None
    return Said("identity", "languages", "", f"native language {language}", 3, line=f"Native language: {language}.")


def pet(m: re.Match) -> Said | None:
    """A pet's name, a line of its own ("Dog is called Rex."), keyed by the kind of pet."""
    name, pet = m.group("x"), m.group("pet").lower()
    pet = "cat" if pet in ("tabby", "kitten") else pet if pet in ("cat", "rabbit", "parrot", "hamster") else "dog"
    if not re.fullmatch(r"[A-Z][\w'-]*", name):
        return None
    return Said("people", "name", pet, f"{pet} is called {name}", 3, line=f"{pet.capitalize()} is called {name}.")


RULES: list[Rule] = [
    english_rule(r"(?:now\s+|currently\s+)?(?:live|am (?:now |currently )?living|am (?:now |currently )?based|reside|have lived|have been living|am settled)\s+in\s+(?P<x>.+)", _home),
    english_rule(r"(?:have\s+)?(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+to\s+(?P<x>.+)", _home),
    english_rule(r"(?P<v>am|am originally|come)\s+(?:originally\s+)?from\s+(?P<x>.+)", _origin),
    english_rule(r"(?P<v>grew up|was born)\s+in\s+(?P<x>.+)", _origin),
    english_rule(r"work\s+(?:remotely\s+|full-time\s+|part-time\s+|full time\s+|part time\s+)?(?P<p>at|for)\s+(?P<x>.+)", _work),
    english_rule(r"am\s+(?:currently\s+|now\s+)?studying\s+(?P<x>[\w ]+?)\s+(?P<p>at|in)\s+(?P<y>[A-Z].*)", _studies),
    english_rule(r"work\s+as\s+(?:an?\s+)?(?P<x>.+)", _job),
    english_rule(r"work\s+in\s+(?P<x>.+)", _work_in),
    english_rule(r"am\s+(?:now\s+)?an?\s+(?P<x>.+)", _job),
    english_rule(r"am\s+(?:now\s+|happily\s+)?retired(?:\s.*)?", _retired),
    english_rule(r"(?:speak|can speak|am fluent in|also speak|am bilingual in|am trilingual in)\s+(?P<x>.+)", _languages),
    english_rule(r"am\s+an?\s+native\s+(?P<x>\w+)\s+speaker(?:\s.*)?", _native_speaker),
    english_rule(r"am\s+(?P<x>\d{1,3})(?:\s+years?\s+old|\s*yo|\s*y/o)?(?:\s+and\s+.*)?", _age),
    english_rule(r"(?:just\s+)?turned\s+(?P<x>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s.*)?",
                 _age),
    english_rule(r"are\s+(?P<x>\d{1,2})\s+and\s+(?P<y>\d{1,2})(?:\s+years\s+old)?", _ages),
]
