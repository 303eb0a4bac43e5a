"""Chat sessions and their messages, as stored in the database.

A session's title starts as the first words of the conversation and changes only when the person
renames it; its folder name (for the session's files, under <data dir>/sessions/) is chosen once
at creation, readable by a person ("2026-11-29_1404_trip-planning") and never changes.
Deleting a session forgets it for real: messages, turn records and every memory taken from it.
"""

from __future__ import annotations

import builtins
import re
import unicodedata
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from engram.core.conversation.chat_settings import ChatSettings
from engram.core.storage import dialect
from engram.core.storage.database import Database
from engram.core.errors import InvalidInput, NotFound
from engram.core.memory.records import now_iso
from engram.core.memory.scope import MAX_SCOPE_CHARS
from engram.core.memory.search.words.tokens import CJK

TITLE_WORDS = 6
TITLE_CHARS = 60
SLUG_CHARS = 40
ROLES = ("user", "assistant", "system", "tool")
STATUSES = ("complete", "stopped", "error")


@dataclass(frozen=True)
class Session:
    id: str
    user: str
    agent: str
    title: str
    title_is_custom: bool
    folder: str
    created_at: str
    updated_at: str

    COLUMNS = "id, user, agent, title, title_is_custom, folder, created_at, updated_at"

    @classmethod
    def from_row(cls, row: tuple) -> "Session":
        return cls(row[0], row[1], row[2], row[3], bool(row[4]), row[5], row[6], row[7])

    def to_json(self) -> dict:
        return {"id": self.id, "user": self.user, "agent": self.agent, "title": self.title,
                "title_is_custom": self.title_is_custom, "folder": self.folder,
                "created_at": self.created_at, "updated_at": self.updated_at}


@dataclass(frozen=True)
class Message:
    id: int
    session_id: str
    role: str
    content: str
    status: str
    created_at: str

    COLUMNS = "id, session_id, role, content, status, created_at"

    def to_json(self) -> dict:
        return {"id": self.id, "session_id": self.session_id, "role": self.role, "content": self.content,
                "status": self.status, "created_at": self.created_at}


def title_from(text: str) -> str:
    """The first words of a message, as a provisional title."""
    words = " ".join(text.split()).split(" ")
    title = " ".join(words[:TITLE_WORDS])
    return title[:TITLE_CHARS].rstrip() + ("…" if len(words) > TITLE_WORDS or len(title) > TITLE_CHARS else "")


def slug(text: str) -> str:
    """Lower case words joined by '-', at most SLUG_CHARS characters: Chinese, Japanese and Korean
    as they are (composed, NFC: every file system takes them), other letters without their accents
    (ASCII), the rest left out; empty when nothing is left (e.g. only punctuation)."""
    words = []
    for n, part in enumerate(re.split(f"([{CJK}]+)", unicodedata.normalize("NFKC", text))):
        if n % 2:   # a run of CJK characters (re.split gives the separators it keeps at odd places)
            words.append(part)
        else:
            unaccented = unicodedata.normalize("NFKD", part).encode("ascii", "ignore").decode()
            words += re.findall(r"[a-z0-9]+", unaccented.lower())
    out = ""
    for word in words:
        if len(out) + len(word) + 1 > SLUG_CHARS:
            break
        out = f"{out}-{word}" if out else word
    return out or "".join(words)[:SLUG_CHARS]


def check_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not session_id.strip():
        raise InvalidInput("a session id must be non-empty text")
    if len(session_id) > MAX_SCOPE_CHARS or any(unicodedata.category(c).startswith("C") for c in session_id):
        raise InvalidInput(f"the session id {session_id!r} is too long or has control characters",
                           hint=f"use at most {MAX_SCOPE_CHARS} printable characters")
    return session_id


class Sessions:
    """The repository of sessions and messages."""

    def __init__(self, db: Database):
        self.db = db
        # What the person's words go through before they are stored: messages, titles and the
        # folder names made from them (core/memory/sensitive.py's mask, by setting).
        self.clean: Callable[[str], str] | None = None

    def cleaned(self, text: str) -> str:
        """The person's words as they are stored (the sensitive-details mask, when it is on)."""
        return self.clean(text) if self.clean is not None and isinstance(text, str) else text

    # -- sessions ------------------------------------------------------------------------------

    def get_or_create(self, session_id: str | None, user: str, title: str = "", agent: str = "", *,
                      created_at: str | None = None, whole_title: bool = False) -> Session:
        """The session with this id (it must belong to ``user``), or a new one. With no id, one is made.
        An imported chat keeps its date (``created_at``) and its title as it was (``whole_title``)."""
        session_id = check_session_id(session_id) if session_id is not None else uuid.uuid4().hex[:12]
        title = self.cleaned(title)
        if not user:
            raise InvalidInput("a session needs a user")
        with self.db.transaction() as conn:
            row = conn.execute(f"SELECT {Session.COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                at = created_at or now_iso()
                folder = self._unique_folder(conn, at, title or session_id)
                shown = (" ".join(title.split())[:200] if whole_title else title_from(title)) if title else ""
                conn.execute("INSERT INTO sessions(id, user, agent, title, title_is_custom, folder, created_at,"
                             " updated_at) VALUES (?,?,?,?,?,?,?,?)",
                             (session_id, user, agent, shown, int(whole_title and bool(shown)), folder, at, at))
                row = conn.execute(f"SELECT {Session.COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        session = Session.from_row(row)
        if session.user != user:
            raise InvalidInput(f"session {session_id!r} belongs to another user",
                               hint="choose another session id")
        return session

    @staticmethod
    def _unique_folder(conn, at: str, words: str) -> str:
        stamp = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(timezone.utc).strftime("%Y-%m-%d_%H%M")
        base = f"{stamp}_{slug(words) or 'chat'}"
        folder, n = base, 1
        while conn.execute("SELECT 1 FROM sessions WHERE folder = ?", (folder,)).fetchone():
            n += 1
            folder = f"{base}-{n}"
        return folder

    def get(self, session_id: str) -> Session:
        row = self.db.query_one(f"SELECT {Session.COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        if row is None:
            raise NotFound(f"there is no session {session_id!r}", hint="`engram sessions list` shows them")
        return Session.from_row(row)

    def list(self, user: str, query: str = "") -> list[Session]:
        """A user's sessions, most recently used first; ``query`` matches titles, what was said and
        what the chat's files hold (their indexed chunks, memories of kind file)."""
        sql = f"SELECT {Session.COLUMNS} FROM sessions s WHERE user = ?"
        params: list = [user]
        if query:
            sql_of = dialect.of(self.db)
            sql += (f" AND ({sql_of.contains('title')} OR EXISTS (SELECT 1 FROM messages m"
                    f" WHERE m.session_id = s.id AND {sql_of.contains('m.content')})"
                    f" OR EXISTS (SELECT 1 FROM memories f WHERE f.session = s.id AND f.user = s.user"
                    f" AND f.kind = 'file' AND {sql_of.contains('f.text')}))")
            params += [query, query, query]
        return [Session.from_row(r) for r in self.db.query(sql + " ORDER BY updated_at DESC, rowid DESC", params)]

    def rename(self, session_id: str, title: str) -> Session:
        """Change the title only; the folder keeps its name so that paths stay valid."""
        title = " ".join(self.cleaned(title or "").split())
        if not title:
            raise InvalidInput("a session title cannot be empty")
        self.get(session_id)
        self.db.execute("UPDATE sessions SET title = ?, title_is_custom = 1, updated_at = ? WHERE id = ?",
                        (title[:200], now_iso(), session_id))
        return self.get(session_id)

    def name_from_first_words(self, session: Session, text: str) -> Session:
        """Give an untitled session the first words of its first message as its title."""
        if session.title or session.title_is_custom or not text.strip():
            return session
        text = self.cleaned(text)
        self.db.execute("UPDATE sessions SET title = ? WHERE id = ? AND title = ''", (title_from(text), session.id))
        return self.get(session.id)

    def delete(self, session_id: str, forget_memories) -> int:
        """Delete a session with its messages and turn records; ``forget_memories(session)`` removes
        what long-term memory took from it. Returns the number of messages deleted."""
        session = self.get(session_id)
        count = self.db.query_one("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,))[0]
        forget_memories(session)
        self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        forget_memories(session)     # again: an archive job may have run in between
        return count

    # -- messages ------------------------------------------------------------------------------

    def add_message(self, session_id: str, role: str, content: str, status: str = "complete", conn=None, *,
                    created_at: str | None = None) -> Message:
        """Store one message and mark the session used. Pass ``conn`` to join a caller's transaction
        (e.g. to queue its background work atomically with it); ``created_at`` keeps an imported
        message's own time."""
        if role not in ROLES:
            raise InvalidInput(f"unknown message role {role!r}")
        if status not in STATUSES:
            raise InvalidInput(f"unknown message status {status!r}")
        if not isinstance(content, str):
            raise InvalidInput("a message must be text")
        content = self.cleaned(content)
        at = created_at or now_iso()
        if conn is None:
            with self.db.transaction() as own:
                return self.add_message(session_id, role, content, status, own, created_at=created_at)
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise NotFound(f"there is no session {session_id!r}")
        conn.execute("INSERT INTO messages(session_id, role, content, status, created_at) VALUES (?,?,?,?,?)",
                     (session_id, role, content, status, at))
        message_id = conn.last_insert_rowid()
        conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (at, session_id))
        return Message(message_id, session_id, role, content, status, at)

    def message(self, message_id: int) -> Message:
        row = self.db.query_one(f"SELECT {Message.COLUMNS} FROM messages WHERE id = ?", (message_id,))
        if row is None:
            raise NotFound(f"there is no message #{message_id}")
        return Message(*row)

    def messages(self, session_id: str, *, roles: Sequence[str] = (), last: int | None = None,
                 after_id: int = 0, before_id: int | None = None) -> builtins.list[Message]:
        """Messages of a session in the order they were said; ``last`` keeps only the newest ones."""
        sql = f"SELECT {Message.COLUMNS} FROM messages WHERE session_id = ? AND id > ?"
        params: list = [session_id, after_id]
        if roles:
            sql += f" AND role IN ({','.join('?' * len(roles))})"
            params += list(roles)
        if before_id is not None:
            sql += " AND id < ?"
            params.append(before_id)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(dialect.NO_LIMIT if last is None else last)
        return [Message(*r) for r in reversed(self.db.query(sql, params))]

    def last_exchange(self, session_id: str) -> tuple[Message, builtins.list[Message]]:
        """The last user message and the replies after it (none after a turn that failed): what
        Retry answers again."""
        self.get(session_id)
        asked = self.messages(session_id, roles=("user",), last=1)
        if not asked:
            raise InvalidInput("this chat has no message to answer again", hint="send a message first")
        return asked[0], self.messages(session_id, roles=("assistant",), after_id=asked[0].id)

    def count_messages(self, session_id: str, after_id: int = 0) -> int:
        return self.db.query_one("SELECT count(*) FROM messages WHERE session_id = ? AND id > ?"
                                 " AND role IN ('user', 'assistant')", (session_id, after_id))[0]

    # -- export --------------------------------------------------------------------------------

    def salvage(self, session_id: str) -> tuple[builtins.list[Message], builtins.list[str]]:
        """The session's messages that a damaged database still gives, and the ids of those it
        does not (``Database.salvage``): what an export saves when reading them all fails."""
        rows, lost = self.db.salvage("messages", Message.COLUMNS, "m.session_id = ?", [session_id])
        return [Message(*r) for r in rows], lost

    def export_json(self, session_id: str, messages: Sequence[Message] | None = None,
                    settings: ChatSettings | None = None) -> dict:
        """``messages``: those to write (a salvage's), by default all of them; ``settings``: the
        chat's own, as the full export writes them."""
        session = self.get(session_id)
        messages = self.messages(session_id) if messages is None else messages
        return {**session.to_json(), **({"settings": settings.to_json()} if settings else {}),
                "messages": [m.to_json() for m in messages]}

    def export_markdown(self, session_id: str, messages: Sequence[Message] | None = None,
                        settings: ChatSettings | None = None) -> str:
        """``settings``: the chat's own, written in the front matter where they differ from the
        defaults (``engram import markdown`` restores them)."""
        session = self.get(session_id)
        lines = [f"# {session.title or session.id}", "",
                 f"- session: `{session.id}`", f"- user: {session.user}", f"- created: {session.created_at}",
                 f"- updated: {session.updated_at}", *(settings.front_matter() if settings else ()), ""]
        for m in self.messages(session_id) if messages is None else messages:
            mark = f" ({m.status})" if m.status != "complete" else ""
            lines += [f"## {m.role}{mark} — {m.created_at}", "", m.content, ""]
        return "\n".join(lines)

