"""The turn record: for every reply, exactly what the model saw and why.

It keeps the messages sent to the model (after tool calls, the last call's), the memories that
were recalled with their scores, why long-term memory was searched before the reply or not, the tokens of each section of the context, the tool calls made,
and the timings (embedding, search, prompt evaluation, generation, tokens per second). The
window's context inspector shows it; ``engram ask --json`` prints it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from engram.core.storage.database import Database
from engram.core.errors import NotFound
from engram.core.memory.records import now_iso


@dataclass
class TurnRecord:
    session_id: str
    user_message_id: int
    reply_message_id: int | None
    messages: list[dict]
    recalled: list[dict] = field(default_factory=list)
    tokens: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    tool_calls: list[dict] = field(default_factory=list)
    recall: dict = field(default_factory=dict)       # mode, searched, triggers, ... (recall.RecallProvider)
    created_at: str = field(default_factory=now_iso)
    id: int | None = None

    COLUMNS = ("id, session_id, user_message_id, reply_message_id, messages, recalled, tokens, timings,"
               " tool_calls, recall, created_at")

    @classmethod
    def from_row(cls, row: tuple) -> "TurnRecord":
        (id_, session, user_id, reply_id, messages, recalled, tokens, timings, tools, recall, at) = row
        return cls(session, user_id, reply_id, json.loads(messages), json.loads(recalled), json.loads(tokens),
                   json.loads(timings), json.loads(tools), json.loads(recall), at, id_)

    def to_json(self) -> dict:
        return {"id": self.id, "session_id": self.session_id, "user_message_id": self.user_message_id,
                "reply_message_id": self.reply_message_id, "messages": self.messages, "recalled": self.recalled,
                "tokens": self.tokens, "timings": self.timings, "tool_calls": self.tool_calls,
                "recall": self.recall, "created_at": self.created_at}


class Turns:
    def __init__(self, db: Database):
        self.db = db

    def save(self, record: TurnRecord, conn) -> TurnRecord:
        """Store a record inside the caller's transaction (the one that stores the reply)."""
        dumps = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731
        conn.execute("INSERT INTO turns(session_id, user_message_id, reply_message_id, messages, recalled, tokens,"
                     " timings, tool_calls, recall, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                     (record.session_id, record.user_message_id, record.reply_message_id, dumps(record.messages),
                      dumps(record.recalled), dumps(record.tokens), dumps(record.timings), dumps(record.tool_calls),
                      dumps(record.recall), record.created_at))
        record.id = conn.last_insert_rowid()
        return record

    def get(self, turn_id: int) -> TurnRecord:
        row = self.db.query_one(f"SELECT {TurnRecord.COLUMNS} FROM turns WHERE id = ?", (turn_id,))
        if row is None:
            raise NotFound(f"there is no turn record #{turn_id}")
        return TurnRecord.from_row(row)

    def for_reply(self, reply_message_id: int) -> TurnRecord:
        """The record behind one reply (what the context inspector opens)."""
        row = self.db.query_one(f"SELECT {TurnRecord.COLUMNS} FROM turns WHERE reply_message_id = ?",
                                (reply_message_id,))
        if row is None:
            raise NotFound(f"message #{reply_message_id} has no turn record", hint="only replies have one")
        return TurnRecord.from_row(row)

    def for_session(self, session_id: str) -> list[TurnRecord]:
        return [TurnRecord.from_row(r) for r in self.db.query(
            f"SELECT {TurnRecord.COLUMNS} FROM turns WHERE session_id = ? ORDER BY id", (session_id,))]
