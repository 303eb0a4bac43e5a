"""Forgetting for real: one memory with every copy made from it, or a text wherever it is stored.

A DELETE in SQLite leaves the words behind in three places: the FTS5 word index keeps a deleted
memory's terms in its segments until they are merged (the word index's ``purge`` merges them); the
write-ahead log keeps old pages until a checkpoint copies them back and the log is truncated
(``release_log`` in conversation/upkeep.py, which waits for other processes' reads to end, else
an outbox job does it later; freed pages are zeroed because every Engram connection sets
``secure_delete``); and everything
made from the text: the notes
and summaries distilled from a message, the turn records that recalled it. ``forget_memory``
handles one memory; ``find`` and ``forget_everywhere`` a text the person names, in the chats,
titles, folder names, turn records, memories, history, session files and the trash.

Notes and summaries made from a forgotten message are dropped, not regenerated: a summary or a
note written again from the chat would be the model's new words, which the person did not ask
for (a chat that goes on is summarised again from what it still holds).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engram.core.conversation.archive import ARCHIVE_JOB
from engram.core.conversation.upkeep import empty_log
from engram.core.storage.atomic import write_bytes_atomic
from engram.core.errors import DataDirError, InvalidInput
from engram.core.files import INDEX_NAME, SESSIONS_DIR, TRASH_DIR
from engram.core.files.formats import SOURCES_DIR
from engram.core.files.index import is_converted_name
from engram.core.memory.records import Actor, Kind
from engram.core.conversation.sessions import slug
from engram.core.storage import dialect

if TYPE_CHECKING:
    from engram.core.app import Engram

FORGOTTEN = "[forgotten]"
FOLDER_FORGOTTEN = "forgotten"
LOG_LEFT = ("another Engram program kept reading the database, so old copies are still in its write-ahead log"
            " (-wal file); background work empties it once the reads let it (see `engram outbox status`)")
DERIVED_KINDS = (Kind.FACT, Kind.PREFERENCE, Kind.TASK, Kind.EXPERIENCE, Kind.SUMMARY)
MIN_TEXT_CHARS = 3               # a shorter text would match half the database


def redact(value, pattern: re.Pattern):
    """A JSON-like value with every match of ``pattern`` in its strings replaced by [forgotten]."""
    if isinstance(value, str):
        return pattern.sub(FORGOTTEN, value)
    if isinstance(value, list):
        return [redact(v, pattern) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, pattern) for k, v in value.items()}
    return value


def words_of(texts: list[str]) -> re.Pattern:
    """Any of the texts, in any case."""
    return re.compile("|".join(re.escape(t) for t in sorted(set(texts), key=len, reverse=True)), re.IGNORECASE)


# -- one memory ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ForgottenMemory:
    """What ``forget_memory`` removed: the memory and the notes and summaries made from it (ids),
    how many turn records had it recalled (its text there is now [forgotten]), and whether the
    write-ahead log could be emptied."""

    ids: list[int]
    turns: int
    log_released: bool


def derived_from(engram: "Engram", user: str, message_ids: list[int]) -> list[int]:
    """The notes and summaries made from any of these messages (their provenance names them)."""
    if not message_ids:
        return []
    sql = dialect.of(engram.db)
    return [i for (i,) in engram.db.query(
        f"SELECT id FROM memories WHERE user = ? AND kind IN ({','.join('?' * len(DERIVED_KINDS))})"
        f" AND EXISTS (SELECT 1 FROM {sql.ints('source_ids', 's')}"
        f" WHERE s.value IN (SELECT value FROM {sql.ints('?', 'said')}))",
        (user, *[k.value for k in DERIVED_KINDS], json.dumps(message_ids)))]


def forget_memory(engram: "Engram", memory_id: int, *, actor: Actor | str = Actor.USER) -> ForgottenMemory:
    """Delete a memory with every copy made from it: its text, vectors, word-index entries (as
    bytes), history texts, the notes and summaries distilled from its message (dropped), and its
    text in the turn records that recalled it ([forgotten]); then empty the write-ahead log."""
    memory = engram.store.get(memory_id)
    user = memory.scope.user
    messages = list(memory.source_ids) if memory.kind == Kind.MESSAGE else []
    ids = [memory_id, *[i for i in derived_from(engram, user, messages) if i != memory_id]]
    texts = [m.text for m in engram.store.get_many(ids)]
    with engram.db.transaction() as conn:
        turns = _redact_turns_recalling(conn, dialect.of(engram.db), user, ids, words_of(texts))
        for i in ids:
            engram.store.delete(i, actor=actor)
        engram.store.words.purge(conn, user)
    return ForgottenMemory(ids, turns, empty_log(engram.db, engram.outbox))


def _redact_turns_recalling(conn, sql, user: str, ids: list[int], pattern: re.Pattern) -> int:
    rows = conn.execute(
        "SELECT t.id, t.messages, t.recalled, t.tool_calls, t.recall FROM turns t JOIN sessions s ON s.id = t.session_id"
        f" WHERE s.user = ? AND EXISTS (SELECT 1 FROM {sql.objects('t.recalled', 'r')}"
        f" WHERE {sql.json_int('r.value', 'id')} IN (SELECT value FROM {sql.ints('?', 'forgotten')}))",
        (user, json.dumps(ids))).fetchall()
    for turn_id, *columns in rows:
        _rewrite_turn(conn, turn_id, columns, pattern)
    return len(rows)


def _rewrite_turn(conn, turn_id: int, columns: list[str], pattern: re.Pattern) -> None:
    """The turn's record with the words redacted wherever they stand: what the model saw, what was
    recalled, the tool calls, and why recall ran (which holds what the profile noted)."""
    messages, recalled, tool_calls, recall = (json.dumps(redact(json.loads(c), pattern), ensure_ascii=False)
                                              for c in columns)
    conn.execute("UPDATE turns SET messages = ?, recalled = ?, tool_calls = ?, recall = ? WHERE id = ?",
                 (messages, recalled, tool_calls, recall, turn_id))


# -- a text, everywhere ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Place:
    """One place a text is stored. ``what`` says which kind of place (see PLACES); ``at`` holds what
    names it (chat, message number, file name...), which ``where`` words for a person with
    WHERE[``form``] (the window words it in its own language); ``key`` is what ``forget_everywhere``
    changes. ``persons_file``: a file a person may have written, changed only when they say so."""

    what: str
    at: dict
    key: tuple
    persons_file: bool = False
    form: str = ""                 # the WHERE entry that names it, when not ``what``'s own

    @property
    def where(self) -> str:
        return WHERE[self.form or self.what].format(**self.at)


WHERE = {   # form -> how a place is named for a person
    "chat title": "chat {session}",
    "chat folder": "chat {session}: folder {folder}",
    "message": "chat {session}, message #{message}",
    "turn record": "chat {session}, turn record #{turn}",
    "chat version": "chat {session}, version #{version} (not shown)",
    "chat instructions": "chat {session}: its instructions",
    "memory": "memory #{memory} ({kind})",
    "memory history": "memory #{memory}, change #{change}",
    "background job": "background job #{job}",
    "preference": "preference {key}",
    "profile line": "profile: line #{line}",
    "file": "chat {session}: {name}",
    "file name": "chat {session}: file name {name}",
    "trash folder": "trash: {name}",
    "trash file": "trash: {name}",
    "trash file name": "trash: file name {name}",
}


PLACES = {   # what -> what forgetting does there
    "message": "the words become [forgotten]",
    "chat title": "the words become [forgotten]",
    "chat folder": "the folder is renamed",
    "turn record": "the words become [forgotten] in what the model saw and what was recalled",
    "chat version": "the words become [forgotten] in its messages and turn records",
    "chat instructions": "the words become [forgotten]",
    "memory": "deleted, with its vectors, word-index entries and history",
    "memory history": "the old text becomes [forgotten]",
    "background job": "the words become [forgotten] in the job's record",
    "preference": "the words become [forgotten]",
    "profile line": "the line is removed from the profile",
    "file": "the words become [forgotten] in the file (only when you say so)",
    "file name": "the file is renamed (only when you say so)",
    "trash folder": "the folder is renamed",
    "trash file": "the words become [forgotten] in the file (only when you say so)",
}


@dataclass
class Forgotten:
    """What ``forget_everywhere`` did: places changed, places left (files not to be touched), and
    whether the write-ahead log could be emptied."""

    changed: list[Place] = field(default_factory=list)
    left: list[Place] = field(default_factory=list)
    log_released: bool = True


def persons_files(places: list[Place]) -> list[Place]:
    """The files a person may have written among the places, each once (a file's indexed chunks,
    memories of kind file, go with it and are not files of their own)."""
    return [place for place in places if place.persons_file and place.what != "memory"]


def redacted(text: str, pattern: re.Pattern) -> str | None:
    """A memory's text with [forgotten] in place of the words, or None when nothing else of it
    would remain (then the memory goes)."""
    kept = pattern.sub(FORGOTTEN, text)
    return kept if re.search(r"\w", kept.replace(FORGOTTEN, "")) else None


def check_text(text: str) -> str:
    if not isinstance(text, str) or len(text.strip()) < MIN_TEXT_CHARS:
        raise InvalidInput(f"give at least {MIN_TEXT_CHARS} characters to forget",
                           hint="a shorter text would match in too many places")
    return text.strip()


def find(engram: "Engram", text: str, user: str) -> list[Place]:
    """Every place the text is stored for this person (case aside), without changing anything."""
    text = check_text(text)
    pattern = words_of([text])
    folder_pattern = words_of([text, *([slug(text)] if slug(text) else [])])
    # JSON columns hold the text as JSON writes it (a quote or a line break escaped)
    in_json = words_of([text, json.dumps(text, ensure_ascii=False)[1:-1]])
    holds = lambda value, p=pattern: value is not None and p.search(value) is not None  # noqa: E731
    q = engram.db.query
    sql = dialect.of(engram.db)
    places: list[Place] = []
    sessions = q("SELECT id, title, folder FROM sessions WHERE user = ?", (user,))
    for session_id, title, folder in sessions:
        if holds(title):
            places.append(Place("chat title", {"session": session_id}, (session_id,)))
        if folder_pattern.search(folder):
            places.append(Place("chat folder", {"session": session_id, "folder": folder}, (session_id, folder)))
    ids = json.dumps([s[0] for s in sessions])
    for message_id, session_id, content in q(
            f"SELECT id, session_id, content FROM messages WHERE session_id IN (SELECT value FROM {sql.texts('?', 's')})",
            (ids,)):
        if holds(content):
            places.append(Place("message", {"session": session_id, "message": message_id}, (message_id,)))
    for turn_id, session_id, *columns in q(
            "SELECT id, session_id, messages, recalled, tool_calls, recall FROM turns"
            f" WHERE session_id IN (SELECT value FROM {sql.texts('?', 's')})", (ids,)):
        if any(holds(c, in_json) for c in columns):
            places.append(Place("turn record", {"session": session_id, "turn": turn_id}, (turn_id,)))
    for session_id, instructions in q(
            f"SELECT session_id, instructions FROM chat_settings WHERE session_id IN (SELECT value FROM"
            f" {sql.texts('?', 's')})", (ids,)):
        if holds(instructions):
            places.append(Place("chat instructions", {"session": session_id}, (session_id,)))
    for fork_id, session_id, *columns in q(
            f"SELECT id, session_id, messages, turns FROM forks WHERE session_id IN (SELECT value FROM {sql.texts('?', 's')})",
            (ids,)):
        if any(holds(c, in_json) for c in columns):     # an edited message's old version, a reply Retry replaced
            places.append(Place("chat version", {"session": session_id, "version": fork_id}, (fork_id,)))
    for memory_id, kind, memory_text, source in q(
            "SELECT id, kind, text, source FROM memories WHERE user = ?", (user,)):
        if holds(memory_text) or holds(source, in_json):   # a file's chunk goes with the file, when it changes
            places.append(Place("memory", {"memory": memory_id, "kind": kind}, (memory_id,),
                                persons_file=kind == Kind.FILE.value))
    for change_id, memory_id, old, new in q(
            "SELECT h.id, h.memory_id, h.old_text, h.new_text FROM memory_history h"
            " JOIN memories m ON m.id = h.memory_id WHERE m.user = ?", (user,)):
        if holds(old) or holds(new):
            places.append(Place("memory history", {"memory": memory_id, "change": change_id}, (change_id,)))
    for job_id, payload, error in q("SELECT id, payload, last_error FROM outbox"):
        if holds(payload, in_json) or holds(error):
            places.append(Place("background job", {"job": job_id}, (job_id,)))
    for key, value in q("SELECT key, value FROM preferences WHERE user = ?", (user,)):
        if holds(value, in_json):
            places.append(Place("preference", {"key": key}, (key,)))
    for line in engram.profiles.read(user).numbered().lines:
        if holds(line.text) or holds(line.source):
            places.append(Place("profile line", {"line": line.id}, (line.id,)))
    root = engram.data_dir / SESSIONS_DIR
    for session_id, _, folder in sessions:
        places += _files(root / folder, pattern, "file", {"session": session_id})
    trash = engram.data_dir / TRASH_DIR
    for entry in sorted(trash.iterdir()) if trash.is_dir() else []:
        if folder_pattern.search(entry.name):
            places.append(Place("trash folder", {"name": entry.name}, (entry.name,)))
        places += _files(entry, pattern, "trash file", {})
    return places


def _files(folder: Path, pattern: re.Pattern, what: str, at: dict) -> list[Place]:
    """Files under a folder whose bytes or name hold the text (any file: a person's notes may be
    anything). The generated index memories.md is Engram's own and is rewritten, not asked about."""
    found: list[Place] = []
    if not folder.is_dir():
        return [Place(what, at | {"name": folder.name}, (str(folder),), persons_file=True)] \
            if folder.is_file() and _holds_bytes(folder, pattern) else []
    for dirpath, _, filenames in os.walk(folder, followlinks=False):
        for filename in sorted(filenames):
            path = Path(dirpath, filename)
            name = path.relative_to(folder).as_posix()
            if path.is_symlink():
                continue
            if pattern.search(filename):
                found.append(Place("file name" if what == "file" else what, at | {"name": name}, (str(path),),
                                   persons_file=True, form=f"{what} name"))
            elif _holds_bytes(path, pattern):
                found.append(Place(what, at | {"name": name}, (str(path),), persons_file=name != INDEX_NAME))
    return found


def _text_of(path: Path) -> str:
    """A file's bytes as text that gives the same bytes back, whatever they are."""
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def _holds_bytes(path: Path, pattern: re.Pattern) -> bool:
    try:
        return pattern.search(_text_of(path)) is not None
    except OSError:
        return False


def forget_everywhere(engram: "Engram", text: str, user: str, *, files: bool = False,
                      places: list[Place] | None = None) -> Forgotten:
    """Remove or redact the text in every place ``find`` lists (or in ``places``, as listed to the
    person): memories that are nothing but it are forgotten with ``forget_memory``'s thoroughness; messages,
    titles, turn records, history, jobs and preferences keep their place with [forgotten] instead
    of the words, and so do memories that hold more than the words (their pin, importance and
    the rest of their text stay); folders are renamed. Files (a person's notes) change only with ``files``. The
    messages changed are archived again, as they read now; the notes and summaries made from them
    are dropped. Finally the word index is merged and the write-ahead log emptied."""
    text = check_text(text)
    pattern = words_of([text])
    folder_pattern = words_of([text, *([slug(text)] if slug(text) else [])])
    places = find(engram, text, user) if places is None else places
    done = Forgotten()
    by_kind: dict[str, list[Place]] = {}
    for place in places:
        if place.persons_file and not files:
            done.left.append(place)
        else:
            by_kind.setdefault(place.what, []).append(place)
            done.changed.append(place)
    for place in by_kind.get("file", []) + by_kind.get("file name", []) + by_kind.get("trash file", []):
        _rewrite_file(engram, Path(place.key[0]), pattern)
    engram.profiles.remove_lines(user, [place.key[0] for place in by_kind.get("profile line", [])])
    redacted_messages = [p.key[0] for p in by_kind.get("message", [])]
    # The files' index waits meanwhile (a folder is renamed): its lock first, as its own work takes them.
    with engram.files._lock, engram.db.transaction() as conn:
        sql = dialect.of(engram.db)
        archived = [i for (i,) in conn.execute(
            f"SELECT id FROM memories WHERE user = ? AND kind = 'message' AND {sql.json_int('source', 'message_id')}"
            f" IN (SELECT value FROM {sql.ints('?', 'redacted')})", (user, json.dumps(redacted_messages)))]
        holding = {p.key[0] for p in by_kind.get("memory", [])}
        # A memory that holds the words keeps the rest of its text, its pin and its importance; its
        # message is not archived again (that would add a second memory beside the one kept).
        kept = _redact_memories(engram, conn, holding, pattern)
        kept_messages = {i for (i,) in conn.execute(
            f"SELECT {sql.json_int('source', 'message_id')} FROM memories WHERE kind = 'message' AND id IN"
            f" (SELECT value FROM {sql.ints('?', 'kept')})", (json.dumps(sorted(kept)),))}
        memories = (holding | set(archived) | set(derived_from(engram, user, redacted_messages))) - kept
        for message_id in redacted_messages:
            (content,) = conn.execute("SELECT content FROM messages WHERE id = ?", (message_id,)).fetchone()
            conn.execute("UPDATE messages SET content = ? WHERE id = ?", (pattern.sub(FORGOTTEN, content), message_id))
        for place in by_kind.get("chat title", []):
            conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (pattern.sub(FORGOTTEN, _title(conn, place)),
                                                                          place.key[0]))
        for place in by_kind.get("turn record", []):
            row = conn.execute("SELECT messages, recalled, tool_calls, recall FROM turns WHERE id = ?",
                               place.key).fetchone()
            _rewrite_turn(conn, place.key[0], list(row), pattern)
        for place in by_kind.get("chat instructions", []):
            (instructions,) = conn.execute("SELECT instructions FROM chat_settings WHERE session_id = ?",
                                           place.key).fetchone()
            conn.execute("UPDATE chat_settings SET instructions = ? WHERE session_id = ?",
                         (pattern.sub(FORGOTTEN, instructions), place.key[0]))
        for place in by_kind.get("chat version", []):
            _rewrite_version(conn, place.key[0], pattern)
        for place in by_kind.get("memory history", []):
            conn.execute("UPDATE memory_history SET old_text = ?, new_text = ? WHERE id = ?",
                         (*[None if t is None else pattern.sub(FORGOTTEN, t) for t in conn.execute(
                             "SELECT old_text, new_text FROM memory_history WHERE id = ?", place.key).fetchone()],
                          place.key[0]))
        for place in by_kind.get("background job", []):
            payload, error = conn.execute("SELECT payload, last_error FROM outbox WHERE id = ?", place.key).fetchone()
            conn.execute("UPDATE outbox SET payload = ?, last_error = ? WHERE id = ?",
                         (json.dumps(redact(json.loads(payload), pattern), ensure_ascii=False),
                          None if error is None else pattern.sub(FORGOTTEN, error), place.key[0]))
        for place in by_kind.get("preference", []):
            (value,) = conn.execute("SELECT value FROM preferences WHERE user = ? AND key = ?",
                                    (user, place.key[0])).fetchone()
            conn.execute("UPDATE preferences SET value = ? WHERE user = ? AND key = ?",
                         (json.dumps(redact(json.loads(value), pattern), ensure_ascii=False), user, place.key[0]))
        present = {i for (i,) in conn.execute(f"SELECT id FROM memories WHERE id IN (SELECT value FROM"
                                              f" {sql.ints('?', 'found')})", (json.dumps(sorted(memories)),))}
        for memory_id in sorted(present):
            engram.store.delete(memory_id, actor=Actor.USER)
        for message_id in redacted_messages:
            if message_id not in kept_messages:
                engram.outbox.enqueue(ARCHIVE_JOB, {"message_id": message_id}, conn)
        for place in by_kind.get("chat folder", []):
            _rename_session_folder(engram, conn, place.key[0], place.key[1], folder_pattern)
        engram.store.words.purge(conn, user)
    for place in by_kind.get("trash folder", []):
        _rename(engram.data_dir / TRASH_DIR / place.key[0], folder_pattern)
    if by_kind.get("file") or by_kind.get("file name"):
        engram.files.sync_all()                      # the index (and memories.md) as the files now read
    done.log_released = empty_log(engram.db, engram.outbox)
    return done


def _rewrite_version(conn, fork_id: int, pattern: re.Pattern) -> None:
    """[forgotten] in a chat version set aside: in its messages, and in its turn records' JSON columns."""
    messages, turns = conn.execute("SELECT messages, turns FROM forks WHERE id = ?", (fork_id,)).fetchone()
    records = [turn | {column: json.dumps(redact(json.loads(turn[column]), pattern), ensure_ascii=False)
                       for column in ("messages", "recalled", "tool_calls", "recall")} for turn in json.loads(turns)]
    conn.execute("UPDATE forks SET messages = ?, turns = ? WHERE id = ?",
                 (json.dumps(redact(json.loads(messages), pattern), ensure_ascii=False),
                  json.dumps(records, ensure_ascii=False), fork_id))


def _redact_memories(engram: "Engram", conn, ids: set[int], pattern: re.Pattern) -> set[int]:
    """[forgotten] in place of the words in each of these memories (their words index and vector
    made anew, the old texts in their history redacted), except file chunks, which follow their
    file, and memories that would hold nothing else. Returns the ids of those kept."""
    kept = set()
    for memory in engram.store.get_many(sorted(ids)):
        if memory.kind == Kind.FILE or (text := redacted(memory.text, pattern)) is None:
            continue
        try:
            engram.store.update(memory.id, actor=Actor.USER, text=text)
        except InvalidInput:           # the same text is a memory already: this one goes
            continue
        conn.execute("UPDATE memories SET source = ? WHERE id = ?",
                     (json.dumps(redact(memory.source, pattern), ensure_ascii=False), memory.id))
        for line, old, new in conn.execute("SELECT id, old_text, new_text FROM memory_history WHERE memory_id = ?",
                                           (memory.id,)).fetchall():
            conn.execute("UPDATE memory_history SET old_text = ?, new_text = ? WHERE id = ?",
                         (*[None if t is None else pattern.sub(FORGOTTEN, t) for t in (old, new)], line))
        kept.add(memory.id)
    return kept


def _title(conn, place: Place) -> str:
    return conn.execute("SELECT title FROM sessions WHERE id = ?", place.key).fetchone()[0]


def _rewrite_file(engram: "Engram", path: Path, pattern: re.Pattern) -> None:
    """[forgotten] in place of the words in a file, and in its name (same folder). A document's
    markdown that held them takes its original in sources/ along: it is removed."""
    if not path.exists():        # such an original, gone with its markdown
        return
    try:
        text = _text_of(path)
        if pattern.search(text):
            write_bytes_atomic(path, pattern.sub(FORGOTTEN, text).encode("utf-8", errors="surrogateescape"))
            if is_converted_name(path.name):     # a document's text: its original (a PDF, say) cannot be redacted
                (path.parent / SOURCES_DIR / path.name[:-3]).unlink(missing_ok=True)
        if pattern.search(path.name):
            _rename(path, pattern)
    except OSError as e:
        raise DataDirError(f"cannot change {path}: {e.strerror}", hint="check the file's permissions") from e


def _rename(path: Path, pattern: re.Pattern) -> Path:
    """The file or folder renamed with 'forgotten' in place of the words (a number added on a clash)."""
    base = pattern.sub(FOLDER_FORGOTTEN, path.name)
    target, n = path.with_name(base), 1
    while os.path.lexists(target):
        n += 1
        target = path.with_name(f"{base}-{n}")
    try:
        os.rename(path, target)
    except OSError as e:
        raise DataDirError(f"cannot rename {path}: {e.strerror}", hint="check the folder's permissions") from e
    return target


def _rename_session_folder(engram: "Engram", conn, session_id: str, folder: str, pattern: re.Pattern) -> None:
    """A chat's folder under a name without the words, in the database and on disk together, inside
    the caller's transaction: a rename that fails on disk undoes the database's."""
    new, n = pattern.sub(FOLDER_FORGOTTEN, folder), 1
    base = new
    while conn.execute("SELECT 1 FROM sessions WHERE folder = ?", (new,)).fetchone() \
            or os.path.lexists(engram.files.root / new):
        n += 1
        new = f"{base}-{n}"
    conn.execute("UPDATE sessions SET folder = ? WHERE id = ?", (new, session_id))
    for table in ("session_files", "session_file_chunks"):
        conn.execute(f"UPDATE {table} SET folder = ? WHERE folder = ?", (new, folder))
    old_path = engram.files.root / folder
    if os.path.lexists(old_path):
        try:
            os.rename(old_path, engram.files.root / new)
        except OSError as e:
            raise DataDirError(f"cannot rename the chat's folder {old_path}: {e.strerror}",
                               hint="close programs using it and try again") from e

