"""The session files' index: keeps the database's catalog of the files (``catalog.py``: a status
per file, its chunks as memories of kind ``file``) and ``memories.md`` in step with the disk, under
one lock, and tells subscribers (the Files tab) what changed.

The files are the truth; this index can always be rebuilt from them (``sync_folder(force=True)``).
Syncing a file compares the hash of its bytes with the last one seen, so a write the app itself
made (and indexed at once) is not processed again when the watcher reports it. Chunks are
stored by content hash: only chunks whose text changed are embedded again. Every sync, whatever
the file holds, ends in a status (``indexed`` or ``problem`` with a reason): a bad file is
reported, never raised. ``memories.md`` itself gets a status only while it cannot be written
(a full disk, a read-only folder, a folder of that name in the way): a ``problem`` that the next
successful write clears.

Documents (PDF, DOCX, ...; formats.py) are not read here: one put in the folder moves into
``sources/`` and new bytes there are handed to documents.py, which converts them on the outbox
into ``<name>.md`` beside them; that markdown is then indexed like any file, its chunks citing
the document's page ("report.pdf, p. 12") and embedded by the outbox, so that a book's hundreds
of chunks are found by words at once and never hold this index's lock for minutes.

A folder whose session is gone (deleted) is left alone: nothing indexes it or writes into it, so
the watcher's late reports about it change nothing and nothing re-creates it.

Devices sharing one database (device.py) each index the folders on their own disk. A chat's folder
stays on the device that has it: elsewhere its files are neither listed nor written (a second
folder of the same chat would hold what the first device never sees), and ``elsewhere`` says
where they are, for the window and the model's tools to tell the person. What the files say is
in the shared memory all the same: recall finds it on every device.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from engram.core.errors import DataDirError, EngramError, InvalidInput, NotFound
from engram.core.files import chunks as chunking
from engram.core.files.catalog import INDEXED, PROBLEM, FileCatalog, FileStatus, Piece
from engram.core.files.device import Device, this_device
from engram.core.files.converters import MAX_MARKDOWN_BYTES
from engram.core.files.folder import MAX_FILE_BYTES, SessionFolder, bytes_hash, decode, file_hash, index_markdown
from engram.core.files.formats import SOURCES_DIR, is_document_name
from engram.core.files.names import INDEX_NAME, check_name, is_ignored, is_text_name
from engram.core.files.trash import move_to_trash
from engram.core.memory.records import Kind, Memory
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore

log = logging.getLogger(__name__)
MAX_HEADING_CHARS = 120


class Converter(Protocol):
    """What the index asks of documents.py's ``Documents``, which sets itself as the index's
    ``documents``: documents.py builds on the index, so the index names only these calls."""
    embed_later: Callable[[], None]

    def adopt(self, folder: str, name: str) -> str: ...

    def queue(self, folder: str, name: str, digest: str) -> tuple[str, str, str]: ...


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
    similarity: float | None = None   # by meaning, when that side found it (SearchHit.similarity)


def memory_text(name: str, chunk: chunking.Chunk, source: str = "") -> str:
    """The stored text of a chunk: where it is (file and headings), then what it says. A converted
    document's chunk names its original and its place there: "report.pdf, p. 12"."""
    headings = [h[:MAX_HEADING_CHARS] for h in chunk.headings]
    where = f"{source}, {' › '.join(headings)}" if source and headings else " › ".join([source or name, *headings])
    return f"{where}\n{chunk.text}"


def is_converted_name(name: str) -> bool:
    """A document's markdown (``report.pdf.md``), which may be larger than a memory file."""
    return name.endswith(".md") and "/" not in name and is_document_name(name[:-3])


class FileIndex:
    def __init__(self, store: MemoryStore, sessions_root: Path | str,
                 scope_for: Callable[[str], Scope | None] | None = None, device: Device | None = None):
        """``device``: the one this index runs on; by default the data folder's (the parent of
        ``sessions_root``)."""
        self.store = store
        self.db = store.db
        self.root = Path(sessions_root)
        self.device = device or this_device(self.root.parent)
        self.catalog = FileCatalog(store, self.device)
        self.scope_for = scope_for or self._session_scope
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[FileEvent], None]] = []
        self.documents: Converter | None = None      # set by Documents: converts what lands in sources/

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

    def elsewhere(self, folder: str) -> str | None:
        """The name of the device that has the folder, when it is not on this one: it is not on
        this disk, and another device indexed files of it. None: the folder is here (or nowhere
        yet, and would be made here)."""
        if self.folder(folder).path.is_dir():
            return None
        holders = self.catalog.holders(folder)
        return ", ".join(holders) if holders else None

    def write(self, folder: str, name: str, body: str, description: str | None = None) -> FileStatus:
        """Write a file and index it now; the watcher's later report of it changes nothing.
        Refused for a folder without a session (deleted): writing would re-create it; and for a
        folder on another device."""
        with self._lock:
            if self.scope_for(folder) is None:
                raise NotFound(f"{folder!r} is not the folder of a session (was the chat deleted?)")
            if (device := self.elsewhere(folder)) is not None:
                raise InvalidInput(f"this chat's files are on the device {device!r}, not on this one"
                                   f" ({self.device.name!r})",
                                   hint=f"write them on {device}; what they say is recalled here too")
            name, _ = self.folder(folder).write(name, body, description)
            status = self._sync(folder, name, force=False) or self.status(folder, name)
            index = self._refresh(folder)
        self._emit([status, *index])
        return status

    def write_unless_changed(self, folder: str, name: str, body: str, description: str | None,
                             opened: str | None) -> tuple[FileStatus, str | None] | None:
        """A person's save from an editor: write the file unless another program changed it on
        disk since it was opened (``opened``: the hash of its bytes then, see ``disk_hash``); None
        when it did, and nothing is written. A file deleted on disk meanwhile is written back: that
        loses nothing. Returns the status and the hash of the bytes now on disk."""
        with self._lock:             # no write by the model or a sync between the check and the write
            current = self.disk_hash(folder, name)
            if current is not None and current != opened:
                return None
            status = self.write(folder, name, body, description)
            return status, self.disk_hash(folder, status.name)

    def disk_hash(self, folder: str, name: str) -> str | None:
        """The hash of a file's bytes on disk now; None when it cannot be read (deleted, say)."""
        try:
            return bytes_hash(self.folder(folder).read_bytes(name))
        except EngramError:
            return None

    def delete(self, folder: str, name: str) -> FileStatus:
        with self._lock:
            name = self.folder(folder).delete(name)
            status = self.catalog.remove(folder, name)
            index = self._refresh(folder)
        self._emit([status, *index])
        return status

    def record_source(self, folder: str, name: str, status: str, detail: str, description: str = "",
                      digest: str = "", size: int = 0) -> FileStatus | None:
        """Record how a document's conversion went (documents.py), and tell the subscribers."""
        with self._lock:
            scope = self.scope_for(folder)
            if scope is None:
                return None
            changed = self.catalog.record(folder, name, scope, status, detail, description, digest, size)
            index = self._refresh(folder) if changed else []
        self._emit([changed, *index] if changed else [])
        return changed

    def search(self, folder: str, query: str, k: int = 5, mode: str = "hybrid", centred: bool = True) -> list[FileHit]:
        """The folder's chunks nearest to ``query`` (by meaning, and by words unless mode says not);
        ``centred`` as SearchOptions.centre_meaning says."""
        scope = self.scope_for(folder)
        if scope is None:
            raise NotFound(f"{folder!r} is not the folder of a session")
        hits = self.store.search(query, scope, SearchOptions(mode=mode, k=k, centre_meaning=centred,
                                                             kinds=(Kind.FILE.value,))).hits
        places = [(self.catalog.chunk_place(folder, hit.memory.id), hit) for hit in hits]
        return [FileHit(*place, hit.memory, hit.score, hit.similarity) for place, hit in places if place]

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
            on_disk = {entry.name for entry in self.folder(folder).scan()}   # documents moved into sources/
            for name in sorted(set(self.catalog.names(folder)) - on_disk - {INDEX_NAME}):
                changed.append(self.catalog.remove(folder, name))
            self._drop_orphans(folder)
            changed += self._refresh(folder)
        self._emit(changed)
        return changed

    def rescan(self, folder: str) -> list[str]:
        """The names a sync of the whole folder looks at: the files on disk and those indexed
        before (a gone one leaves the index when synced). The watcher syncs them one at a time,
        so that a file the person edits meanwhile goes first (a burst of thousands takes minutes);
        memories.md is among them, so that it is written again even when no file changed (a folder
        named memories.md that was in the way has gone, say)."""
        with self._lock:
            self._drop_orphans(folder)
            on_disk = {entry.name for entry in self.folder(folder).scan()}
            return sorted((on_disk | set(self.catalog.names(folder))) - {INDEX_NAME}) + [INDEX_NAME]

    def sync_all(self, force: bool = False) -> list[FileStatus]:
        """Every session folder on disk, plus folders indexed before but gone from disk."""
        folders = {p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")} \
            if self.root.is_dir() else set()
        folders |= self.folders()
        return [s for folder in sorted(folders) for s in self.sync_folder(folder, force)]

    def forget(self, folder: str) -> int:
        """Drop a folder's whole index (its session was deleted); returns how many files."""
        with self._lock:
            names = self.catalog.names(folder)
            self.catalog.remove_everywhere(folder)
            self._drop_orphans(folder)
        return len(names)

    def discard(self, folder: str, trash: Path) -> Path | None:
        """Move a deleted session's folder into ``trash`` (see ``trash.move_to_trash``), under the
        lock, so that no sync or write of the folder runs while it moves."""
        with self._lock:
            return move_to_trash(self.folder(folder).path, trash)

    # -- reading the index ---------------------------------------------------------------------

    def folders(self) -> set[str]:
        """Every folder this device holds files of."""
        return self.catalog.folders()

    def statuses(self, folder: str) -> list[FileStatus]:
        return self.catalog.statuses(folder)

    def status(self, folder: str, name: str) -> FileStatus:
        return self.catalog.status(folder, name)

    def chunk_memories(self, folder: str, name: str | None = None) -> list[Memory]:
        """The memories holding a folder's (or one file's) chunks, in file and chunk order."""
        return self.catalog.chunk_memories(folder, name)

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
            return self.catalog.record(folder, name, scope, PROBLEM, f"could not be indexed: {e}")

    def _read_and_record(self, folder: str, name: str, force: bool) -> FileStatus | None:
        """Record what the file on disk is now: gone, refused (and why), or its chunks."""
        scope = self.scope_for(folder)
        if scope is None or is_ignored(name):
            return None
        session_folder = self.folder(folder)
        try:
            info = os.lstat(session_folder.path / name)
        except (FileNotFoundError, NotADirectoryError):
            return self._gone(folder, name)
        if stat.S_ISDIR(info.st_mode):
            return None
        problem = self._refusal(name, info)
        if problem:
            return self.catalog.record(folder, name, scope, PROBLEM, problem, size=info.st_size)
        if self.documents is not None and is_document_name(name):
            return self._document(folder, name, scope, force)
        try:
            data = session_folder.read_bytes(name, MAX_MARKDOWN_BYTES if is_converted_name(name) else MAX_FILE_BYTES)
        except NotFound:  # deleted while being indexed
            return self._gone(folder, name)
        except EngramError as e:
            return self.catalog.record(folder, name, scope, PROBLEM, e.message, size=info.st_size)
        digest = bytes_hash(data)
        if not force and self.catalog.bytes_hash(folder, name) == digest:
            return None
        try:
            doc = decode(name, data)
        except InvalidInput as e:
            return self.catalog.record(folder, name, scope, PROBLEM, e.message, digest=digest, size=len(data))
        source = str(doc.source.get("name") or "") if is_converted_name(name) else ""
        pieces = [Piece(memory_text(name, c, source), doc.body_line + c.line - 1,
                        {"folder": folder, "path": name, "headings": list(c.headings)} | ({"document": source} if source else {}))
                  for c in chunking.split(doc.body)]
        if source and self.documents is not None:
            # A document's hundreds of chunks are found by words at once and by meaning once the
            # outbox has embedded them: a book must not hold the index for minutes.
            status = self.catalog.record(folder, name, scope, INDEXED, doc.problem, doc.description, digest,
                                         len(data), pieces, embed=False)
            self.documents.embed_later()
            return status
        return self.catalog.record(folder, name, scope, INDEXED, doc.problem, doc.description, digest, len(data),
                                   pieces)

    def _document(self, folder: str, name: str, scope: Scope, force: bool) -> FileStatus | None:
        """A document: one put in the folder itself moves into sources/ first; new bytes in
        sources/ are queued for conversion (documents.py), and the source's status says so."""
        assert self.documents is not None
        if not name.startswith(f"{SOURCES_DIR}/"):
            moved = self.documents.adopt(folder, name)
            self._gone(folder, name)
            return self._read_and_record(folder, moved, force)
        path = self.folder(folder).locate(name)
        digest, size = file_hash(path), path.stat().st_size
        if not force and self.catalog.bytes_hash(folder, name) == digest:
            return None
        status, detail, description = self.documents.queue(folder, name, digest)
        return self.catalog.record(folder, name, scope, status, detail, description, digest, size)

    def _gone(self, folder: str, name: str) -> FileStatus | None:
        """A file gone from disk leaves the index; None when the index never had it."""
        return self.catalog.remove(folder, name) if name in self.catalog.names(folder) else None

    def _refusal(self, name: str, info: os.stat_result) -> str:
        """Why a file is not read at all, or ''."""
        if stat.S_ISLNK(info.st_mode):
            return "a link; links in a session folder are not followed"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        try:
            check_name(name)
        except InvalidInput as e:
            return e.message
        if is_document_name(name) and self.documents is not None:
            return ""
        if not is_text_name(name):
            return "not a markdown or text file (.md, .markdown, .txt); listed but not indexed"
        if is_converted_name(name) and info.st_size <= MAX_MARKDOWN_BYTES:
            return ""
        if info.st_size > MAX_FILE_BYTES:
            return f"too large ({info.st_size / 1e6:.1f} MB); files over {MAX_FILE_BYTES // 1024} KiB are not indexed"
        return ""

    def _drop_orphans(self, folder: str) -> None:
        if (scope := self.scope_for(folder)) is not None:
            self.catalog.drop_orphans(scope)

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
                problem = e.message
        if self.status(folder, INDEX_NAME).detail == problem:
            return []
        if problem:
            log.warning("cannot write %s in %s: %s", INDEX_NAME, folder, problem)
        self.catalog.set_index_problem(folder, problem)
        return [self.status(folder, INDEX_NAME)]
