"""ChatGPT's export (Settings › Data controls › Export): a .zip with ``conversations.json``, a list
of conversations, each a tree of messages (``mapping``: node id -> {message, parent, children}).
Editing a message or regenerating a reply makes a branch; ``current_node`` is where the person
left the conversation, so the branch that ends there is the conversation they saw.

Kept: what the person wrote and what ChatGPT answered them (text, and the text parts of messages
with images). Left out: system and tool messages, hidden context (custom instructions), the
model's calls to tools and its reasoning notes, images and files themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from engram.core.errors import InvalidInput
from engram.core.porting.conversation import (Conversation, Damaged, Turn, clean_text, iso_time, path_to,
                                              required, text_field)
from engram.core.porting.reading import Progress, conversation_items, opened_export, parsed

SOURCE = "chatgpt"
TEXT_TYPES = ("text", "multimodal_text")


def read(path: Path, progress: Progress | None = None) -> Iterator[Conversation | Damaged]:
    with opened_export(path, "ChatGPT") as (stream, size):
        yield from parsed(conversation_items(stream, size, "ChatGPT", progress), conversation, "title")


def conversation(item: dict) -> Conversation:
    mapping = required(item, "mapping", dict, "the conversation")
    ident = item.get("conversation_id") or item.get("id")
    if not isinstance(ident, str) or not ident:
        raise InvalidInput("the conversation has no id")
    turns = tuple(t for node in branch(mapping, item.get("current_node")) if (t := turn(node)) is not None)
    title = text_field(item, "title")
    created = iso_time(item.get("create_time")) or (turns[0].at if turns else None)
    return Conversation(f"{SOURCE}:{ident}", clean_text(title), created,
                        tuple(Turn(t.role, t.text, t.at or created) for t in turns))


def branch(mapping: dict, current) -> list[dict]:
    """The nodes from the root to ``current`` (without it: the newest leaf), oldest first. A
    parent link that loops or leads nowhere ends the walk rather than the import."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children")]
        if not leaves:
            return []
        current = max(leaves, key=lambda n: _time(n) or 0.0).get("id")
    return path_to(mapping, current, "parent")


def _time(node: dict):
    message = node.get("message")
    at = message.get("create_time") if isinstance(message, dict) else None
    return at if isinstance(at, (int, float)) else None


def turn(node: dict) -> Turn | None:
    """The message of a node as a turn, or None when it is not one the person saw."""
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    role = (message.get("author") or {}).get("role")
    metadata = message.get("metadata") or {}
    content = message.get("content") or {}
    if (role not in ("user", "assistant") or message.get("recipient", "all") != "all"
            or metadata.get("is_visually_hidden_from_conversation") or not isinstance(content, dict)
            or content.get("content_type") not in TEXT_TYPES):
        return None
    parts = content.get("parts") or []
    text = "\n\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()
    if not text:
        return None
    return Turn(role, clean_text(text), iso_time(message.get("create_time")))
