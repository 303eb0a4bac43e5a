"""Sensitive details in text: e-mail addresses, phone numbers, Chinese resident ID numbers, card
numbers, IBANs and passport-like numbers (the seeds' PII sanitiser, made concrete).

Numbers are checked, not just shaped: phone numbers by Google's libphonenumber (``phonenumbers``:
the numbering plans of every country, Chinese mobiles and landlines included, kept current by
Google), resident IDs, card numbers and IBANs by their check digits (``python-stdnum``: cn.ric,
luhn, iban). A passport number has no check digit in the text a person types, so "passport-like"
is a shape: one or two capital letters, 7 or 8 digits, an optional final letter.

They are found to mark memories that hold them, to mask them before storing when the person
chooses (setting ``sensitive_details: mask``), and to keep them out of logs and error messages.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import phonenumbers
from stdnum import iban, luhn
from stdnum.cn import ric

EMAIL = "email"
PHONE = "phone"
RESIDENT_ID = "resident_id"
CARD = "card"
IBAN = "iban"
PASSPORT = "passport"
LABELS = {EMAIL: "e-mail address", PHONE: "phone number", RESIDENT_ID: "resident ID number",
          CARD: "card number", IBAN: "IBAN", PASSPORT: "passport-like number"}
KEEP, MASK = "keep", "mask"
SETTING_CHOICES = (KEEP, MASK)

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
_RESIDENT_ID = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
_CARD = re.compile(r"(?<![+0-9A-Za-z-])[2-6](?:[ -]?\d){12,18}(?![0-9A-Za-z-])")   # issuers' numbers start 2-6
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_PASSPORT = re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,2}\d{7,8}[A-Z]?(?![A-Za-z0-9])")
PHONE_REGION = "CN"        # numbers without a country code are read as Chinese ones; +... are any country's


@dataclass(frozen=True)
class Detail:
    kind: str          # one of LABELS
    start: int
    end: int
    text: str


def find(text: str) -> list[Detail]:
    """The sensitive details in a text, in order, none overlapping (a checked number wins over a
    shape: an ID number is not also reported as a card or a phone number)."""
    found: list[Detail] = []

    def add(kind: str, start: int, end: int) -> None:
        if not any(start < d.end and d.start < end for d in found):
            found.append(Detail(kind, start, end, text[start:end]))

    for m in _EMAIL.finditer(text):
        add(EMAIL, m.start(), m.end())
    for m in _RESIDENT_ID.finditer(text):
        if ric.is_valid(m.group()):
            add(RESIDENT_ID, m.start(), m.end())
    for m in _IBAN.finditer(text):
        if (end := _checked(text, m, iban.is_valid)) is not None:
            add(IBAN, m.start(), end)
    for m in _CARD.finditer(text):
        if (end := _checked(text, m, _is_card)) is not None:
            add(CARD, m.start(), end)
    for match in phonenumbers.PhoneNumberMatcher(text, PHONE_REGION, leniency=phonenumbers.Leniency.VALID):
        add(PHONE, match.start, match.end)
    for m in _PASSPORT.finditer(text):
        add(PASSPORT, m.start(), m.end())
    return sorted(found, key=lambda d: d.start)


def _checked(text: str, match: re.Match, valid) -> int | None:
    """Where the valid number that starts the match ends: the whole match, or else the longest run
    of its space-separated groups that checks out ("GB82 WEST … 32 OK": the IBAN without "OK")."""
    ends = [match.end()] + [match.start() + i for i in range(len(match.group()) - 1, 0, -1)
                            if match.group()[i] == " "]
    return next((end for end in ends if valid(text[match.start():end])), None)


def _is_card(number: str) -> bool:
    digits = re.sub(r"\D", "", number)
    return 13 <= len(digits) <= 19 and luhn.is_valid(digits)


def kinds(text: str) -> list[str]:
    """Which kinds of sensitive details a text holds (empty: none)."""
    return sorted({d.kind for d in find(text)})


def mask(text: str) -> str:
    """The text with each sensitive detail replaced by its label, e.g. [phone number]."""
    out, at = [], 0
    for detail in find(text):
        out += [text[at:detail.start], f"[{LABELS[detail.kind]}]"]
        at = detail.end
    return "".join(out) + text[at:]


def mask_error(error: BaseException) -> BaseException:
    """The error with the sensitive details in its message and hint masked, in place (its type and
    traceback stay, so the code that handles it still can)."""
    error.args = tuple(mask(arg) if isinstance(arg, str) else arg for arg in error.args)
    if isinstance(getattr(error, "hint", None), str):
        error.hint = mask(error.hint)
    return error


def hide_in_logs() -> None:
    """Mask sensitive details in every log record from now on, message and traceback alike, by
    wrapping the record factory (a filter on one logger would miss the records of its children)."""
    make = logging.getLogRecordFactory()
    if getattr(make, "masks_sensitive", False):
        return

    def masked(*args, **kwargs) -> logging.LogRecord:
        record = make(*args, **kwargs)
        try:
            record.msg, record.args = mask(record.getMessage()), ()
        except Exception:              # a record whose arguments do not fit its format: leave it
            return record
        if record.exc_info and not record.exc_text:
            record.exc_text = mask(logging.Formatter().formatException(record.exc_info))
        return record

    masked.masks_sensitive = True
    logging.setLogRecordFactory(masked)
