"""Branches of a chat: an edited message starts a new version of the chat from there, and Retry a
new version of the reply; the earlier versions are kept and can be shown again.

Only one version is in ``messages`` at a time, so the model's window, recall, summaries and the
archive see the shown version and nothing else. The others wait in ``forks`` (migration 18): the
messages after a place in the chat (``after_id``) as they were, with their turn records. Showing
one swaps it with the shown one, ids and all, so the records and the notes' provenance still name
the right messages. Message ids only grow, so the versions at a place are in the order they were
made when sorted by their first message's id.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass

from engram.core.conversation.sessions import Message
from engram.core.errors import NotFound
from engram.core.memory.records import now_iso
from engram.core.storage.database import Database

MESSAGE_COLUMNS = ("id", "session_id", "role", "content", "status", "created_at")
TURN_COLUMNS = ("id", "session_id", "user_message_id", "reply_message_id", "messages", "recalled", "tokens",
                "timings", "tool_calls", "recall", "created_at")


@dataclass(frozen=True)
class Versions:
    """The versions of a chat from one place on: ``forks`` has each one's fork id in the order
    they were made (None for the one shown), ``shown`` the index of the one shown."""

    after_id: int
    forks: tuple[int | None, ...]
    shown: int

    @property
    def count(self) -> int:
        return len(self.forks)

    def fork(self, index: int) -> int | None:
        """The fork to show for version ``index`` (0-based); None: it is shown already, or there is none."""
        return self.forks[index] if 0 <= index < len(self.forks) else None


class Branches:
    def __init__(self, db: Database):
        self.db = db

    def shelve(self, session_id: str, from_id: int, conn) -> list[Message]:
        """Move the chat's messages from ``from_id`` on (with their turn records) into a new fork,
        inside the caller's transaction; returns them (their archived memories are the caller's)."""
        rows = conn.execute(f"SELECT {', '.join(MESSAGE_COLUMNS)} FROM messages WHERE session_id = ? AND id >= ?"
                            " ORDER BY id", (session_id, from_id)).fetchall()
        if not rows:
            return []
        (after_id,) = conn.execute("SELECT coalesce(max(id), 0) FROM messages WHERE session_id = ? AND id < ?",
                                   (session_id, rows[0][0])).fetchone()
        turns = conn.execute(f"SELECT {', '.join(TURN_COLUMNS)} FROM turns WHERE session_id = ?"
                             " AND (reply_message_id >= ? OR user_message_id >= ?) ORDER BY id",
                             (session_id, rows[0][0], rows[0][0])).fetchall()
        conn.execute("INSERT INTO forks(session_id, after_id, first_id, messages, turns, created_at)"
                     " VALUES (?,?,?,?,?,?)",
                     (session_id, after_id, rows[0][0], _dumps(MESSAGE_COLUMNS, rows), _dumps(TURN_COLUMNS, turns),
                      now_iso()))
        conn.execute("DELETE FROM messages WHERE session_id = ? AND id >= ?", (session_id, rows[0][0]))
        return [Message(*row) for row in rows]

    def show(self, session_id: str, fork_id: int, conn) -> tuple[list[Message], list[Message]]:
        """Show a fork in place of the version shown from the same place, inside the caller's
        transaction; returns (the messages shelved, the messages shown again)."""
        row = conn.execute("SELECT after_id, messages, turns FROM forks WHERE id = ? AND session_id = ?",
                           (fork_id, session_id)).fetchone()
        if row is None:
            raise NotFound(f"this chat has no version #{fork_id}", hint="open the chat again")
        after_id, messages, turns = row
        (first,) = conn.execute("SELECT min(id) FROM messages WHERE session_id = ? AND id > ?",
                                (session_id, after_id)).fetchone()
        shelved = self.shelve(session_id, first, conn) if first is not None else []
        conn.execute("DELETE FROM forks WHERE id = ?", (fork_id,))
        restored = json.loads(messages)
        for table, columns, items in (("messages", MESSAGE_COLUMNS, restored), ("turns", TURN_COLUMNS, json.loads(turns))):
            for item in items:
                conn.execute(f"INSERT INTO {table}({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})",
                             tuple(item[c] for c in columns))
        return shelved, [Message(*(item[c] for c in MESSAGE_COLUMNS)) for item in restored]

    def versions(self, session_id: str) -> dict[int, Versions]:
        """The places of the shown version where other versions exist, by the id of the shown
        message that begins each place (where the chat view puts its ‹ 1/2 ›)."""
        shown = [message_id for (message_id,) in
                 self.db.query("SELECT id FROM messages WHERE session_id = ? ORDER BY id", (session_id,))]
        places: dict[int, list[tuple[int, int]]] = {}
        for fork_id, after_id, first_id in self.db.query(
                "SELECT id, after_id, first_id FROM forks WHERE session_id = ?", (session_id,)):
            places.setdefault(after_id, []).append((first_id, fork_id))
        found: dict[int, Versions] = {}
        for after_id, forks in places.items():
            at = bisect.bisect_right(shown, after_id)
            if (after_id and (at == 0 or shown[at - 1] != after_id)) or at == len(shown):
                continue              # the place is in a version not shown, or nothing follows it now
            ordered = sorted([*forks, (shown[at], None)])
            found[shown[at]] = Versions(after_id, tuple(fork for _, fork in ordered),
                                        [fork for _, fork in ordered].index(None))
        return found


def _dumps(columns: tuple[str, ...], rows) -> str:
    return json.dumps([dict(zip(columns, row)) for row in rows], ensure_ascii=False)
