"""The long-term archive: every user and assistant message becomes a ``message`` memory, embedded
and searchable across sessions (the Agent Framework's chat-history memory). Run by the outbox, so
a message is archived even when the process died right after storing it.

Only what the person typed and what the model replied is archived; recalled memories, summaries
and tool results are never stored again as messages.
"""

from __future__ import annotations

from engram.core.errors import NotFound
from engram.core.memory_options import session_scope
from engram.core.records import MAX_TEXT_CHARS, Actor, Kind
from engram.core.sessions import Message, Sessions
from engram.core.store import MemoryStore

ARCHIVE_JOB = "archive_message"


class Archiver:
    def __init__(self, sessions: Sessions, store: MemoryStore, storage_scope: tuple[str, ...]):
        self.sessions = sessions
        self.store = store
        self.storage_scope = storage_scope

    def __call__(self, payload: dict) -> None:
        try:
            message = self.sessions.message(payload["message_id"])
            session = self.sessions.get(message.session_id)
        except NotFound:
            return                                   # the session was deleted: nothing to keep
        if message.role in ("user", "assistant") and message.content.strip():
            self.store.add(message.content[:MAX_TEXT_CHARS], session_scope(session, self.storage_scope), Kind.MESSAGE,
                           actor=Actor.USER if message.role == "user" else Actor.MODEL, embed=False,
                           source_ids=(message.id,), created_at=message.created_at,
                           source={"role": message.role, "message_id": message.id, "session": session.id,
                                   "status": message.status})
            try:
                self.sessions.message(message.id)
            except NotFound:                         # deleted meanwhile (a reply Retry replaced): forget it too
                forget_message(self.store, session.user, message)
        self.store.embed_pending()


def forget_message(store: MemoryStore, user: str, message: Message) -> int:
    """Delete the memory archived from one message (a reply that Retry replaced); returns how many.
    The archive gives that memory the message's time, so the index on (user, kind, created_at)
    finds it without reading the user's other memories."""
    return _forget(store, store.db.query("SELECT id FROM memories WHERE user = ? AND kind = ? AND created_at = ?"
                                         " AND json_extract(source, '$.message_id') = ?",
                                         (user, Kind.MESSAGE.value, message.created_at, message.id)))


def forget_session(store: MemoryStore, user: str, session_id: str) -> int:
    """Delete every memory taken from a session, whatever scope it was stored with; returns how many."""
    return _forget(store, store.db.query("SELECT id FROM memories WHERE user = ? AND (session = ?"
                                         " OR json_extract(source, '$.session') = ?)", (user, session_id, session_id)))


def _forget(store: MemoryStore, rows: list[tuple]) -> int:
    for (memory_id,) in rows:
        store.delete(memory_id, actor=Actor.USER)
    return len(rows)
