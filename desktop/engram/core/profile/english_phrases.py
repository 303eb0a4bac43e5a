"""How English names what a line holds. The object of a clause runs on past the fact ("peanuts so
what snack", "a small flat in Leeds since 2019"): these cut it down to the noun phrase, place or
organisation a line can stand on, and say what a date, a frequency and a run of adverbs look like."""

from __future__ import annotations

import re

# How much, and how often: "really allergic", "every other Tuesday", "before bed".
ADVERBS = (r"(?:(?:really|very|so|super|quite|severely|seriously|extremely|deathly|terribly|pretty|a bit|a little"
            r"|mildly|slightly|also|actually|still|now|just|highly|deadly|badly|incredibly|insanely|absolutely)\s+)*")
FREQUENCY = (r"(?:every|each)\s+(?:other\s+)?(?:day|morning|evening|night|week|weekend|month|monday|tuesday|wednesday"
              r"|thursday|friday|saturday|sunday|weekday|[a-z]+ (?:morning|evening|night|afternoon))|daily|nightly"
              r"|weekly|twice a (?:day|week)|once a (?:day|week)|three times a (?:day|week)|at night|before bed"
              r"|in the (?:morning|evening)s?|with (?:meals|breakfast|dinner|food)|(?:before|after) (?:every |each )?meals?"
              r"|on (?:mondays|tuesdays|wednesdays"
              r"|thursdays|fridays|saturdays|sundays|weekends|weekdays)")
# Where an object ends: a reason, a consequence, a time, a question after it.
_OBJECT_END = re.compile(r"\s+(?:so|but|because|since|which|that|when|while|if|though|and i|and my|as well|too|here"
                         r"|btw|by the way|lol|right now|at the moment|these days|anymore|any more|nowadays"
                         r"|after|ever since|for (?:religious|health|ethical) reasons|for years|for now"
                         r"|(?:last|this|next) (?:year|month|week)|in \d{4}|\d+ years ago|years ago|recently|again"
                         r"|if that matters|just saying|already|in (?:spring|summer|winter|autumn|fall)"
                         r"|(?:all|every|each|most) [a-z]+|who|looking|trying|hoping|working on|sometimes|occasionally"
                         r"|as needed|when needed|regularly|(?:a few|a couple of|several|many|two|three|four|five|\d+) times"
                         r"|once|twice|now and then|from time to time)\b.*$", re.IGNORECASE)
_NOT_A_THING = {"anything", "nothing", "everything", "it", "that", "this", "them", "you", "him", "her", "much",
                "a lot", "any", "some", "those", "there", "out", "much of anything", "mondays", "work", "people",
                "school", "life", "me", "myself", "the deadline", "missing out"}
# Dates: a deadline may fall "next Friday", a birthday only on a day of the year.
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
DATE = (rf"(?:(?:on\s+)?(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
        rf"|(?:next|this)\s+(?:{_WEEKDAY}|week|month)|(?:on\s+)?{_WEEKDAY}|tomorrow|tonight|the end of (?:the )?"
        rf"(?:week|month|year)|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|in\s+{_MONTH}"
        rf"|{_MONTH})")
CALENDAR_DAY = (rf"(?:(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
                r"|\d{1,2}/\d{1,2})")
# A person's name: its capitalised words, all of them ("Mary Ann"), never "I" after it.
NAME = r"(?-i:[A-Z][\w'-]*(?:\s+(?!I\b)[A-Z][\w'-]*){0,2})"
_CAPITALISED = r"(?:[A-Z][\w'.-]*(?:\s+(?:(?:de|del|la|le|am|upon|on|of|du|des|y)\b|[A-Z][\w'.-]*))*)"


def tidy(text: str) -> str:
    """An object as a line holds it: its trailing reason or time cut off, "my" dropped."""
    text = _OBJECT_END.sub("", text.strip())
    text = re.sub(r"\bmy\s+", "", text, flags=re.IGNORECASE)
    return text.strip(" ,.;:!?-–—\"'")


def key_of(text: str) -> str:
    """A thing as a slot holds it, so that "the peanuts" and "Peanuts" supersede each other."""
    text = re.sub(r"^(?:a|an|the|some|any|all)\s+", "", text.lower())
    return re.sub(r"\s+", " ", text).strip()


def noun_phrase(text: str, most_words: int = 4) -> str:
    """A noun phrase for a line, or "" when it is not one (too long, a pronoun, "anything")."""
    text = tidy(text)
    if not text or len(text.split()) > most_words or key_of(text) in _NOT_A_THING:
        return ""
    if re.match(r"(?:after|before|until|at|in|on|during|out|late|much|more|less|enough|anymore|with|without|for)\b",
                text, re.IGNORECASE):
        return ""
    if re.search(rf"\b(?:you|it|this|that|these|those|{_WEEKDAY}s?)\b", text, re.IGNORECASE):
        return ""
    return text


def place_in(text: str) -> str:
    """The place a clause names: its first run of capitalised words ("a small flat in Leeds" → Leeds)."""
    text = tidy(text)
    found = re.match(_CAPITALISED, text) or re.search(rf"\b(?:in|near|outside|to|of)\s+({_CAPITALISED})", text)
    if not found:
        return ""
    place = (found.group(1) if found.re.groups else found.group()).strip()
    place = re.sub(rf"\s+(?:in|on)\s+{_MONTH}.*$", "", place, flags=re.IGNORECASE)
    if re.fullmatch(rf"{_MONTH}|{_WEEKDAY}|I|My", place, re.IGNORECASE):
        return ""
    return place


def organisation_in(text: str) -> str:
    """Where someone works: a name ("Google") or a kind of place ("a small startup"); "" for "fun"."""
    text = tidy(re.split(r"\s+as\s+", text)[0])
    if re.fullmatch(_CAPITALISED, text) or re.fullmatch(
            r"(?:an?|the)\s+(?:[\w-]+\s+){0,3}(?:startup|start-up|company|firm|bank|hospital|school|university"
            r"|agency|restaurant|nonprofit|non-profit|charity|shop|store|factory|lab|clinic|bakery|cafe|hotel"
            r"|newspaper|studio|consultancy|airline|council|ministry)", text, re.IGNORECASE):
        return text
    return ""
