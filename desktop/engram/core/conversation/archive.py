"""The long-term archive: every user and assistant message becomes a ``message`` memory, embedded
and searchable across sessions (the Agent Framework's chat-history memory). Run by the outbox, so
a message is archived even when the process died right after storing it.

Only what the person typed and what the model replied is archived; recalled memories, summaries
and tool results are never stored again as messages. Nor is a reply that merely repeats what
Engram itself told the model in that turn (its system message: system prompt, file and tool
instructions; and the block of recalled memories), as a small model sometimes does: that is
Engram's own text, or memories already kept, not something new.
"""

from __future__ import annotations

from engram.core.errors import NotFound
from engram.core.storage import dialect
from engram.core.conversation.memory_options import session_scope
from engram.core.memory.records import MAX_TEXT_CHARS, Actor, Kind
from engram.core.conversation.sessions import Message, Sessions
from engram.core.memory.store import MemoryStore
from engram.core.conversation.turn_records import Turns

ARCHIVE_JOB = "archive_message"
ECHO_RUN = 24               # characters: a run this long found in the instructions was copied from them
ECHO_SHARE = 0.5            # a reply more than half copied merely repeats them


def echoed_share(reply: str, instructions: str) -> float:
    """The share of the reply (case and spacing aside) in runs of ECHO_RUN characters or more that
    appear word for word in the instructions, wherever they are and in any order."""
    text, source = " ".join(reply.lower().split()), " ".join(instructions.lower().split())
    if len(text) < ECHO_RUN or len(source) < ECHO_RUN:
        return 0.0
    runs = {source[i:i + ECHO_RUN] for i in range(len(source) - ECHO_RUN + 1)}
    copied = [False] * len(text)
    for i in range(len(text) - ECHO_RUN + 1):
        if text[i:i + ECHO_RUN] in runs:
            copied[i:i + ECHO_RUN] = [True] * ECHO_RUN
    return sum(copied) / len(text)


def turn_instructions(messages: list[dict], said: str) -> str:
    """What Engram itself told the model in a turn: the system messages and, in the person's
    message, the recalled memories put before their words."""
    told = [m.get("content") or "" for m in messages if m.get("role") == "system"]
    told += [m["content"][:-len(said)] for m in messages
             if m.get("role") == "user" and said and (m.get("content") or "").endswith(said)]
    return "\n".join(told)


class Archiver:
    def __init__(self, sessions: Sessions, store: MemoryStore, storage_scope: tuple[str, ...]):
        self.sessions = sessions
        self.store = store
        self.storage_scope = storage_scope
        self.turns = Turns(sessions.db)

    def __call__(self, payload: dict) -> None:
        """Archive one message (``message_id``), or the messages of an imported chat together
        (``message_ids``: their vectors are then computed in batches, not one call each)."""
        for message_id in payload.get("message_ids") or [payload["message_id"]]:
            self._archive(message_id)
        self.store.embed_pending()

    def _archive(self, message_id: int) -> None:
        try:
            message = self.sessions.message(message_id)
            session = self.sessions.get(message.session_id)
        except NotFound:
            return                                   # the session was deleted: nothing to keep
        if message.role in ("user", "assistant") and message.content.strip() and not self._echo(message):
            self.store.add(message.content[:MAX_TEXT_CHARS], session_scope(session, self.storage_scope), Kind.MESSAGE,
                           actor=Actor.USER if message.role == "user" else Actor.MODEL, embed=False,
                           source_ids=(message.id,), created_at=message.created_at,
                           source={"role": message.role, "message_id": message.id, "session": session.id,
                                   "status": message.status})
            try:
                self.sessions.message(message.id)
            except NotFound:                         # deleted meanwhile (a reply Retry replaced): forget it too
                forget_message(self.store, session.user, message)

    def _echo(self, message: Message) -> bool:
        """Whether a reply merely repeats what its turn told the model."""
        if message.role != "assistant":
            return False
        try:
            record = self.turns.for_reply(message.id)
            said = self.sessions.message(record.user_message_id).content
        except NotFound:
            return False
        return echoed_share(message.content, turn_instructions(record.messages, said)) > ECHO_SHARE


def forget_message(store: MemoryStore, user: str, message: Message) -> int:
    """Delete the memory archived from one message (a reply that Retry replaced); returns how many.
    The archive gives that memory the message's time, so the index on (user, kind, created_at)
    finds it without reading the user's other memories."""
    return _forget(store, store.db.query("SELECT id FROM memories WHERE user = ? AND kind = ? AND created_at = ?"
                                         f" AND {dialect.of(store.db).json_int('source', 'message_id')} = ?",
                                         (user, Kind.MESSAGE.value, message.created_at, message.id)))


def forget_session(store: MemoryStore, user: str, session_id: str) -> int:
    """Delete every memory taken from a session, whatever scope it was stored with; returns how many."""
    return _forget(store, store.db.query("SELECT id FROM memories WHERE user = ? AND (session = ? OR"
                                         f" {dialect.of(store.db).json_text('source', 'session')} = ?)",
                                         (user, session_id, session_id)))


def _forget(store: MemoryStore, rows: list[tuple]) -> int:
    for (memory_id,) in rows:
        store.delete(memory_id, actor=Actor.USER)
    return len(rows)
