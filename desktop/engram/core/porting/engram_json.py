"""Engram's own JSON export (export.py), read back: its chats come back with their messages, times
and titles, and are archived into memory again. Their import key is the one the chat had (an
imported chat) or ``engram:<its id>``, so importing the same export twice adds nothing.

A chat's own settings come back (memory off stays off: such a chat is not archived), but for its
model, which is kept only when its file is on this machine.

Not read back: the chats' files, and memories of other kinds than messages (notes, summaries):
notes point at message ids of the old database; the chats' own words are archived afresh.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from engram.core.errors import InvalidInput, NotFound
from engram.core.porting.conversation import (Conversation, Damaged, Turn, clean_text, iso_time, required,
                                              text_field)
from engram.core.porting.reading import Progress, conversation_items, parsed

SOURCE = "engram"
_HEAD = re.compile(rb'^\s*\{\s*"format"\s*:\s*"engram-export"\s*,\s*"version"\s*:\s*(\d+)')
READABLE_VERSION = 1


def _check(head: bytes) -> None:
    found = _HEAD.match(head)
    if found is None:
        raise InvalidInput("this is not an Engram export (it starts with no \"format\": \"engram-export\")",
                           hint="give a file written by `engram export --format json`")
    if int(found.group(1)) > READABLE_VERSION:
        raise InvalidInput(f"this export was written by a newer Engram (version {int(found.group(1))})",
                           hint="import it with that Engram, or update this one")


def read(path: Path, progress: Progress | None = None) -> Iterator[Conversation | Damaged]:
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"there is no file {path}", hint="give the .json file `engram export` wrote")
    with path.open("rb") as stream:
        items = conversation_items(stream, path.stat().st_size, "Engram", progress, prefix="sessions.item", check=_check)
        yield from parsed(items, conversation, what="chat")


def conversation(item: dict) -> Conversation:
    ident = required(item, "id", str, "the chat")
    messages = required(item, "messages", list, "the chat")
    turns = tuple(Turn(m["role"], clean_text(m["content"]), iso_time(m.get("created_at"))) for m in messages
                  if isinstance(m, dict) and m.get("role") in ("user", "assistant")
                  and isinstance(m.get("content"), str) and m["content"].strip())
    key = text_field(item, "import_key") or f"{SOURCE}:{ident}"
    title = text_field(item, "title")
    settings = item.get("settings")
    if not isinstance(settings, dict):
        settings = {}
    return Conversation(key, clean_text(title), iso_time(item.get("created_at")), turns, settings)
