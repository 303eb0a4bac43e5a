"""What every import format yields: conversations in a common shape, or a note of what was damaged.

A format module reads its file lazily and yields ``Conversation`` or ``Damaged`` items one at a
time, so a huge export is never held whole in memory and a fault in one conversation costs only
that one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from engram.core.errors import InvalidInput


@dataclass(frozen=True)
class Turn:
    role: str                     # 'user' or 'assistant'
    text: str
    at: str | None = None         # Engram's time format (records.now_iso), or None when unknown


@dataclass(frozen=True)
class Conversation:
    key: str                      # stable across imports of the same export: '<source>:<its id>'
    title: str
    created_at: str | None
    turns: tuple[Turn, ...]
    settings: dict = field(default_factory=dict)     # the chat's own (Engram's export: memory, instructions, model)


@dataclass(frozen=True)
class Damaged:
    """A part of the file that could not be imported, and why (shown to the person)."""

    where: str
    why: str


def iso_time(value) -> str | None:
    """A time as Engram stores it (UTC, milliseconds, 'Z'), from seconds since 1970 (ChatGPT) or
    an ISO 8601 text (Claude, markdown headings); None when absent or unreadable."""
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            at = datetime.fromtimestamp(float(value), timezone.utc)
        elif isinstance(value, str) and value.strip():
            at = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            at = at.replace(tzinfo=at.tzinfo or timezone.utc)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return at.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def clean_text(text: str) -> str:
    """Text safe to store: lone surrogates (a JSON escape of half a character) become U+FFFD."""
    return text.encode("utf-8", "replace").decode("utf-8") if isinstance(text, str) else ""


def text_field(item: dict, field: str) -> str:
    """A field that should hold text: its text, or "" when it is missing or something else."""
    value = item.get(field)
    return value if isinstance(value, str) else ""


def required(item, field: str, kind: type, what: str):
    """A field of a conversation that must be there, or InvalidInput naming it."""
    value = item.get(field) if isinstance(item, dict) else None
    if not isinstance(value, kind):
        raise InvalidInput(f"{what} has no {field!r} of the expected kind")
    return value


def path_to(nodes: dict, leaf, parent: str) -> list[dict]:
    """The nodes from the root to ``leaf``, oldest first, each naming its own in the field
    ``parent``: the branch a person kept where retried replies and edited messages left others.
    A link that loops or leads nowhere ends the walk rather than the import."""
    path: list[dict] = []
    seen: set[str] = set()
    while isinstance(leaf, str) and leaf not in seen and isinstance(nodes.get(leaf), dict):
        seen.add(leaf)
        path.append(nodes[leaf])
        leaf = nodes[leaf].get(parent)
    return path[::-1]
