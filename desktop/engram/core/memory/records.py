"""The memory record and its vocabulary."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum

from engram.core.errors import InvalidInput
from engram.core.memory.scope import Scope

# A memory's text is at most this long; longer input (a pasted book) belongs in session files,
# which are split into chunks below this size.
MAX_TEXT_CHARS = 16_000


class Kind(StrEnum):
    """Stored as text: never reuse a spelling for another meaning."""

    MESSAGE = "message"
    FACT = "fact"
    PREFERENCE = "preference"
    TASK = "task"
    SUMMARY = "summary"
    EXPERIENCE = "experience"
    FILE = "file"


# What distillation writes (core/conversation/distill.py): notes about the person, each from the messages named
# in its source_ids; search takes them as keys of those messages.
DISTILLED_KINDS = (Kind.FACT, Kind.PREFERENCE, Kind.TASK)


class Actor(StrEnum):
    USER = "user"
    MODEL = "model"
    SYSTEM = "system"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def moment_of(iso: str) -> datetime:
    """A stored time as an aware datetime (a time stored without a zone is UTC's)."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def wording(text: str) -> str:
    """The words of a text, case and spacing aside: two memories with the same wording say the
    same thing (recall shows it once; distillation does not note it again)."""
    return " ".join(text.casefold().split())


def normalise_text(text: str) -> str:
    """Validate memory text; returns it trimmed and NFC-normalised."""
    if not isinstance(text, str):
        raise InvalidInput("memory text must be a string")
    cleaned = unicodedata.normalize("NFC", text).strip()
    if not cleaned:
        raise InvalidInput("memory text is empty", hint="give some words to remember")
    if len(cleaned) > MAX_TEXT_CHARS:
        raise InvalidInput(f"memory text is {len(cleaned):,} characters; the limit is {MAX_TEXT_CHARS:,}",
                           hint="save long material as a session file instead; it is split into chunks")
    return cleaned


def content_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def parse_kind(kind: str | Kind) -> Kind:
    try:
        return Kind(kind)
    except ValueError:
        raise InvalidInput(f"unknown memory kind {kind!r}",
                           hint="use one of: " + ", ".join(k.value for k in Kind)) from None


def check_importance(importance: float) -> float:
    if not isinstance(importance, (int, float)) or not 0.0 <= importance <= 1.0:
        raise InvalidInput(f"importance must be a number from 0 to 1, not {importance!r}")
    return float(importance)


@dataclass(frozen=True)
class NewMemory:
    """What a caller asks to remember."""

    text: str
    scope: Scope
    kind: Kind | str = Kind.FACT
    importance: float = 0.5
    source_ids: tuple[int, ...] = ()
    source: dict = field(default_factory=dict)
    created_at: str | None = None
    pinned: bool = False


@dataclass(frozen=True)
class Memory:
    id: int
    text: str
    kind: Kind
    scope: Scope
    importance: float
    created_at: str
    updated_at: str
    valid_from: str | None
    valid_to: str | None
    superseded_by: int | None
    access_count: int
    last_accessed_at: str | None
    source_ids: tuple[int, ...]
    source: dict
    content_hash: str
    pinned: bool

    COLUMNS = ("id, text, kind, application, agent, user, session, importance, created_at, updated_at,"
               " valid_from, valid_to, superseded_by, access_count, last_accessed_at, source_ids, source,"
               " content_hash, pinned")

    @classmethod
    def from_row(cls, row: tuple) -> "Memory":
        (id_, text, kind, app, agent, user, session, importance, created, updated, vfrom, vto, sup,
         count, last, source_ids, source, chash, pinned) = row
        return cls(id_, text, Kind(kind), Scope(app, agent, user, session), importance, created, updated,
                   vfrom, vto, sup, count, last, tuple(json.loads(source_ids)), json.loads(source), chash,
                   bool(pinned))

    def outdated(self, moment: str) -> str:
        """Why the memory is not current at ``moment`` (ISO, as stored), in words; "" when it is:
        a search that asks for history shows the old beside the current and says which is which."""
        if self.superseded_by is not None:
            return "superseded"         # by a newer memory (superseded_by), whose text says what is true now
        if self.valid_to is not None and self.valid_to <= moment:
            return f"out of date since {self.valid_to[:10]}"
        if self.valid_from is not None and self.valid_from > moment:
            return f"valid from {self.valid_from[:10]}"
        return ""

    def to_json(self) -> dict:
        return {"id": self.id, "text": self.text, "kind": self.kind.value, **dict(self.scope.items()),
                "importance": self.importance, "created_at": self.created_at, "updated_at": self.updated_at,
                "valid_from": self.valid_from, "valid_to": self.valid_to, "superseded_by": self.superseded_by,
                "access_count": self.access_count, "last_accessed_at": self.last_accessed_at,
                "source_ids": list(self.source_ids), "source": self.source, "pinned": self.pinned}


@dataclass(frozen=True)
class Change:
    """One line of a memory's history."""

    memory_id: int
    action: str
    actor: str
    old_text: str | None
    new_text: str | None
    at: str
