"""Claude's export (Settings › Privacy › Export data): a .zip with ``conversations.json``, a list
of conversations with ``uuid``, ``name``, ``created_at`` and ``chat_messages`` in order, each with
``sender`` ('human' or 'assistant'), ``text``, ``content`` blocks and ``created_at``.

Kept: the text blocks of each message (or its ``text`` when it has no blocks) on the branch that
ends at ``current_leaf_message_uuid``, as ChatGPT's ``current_node``. Left out: tool
use and tool results, thinking blocks, attachments and files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from engram.core.porting.conversation import (Conversation, Damaged, Turn, clean_text, iso_time, path_to,
                                              required, text_field)
from engram.core.porting.reading import Progress, conversation_items, opened_export, parsed

SOURCE = "claude"
ROLES = {"human": "user", "assistant": "assistant"}


def read(path: Path, progress: Progress | None = None) -> Iterator[Conversation | Damaged]:
    with opened_export(path, "Claude") as (stream, size):
        yield from parsed(conversation_items(stream, size, "Claude", progress), conversation, "name")


def conversation(item: dict) -> Conversation:
    ident = required(item, "uuid", str, "the conversation")
    messages = required(item, "chat_messages", list, "the conversation")
    created = iso_time(item.get("created_at"))
    branch = kept(messages, item.get("current_leaf_message_uuid"))
    turns = tuple(t for m in branch if (t := turn(m, created)) is not None)
    name = text_field(item, "name")
    return Conversation(f"{SOURCE}:{ident}", clean_text(name), created or (turns[0].at if turns else None), turns)


def kept(messages: list, leaf) -> list:
    """The messages on the branch the person kept, ending at ``leaf``: a retried reply or an edited
    message is another child of the same parent (``parent_message_uuid``). An export without
    these fields (older ones) lists only what was kept, in order: all of them."""
    by_uuid = {m["uuid"]: m for m in messages if isinstance(m, dict) and isinstance(m.get("uuid"), str)}
    branch = path_to(by_uuid, leaf, "parent_message_uuid")
    return branch or messages


def turn(message, fallback: str | None) -> Turn | None:
    if not isinstance(message, dict) or message.get("sender") not in ROLES:
        return None
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n\n".join(t for t in texts if isinstance(t, str) and t.strip())
    else:
        text = text_field(message, "text")
    if not text.strip():
        return None
    return Turn(ROLES[message["sender"]], clean_text(text.strip()), iso_time(message.get("created_at")) or fallback)
