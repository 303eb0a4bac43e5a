"""How a person likes replies (language, tone, level of detail, emoji), kept as structured data
and put into the system prompt. Edited through ``engram prefs`` now and the window later."""

from __future__ import annotations

import json

from engram.core.conversation.context import STABLE, Section, TurnContext
from engram.core.storage.database import Database
from engram.core.errors import InvalidInput
from engram.core.memory.records import now_iso

DETAIL_LEVELS = ("brief", "normal", "detailed")
KEYS = {
    "language": "the language to reply in, e.g. English or 中文",
    "tone": "e.g. friendly, formal, playful",
    "detail": "one of " + ", ".join(DETAIL_LEVELS),
    "emoji": "true or false",
}


def parse_value(key: str, value):
    """Check one preference; text from the command line is accepted for every key."""
    if key not in KEYS:
        raise InvalidInput(f"unknown preference {key!r}", hint="use one of: " + ", ".join(KEYS))
    if key == "emoji":
        if isinstance(value, str) and value.lower() in ("true", "yes", "on", "false", "no", "off"):
            return value.lower() in ("true", "yes", "on")
        if isinstance(value, bool):
            return value
        raise InvalidInput("emoji must be true or false")
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        raise InvalidInput(f"{key} must be a short text ({KEYS[key]})")
    value = " ".join(value.split())
    if key == "detail" and value not in DETAIL_LEVELS:
        raise InvalidInput(f"detail must be one of {', '.join(DETAIL_LEVELS)}")
    return value


class Preferences:
    def __init__(self, db: Database):
        self.db = db

    def get(self, user: str) -> dict:
        return {k: json.loads(v) for k, v in self.db.query("SELECT key, value FROM preferences WHERE user = ?"
                                                           " ORDER BY key", (user,))}

    def set(self, user: str, key: str, value) -> dict:
        value = parse_value(key, value)
        self.db.execute("INSERT INTO preferences(user, key, value, updated_at) VALUES (?,?,?,?)"
                        " ON CONFLICT(user, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                        (user, key, json.dumps(value, ensure_ascii=False), now_iso()))
        return self.get(user)

    def unset(self, user: str, key: str) -> dict:
        if key not in KEYS:
            raise InvalidInput(f"unknown preference {key!r}", hint="use one of: " + ", ".join(KEYS))
        self.db.execute("DELETE FROM preferences WHERE user = ? AND key = ?", (user, key))
        return self.get(user)


def describe(preferences: dict) -> str:
    parts = []
    for key, value in preferences.items():
        if key == "emoji":
            parts.append("use emoji" if value else "no emoji")
        elif key == "detail":
            parts.append(f"{value} answers")
        else:
            parts.append(f"{key}: {value}")
    return "How the person likes replies: " + "; ".join(parts) + "."


class PreferencesProvider:
    def __init__(self, preferences: Preferences):
        self.preferences = preferences

    def sections(self, turn: TurnContext) -> list[Section]:
        found = self.preferences.get(turn.session.user)
        if not found:
            return []
        return [Section("preferences", [{"role": "system", "content": describe(found)}], data=found, slot=STABLE)]

    def tools(self, turn: TurnContext) -> list:
        return []
