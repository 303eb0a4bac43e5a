"""What a person chose for one chat, beside the global settings: memory on or off, instructions
of its own (a system prompt for this chat), a chat model of its own.

Memory off makes a chat like a private window: its messages are stored (no words are lost) but
nothing from it is archived, distilled, summarised or learned for the profile, and nothing is
recalled into it. Turning memory off does not forget what was kept before; Forget does that.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram.core.errors import InvalidInput
from engram.core.storage.database import Database

MAX_INSTRUCTIONS_CHARS = 4000


@dataclass(frozen=True)
class ChatSettings:
    memory: bool = True
    instructions: str = ""
    model: str = ""          # a GGUF file's path; empty: the chat model the settings name

    def to_json(self) -> dict:
        return {"memory": self.memory, "instructions": self.instructions, "model": self.model}

    @classmethod
    def from_json(cls, data: dict) -> "ChatSettings":
        """As ``to_json`` wrote them (an export); what is missing or of the wrong type is the default."""
        return cls(data["memory"] if isinstance(data.get("memory"), bool) else True,
                   data["instructions"] if isinstance(data.get("instructions"), str) else "",
                   data["model"] if isinstance(data.get("model"), str) else "")

    def front_matter(self) -> list[str]:
        """The lines of a markdown export's front matter for what differs from the defaults:
        ``- memory: off``, ``- instructions: "…"``, ``- model: "…"`` (texts as JSON strings, so that
        a line break or a quote stays one line)."""
        return ((["- memory: off"] if not self.memory else [])
                + ([f"- instructions: {json.dumps(self.instructions, ensure_ascii=False)}"] if self.instructions else [])
                + ([f"- model: {json.dumps(self.model, ensure_ascii=False)}"] if self.model else []))


FRONT_MATTER = ("memory", "instructions", "model")


def model_here(model: str) -> bool:
    """Whether a chat's model file is on this computer (an export may name another computer's)."""
    try:
        return Path(model).expanduser().is_file()
    except RuntimeError:            # ~someone, who has no home here
        return False


def from_front_matter(name: str, value: str) -> bool | str | None:
    """A setting's value (as ``to_json`` has it) from its front-matter line, or None when it does
    not read as one (then the line is left as the text it is). A hand-written text need not be quoted."""
    value = value.strip()
    if name == "memory":
        return {"on": True, "off": False}.get(value.lower())
    if value.startswith('"'):
        try:
            text = json.loads(value)
        except ValueError:
            return None
        return text if isinstance(text, str) else None
    return value


class ChatSettingsStore:
    """The ``chat_settings`` table: one row per chat that differs from the defaults."""

    def __init__(self, db: Database, clean: Callable[[str], str] = lambda text: text):
        self.db = db
        self.clean = clean          # instructions are the person's words: masked as messages are

    def get(self, session_id: str) -> ChatSettings:
        row = self.db.query_one("SELECT memory, instructions, model FROM chat_settings WHERE session_id = ?",
                                (session_id,))
        return ChatSettings(bool(row[0]), row[1], row[2]) if row else ChatSettings()

    def set(self, session_id: str, *, memory: bool | None = None, instructions: str | None = None,
            model: str | None = None, conn=None) -> ChatSettings:
        """Change what is given (None: keep); returns the chat's settings as they are now. Pass
        ``conn`` to join a caller's transaction (an import storing the chat)."""
        row = (conn or self.db).execute("SELECT memory, instructions, model FROM chat_settings WHERE session_id = ?",
                                        (session_id,)).fetchone()
        old = ChatSettings(bool(row[0]), row[1], row[2]) if row else ChatSettings()
        if instructions is not None:
            if not isinstance(instructions, str):
                raise InvalidInput("a chat's instructions must be text")
            instructions = self.clean(instructions.strip())
            if len(instructions) > MAX_INSTRUCTIONS_CHARS:
                raise InvalidInput(f"the instructions are {len(instructions)} characters long; the limit is"
                                   f" {MAX_INSTRUCTIONS_CHARS}", hint="shorten them, or put long material in a"
                                   " file of the chat's folder")
        new = ChatSettings(old.memory if memory is None else memory,
                           old.instructions if instructions is None else instructions,
                           old.model if model is None else model)
        (conn or self.db).execute("INSERT INTO chat_settings(session_id, memory, instructions, model) VALUES (?,?,?,?)"
                        " ON CONFLICT(session_id) DO UPDATE SET memory = excluded.memory,"
                        " instructions = excluded.instructions, model = excluded.model",
                        (session_id, int(new.memory), new.instructions, new.model))
        return new
