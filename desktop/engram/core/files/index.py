"""The session files' index in the database: chunks as memories of kind ``file``, a status per
file, and ``memories.md`` kept in step.

The files are the truth; this index can always be rebuilt from them (``sync_folder(force=True)``).
Syncing a file compares the hash of its bytes with the last one seen, so a write the app itself
made (and indexed at once) is not processed again when the watcher reports it. Chunks are
stored by content hash: only chunks whose text changed are embedded again. Every sync, whatever
the file holds, ends in a status (``indexed`` or ``problem`` with a reason): a bad file is
reported, never raised. ``memories.md`` itself gets a status only while it cannot be written
(a full disk, a read-only folder, a folder of that name in the way): a ``problem`` that the next
successful write clears.

A folder whose session is gone (deleted) is left alone: nothing indexes it or writes into it, so
the watcher's late reports about it change nothing and nothing re-creates it.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram.core.errors import DataDirError, EngramError, InvalidInput, NotFound
from engram.core.files import chunks as chunking
from engram.core.files.folder import MAX_FILE_BYTES, SessionFolder, bytes_hash, decode, index_markdown
from engram.core.files.names import INDEX_NAME, check_name, is_ignored, is_text_name
from engram.core.files.trash import move_to_trash
from engram.core.memory.records import Kind, Memory, NewMemory, content_hash, normalise_text, now_iso
from engram.core.memory.scope import Scope
from engram.core.memory.search.fusion import SearchOptions
from engram.core.memory.store import MemoryStore

log = logging.getLogger(__name__)
INDEXED, PROBLEM, REMOVED = "indexed", "problem", "removed"
MAX_HEADING_CHARS = 120


@dataclass(frozen=True)
class FileStatus:
    folder: str
    name: str
    status: str              # indexed | problem | removed
    detail: str = ""         # why a file has a problem, or a note (e.g. broken front matter)
    description: str = ""
    chunks: int = 0
    size: int = 0

    @property
    def summary(self) -> str:
        """What a listing shows for the file: its description, or why it is not indexed (for
        memories.md, why it is not written)."""
        if self.status == INDEXED:
            return self.description
        return f"(not {'written' if self.name == INDEX_NAME else 'indexed'}: {self.detail})"


@dataclass(frozen=True)
class FileEvent:
    """Sent to subscribers after the index changed because of a file (by any writer)."""

    folder: str
    name: str
    status: FileStatus


@dataclass(frozen=True)
class FileHit:
    name: str
    line: int
    memory: Memory           # its text starts with the file name and headings
    score: float


def memory_text(name: str, chunk: chunking.Chunk) -> str:
    """The stored text of a chunk: where it is (file and headings), then what it says."""
    where = " › ".join([name, *(h[:MAX_HEADING_CHARS] for h in chunk.headings)])
    return f"{where}\n{chunk.text}"


def _message(error: EngramError) -> str:
    return error.args[0] if error.args else str(error)


class FileIndex:
    def __init__(self, store: MemoryStore, sessions_root: Path | str,
                 scope_for: Callable[[str], Scope | None] | None = None):
        self.store = store
        self.db = store.db
        self.root = Path(sessions_root)
        self.scope_for = scope_for or self._session_scope
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[FileEvent], None]] = []

    def _session_scope(self, folder: str) -> Scope | None:
        """A folder's scope is its session's: files stay with the session that holds them."""
        row = self.db.query_one("SELECT id, user, agent FROM sessions WHERE folder = ?", (folder,))
        return Scope(agent=row[2], user=row[1], session=row[0]) if row else None

    def folder(self, folder: str) -> SessionFolder:
        return SessionFolder(self.root / folder)

    def subscribe(self, callback: Callable[[FileEvent], None]) -> Callable[[], None]:
        """Call ``callback`` (on the thread that indexed) after each change; returns an unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _emit(self, statuses: list[FileStatus]) -> None:
        for status in statuses:
            for callback in list(self._subscribers):
                try:
                    callback(FileEvent(status.folder, status.name, status))
                except Exception:  # a subscriber's bug must not stop indexing
                    log.exception("file event subscriber failed")

    # -- what the app and the model do ---------------------------------------------------------

    def write(self, folder: str, name: str, body: str, description: str | None = None) -> FileStatus:
        """Write a file and index it now; the watcher's later report of it changes nothing.
        Refused for a folder without a session (deleted): writing would re-create it."""
        with self._lock:
            if self.scope_for(folder) is None:
                raise NotFound(f"{folder!r} is not the folder of a session (was the chat deleted?)")
            name, _ = self.folder(folder).write(name, body, description)
            status = self._sync(folder, name, force=False) or self.status(folder, name)
            index = self._refresh(folder)
        self._emit([status, *index])
        return status

    def delete(self, folder: str, name: str) -> FileStatus:
        with self._lock:
            name = self.folder(folder).delete(name)
            status = self._remove(folder, name)
            index = self._refresh(folder)
        self._emit([status, *index])
        return status

    def search(self, folder: str, query: str, k: int = 5, mode: str = "hybrid") -> list[FileHit]:
        """The folder's chunks nearest to ``query`` (by meaning, and by words unless mode says not)."""
        scope = self.scope_for(folder)
        if scope is None:
            raise NotFound(f"{folder!r} is not the folder of a session")
        hits = self.store.search(query, scope, SearchOptions(mode=mode, k=k, kinds=(Kind.FILE.value,))).hits
        found = []
        for hit in hits:
            where = self.db.query_one("SELECT name, line FROM session_file_chunks WHERE folder = ? AND memory_id = ?"
                                      " ORDER BY name, position LIMIT 1", (folder, hit.memory.id))
            if where:
                found.append(FileHit(where[0], where[1], hit.memory, hit.score))
        return found

    # -- keeping the index in step with the disk -----------------------------------------------

    def sync_file(self, folder: str, name: str) -> FileStatus | None:
        """Bring one file's index up to date; None when nothing changed."""
        with self._lock:
            status = None if name == INDEX_NAME else self._sync(folder, name, force=False)
            changed = [] if status is None else [status]
            if name == INDEX_NAME or status is not None:     # memories.md itself: written again
                changed += self._refresh(folder)
        self._emit(changed)
        return status

    def sync_folder(self, folder: str, force: bool = False) -> list[FileStatus]:
        """Bring a whole folder up to date (after a folder move, at start, or a rebuild with
        ``force``, which re-reads every file but still re-embeds only chunks that changed)."""
        changed: list[FileStatus] = []
        with self._lock:
            on_disk = {entry.name for entry in self.folder(folder).scan()}
            for name in sorted(on_disk):
                if (status := self._sync(folder, name, force)) is not None:
                    changed.append(status)
            for name in sorted(set(self._names(folder)) - on_disk - {INDEX_NAME}):
                changed.append(self._remove(folder, name))
            self._drop_orphans(folder)
            changed += self._refresh(folder)
        self._emit(changed)
        return changed

    def sync_all(self, force: bool = False) -> list[FileStatus]:
        """Every session folder on disk, plus folders indexed before but gone from disk."""
        folders = {p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")} \
            if self.root.is_dir() else set()
        folders |= self.folders()
        return [s for folder in sorted(folders) for s in self.sync_folder(folder, force)]

    def forget(self, folder: str) -> int:
        """Drop a folder's whole index (its session was deleted); returns how many files."""
        with self._lock:
            names = self._names(folder)
            for name in names:
                self._remove(folder, name)
            self._drop_orphans(folder)
        return len(names)

    def discard(self, folder: str, trash: Path) -> Path | None:
        """Move a deleted session's folder into ``trash`` (see ``trash.move_to_trash``), under the
        lock, so that no sync or write of the folder runs while it moves."""
        with self._lock:
            return move_to_trash(self.folder(folder).path, trash)

    # -- reading the index ---------------------------------------------------------------------

    def folders(self) -> set[str]:
        """Every folder the index holds files of."""
        return {f for (f,) in self.db.query("SELECT DISTINCT folder FROM session_files")}

    def statuses(self, folder: str) -> list[FileStatus]:
        rows = self.db.query("SELECT folder, name, status, detail, description, chunks, size FROM session_files"
                             " WHERE folder = ? ORDER BY name", (folder,))
        return [FileStatus(*row) for row in rows]

    def status(self, folder: str, name: str) -> FileStatus:
        row = self.db.query_one("SELECT folder, name, status, detail, description, chunks, size FROM session_files"
                                " WHERE folder = ? AND name = ?", (folder, name))
        return FileStatus(*row) if row else FileStatus(folder, name, REMOVED)

    def chunk_memories(self, folder: str, name: str | None = None) -> list[Memory]:
        """The memories holding a folder's (or one file's) chunks, in file and chunk order."""
        sql = "SELECT memory_id FROM session_file_chunks WHERE folder = ?"
        params: list = [folder]
        if name is not None:
            sql += " AND name = ?"
            params.append(name)
        ids = [i for (i,) in self.db.query(sql + " ORDER BY name, position", params)]
        return self.store.get_many(ids)

    def _names(self, folder: str) -> list[str]:
        return [n for (n,) in self.db.query("SELECT name FROM session_files WHERE folder = ?", (folder,))]

    # -- the work, under the lock --------------------------------------------------------------

    def _sync(self, folder: str, name: str, force: bool) -> FileStatus | None:
        """``_read_and_record``, with any unforeseen failure (a disk error, the embedding model
        failing) turned into the file's status; the content hash is not kept, so it is retried."""
        try:
            return self._read_and_record(folder, name, force)
        except Exception as e:
            log.exception("indexing %s/%s failed", folder, name)
            scope = self.scope_for(folder)
            if scope is None:
                return None
            return self._record(folder, name, scope, PROBLEM, f"could not be indexed: {e}")

    def _read_and_record(self, folder: str, name: str, force: bool) -> FileStatus | None:
        scope = self.scope_for(folder)
        if scope is None or is_ignored(name):
            return None
        session_folder = self.folder(folder)
        try:
            info = os.lstat(session_folder.path / name)
        except (FileNotFoundError, NotADirectoryError):
            return self._remove(folder, name) if name in self._names(folder) else None
        if stat.S_ISDIR(info.st_mode):
            return None
        problem = self._refusal(name, info)
        if problem:
            return self._record(folder, name, scope, PROBLEM, problem, size=info.st_size)
        try:
            data = session_folder.read_bytes(name)
        except NotFound:  # deleted while being indexed
            return self._remove(folder, name) if name in self._names(folder) else None
        except EngramError as e:
            return self._record(folder, name, scope, PROBLEM, _message(e), size=info.st_size)
        digest = bytes_hash(data)
        known = self.db.query_one("SELECT content_hash FROM session_files WHERE folder = ? AND name = ?",
                                  (folder, name))
        if not force and known and known[0] == digest:
            return None
        try:
            doc = decode(name, data)
        except InvalidInput as e:
            return self._record(folder, name, scope, PROBLEM, _message(e), digest=digest, size=len(data))
        pieces = [(memory_text(name, c), doc.body_line + c.line - 1,
                   {"folder": folder, "path": name, "headings": list(c.headings)}) for c in chunking.split(doc.body)]
        return self._record(folder, name, scope, INDEXED, doc.problem, doc.description, digest, len(data), pieces)

    @staticmethod
    def _refusal(name: str, info: os.stat_result) -> str:
        """Why a file is not read at all, or ''."""
        if stat.S_ISLNK(info.st_mode):
            return "a link; links in a session folder are not followed"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        try:
            check_name(name)
        except InvalidInput as e:
            return _message(e)
        if not is_text_name(name):
            return "not a markdown or text file (.md, .markdown, .txt); listed but not indexed"
        if info.st_size > MAX_FILE_BYTES:
            return f"too large ({info.st_size / 1e6:.1f} MB); files over {MAX_FILE_BYTES // 1024} KiB are not indexed"
        return ""

    def _record(self, folder: str, name: str, scope: Scope, status: str, detail: str = "", description: str = "",
                digest: str = "", size: int = 0, pieces: list[tuple[str, int, dict]] = ()) -> FileStatus | None:
        """Store a file's status and make its chunks exactly ``pieces`` (text, line, source),
        embedding only texts not stored yet. Returns None when nothing changed."""
        wanted: list[tuple[str, str, int, dict]] = []   # (text, hash, line, source)
        for text, line, source in pieces:
            try:
                clean = normalise_text(text)
            except InvalidInput:
                continue
            wanted.append((clean, content_hash(clean), line, source))
        known = self._existing(scope, [h for _, h, _, _ in wanted])
        fresh = list({h: (t, s) for t, h, _, s in wanted if h not in known}.values())
        embedder = self.store.embedder      # None: words only; the chunks are embedded once a model works
        vectors = embedder.embed([t for t, _ in fresh]) if fresh and embedder is not None else None
        row = (status, detail, description, digest, size)
        with self.db.transaction() as conn:
            if fresh:
                # Vectors of a model switched away from meanwhile would land in the new one's table:
                # those chunks are left to embed_pending instead.
                added = self.store.add_many([NewMemory(t, scope, Kind.FILE, source=s) for t, s in fresh],
                                            embed=False, vectors=vectors if self.store.embedder is embedder else None)
                known.update({m.content_hash: m.id for m in added})
            chunks = [(known[h], line) for _, h, line, _ in wanted]
            before = conn.execute("SELECT status, detail, description, content_hash, size FROM session_files"
                                  " WHERE folder = ? AND name = ?", (folder, name)).fetchone()
            old = conn.execute("SELECT memory_id, line FROM session_file_chunks WHERE folder = ? AND name = ?"
                               " ORDER BY position", (folder, name)).fetchall()
            if before == row and old == chunks:
                return None
            conn.execute("DELETE FROM session_file_chunks WHERE folder = ? AND name = ?", (folder, name))
            conn.executemany("INSERT INTO session_file_chunks(folder, name, position, line, memory_id)"
                             " VALUES (?,?,?,?,?)", [(folder, name, n, line, mid) for n, (mid, line) in enumerate(chunks)])
            conn.execute("INSERT OR REPLACE INTO session_files(folder, name, status, detail, description,"
                         " content_hash, size, chunks, indexed_at) VALUES (?,?,?,?,?,?,?,?,?)",
                         (folder, name, *row, len(chunks), now_iso()))
            self._forget_unused(conn, {mid for mid, _ in old})
        return FileStatus(folder, name, status, detail, description, len(chunks), size)

    def _existing(self, scope: Scope, hashes: list[str]) -> dict[str, int]:
        if not hashes:
            return {}
        rows = self.db.query(
            "SELECT content_hash, id FROM memories WHERE application = ? AND agent = ? AND user = ? AND session = ?"
            f" AND kind = 'file' AND content_hash IN ({','.join('?' * len(hashes))})",
            (*[v for _, v in scope.items()], *hashes))
        return dict(rows)

    def _remove(self, folder: str, name: str) -> FileStatus:
        with self.db.transaction() as conn:
            old = {i for (i,) in conn.execute("SELECT memory_id FROM session_file_chunks WHERE folder = ? AND name = ?",
                                              (folder, name))}
            conn.execute("DELETE FROM session_file_chunks WHERE folder = ? AND name = ?", (folder, name))
            conn.execute("DELETE FROM session_files WHERE folder = ? AND name = ?", (folder, name))
            self._forget_unused(conn, old)
        return FileStatus(folder, name, REMOVED)

    def _forget_unused(self, conn, memory_ids: set[int]) -> None:
        for memory_id in sorted(memory_ids):
            if conn.execute("SELECT 1 FROM session_file_chunks WHERE memory_id = ?", (memory_id,)).fetchone() is None:
                self.store.delete(memory_id, actor="system")

    def _drop_orphans(self, folder: str) -> None:
        """Forget file memories of the folder's scope that no chunk refers to (left by a crash)."""
        scope = self.scope_for(folder)
        if scope is None:
            return
        rows = self.db.query(
            "SELECT m.id FROM memories m WHERE m.application = ? AND m.agent = ? AND m.user = ? AND m.session = ?"
            " AND m.kind = 'file' AND NOT EXISTS (SELECT 1 FROM session_file_chunks c WHERE c.memory_id = m.id)",
            [v for _, v in scope.items()])
        with self.db.transaction() as conn:
            self._forget_unused(conn, {i for (i,) in rows})

    def _refresh(self, folder: str) -> list[FileStatus]:
        """Rewrite memories.md from the statuses (only when the folder exists and the text differs).
        A failed write becomes memories.md's status; returns that status when it changed."""
        session_folder = self.folder(folder)
        if self.scope_for(folder) is None:
            return []
        problem = ""
        if session_folder.path.is_dir():
            entries = [(s.name, s.summary) for s in self.statuses(folder) if s.name != INDEX_NAME]
            try:
                session_folder.write_index(index_markdown(entries))
            except DataDirError as e:
                problem = _message(e)
        return self._index_problem(folder, problem)

    def _index_problem(self, folder: str, problem: str) -> list[FileStatus]:
        """Record why memories.md could not be written, or clear it (``problem`` empty)."""
        if self.status(folder, INDEX_NAME).detail == problem:
            return []
        if problem:
            log.warning("cannot write %s in %s: %s", INDEX_NAME, folder, problem)
            self.db.execute("INSERT OR REPLACE INTO session_files(folder, name, status, detail, indexed_at)"
                            " VALUES (?,?,?,?,?)", (folder, INDEX_NAME, PROBLEM, problem, now_iso()))
        else:
            self.db.execute("DELETE FROM session_files WHERE folder = ? AND name = ?", (folder, INDEX_NAME))
        return [self.status(folder, INDEX_NAME)]
