"""What the database knows of the session files: a status per file (``session_files``) and its
chunks in order (``session_file_chunks``), each chunk a memory of kind ``file``.

It never reads the disk: ``FileIndex`` decides what a file on disk becomes and records it here.
Rows name the device that has the file (see device.py); a catalog reads and writes its own
device's, and only says of the others' that they are there.
A chunk's memory is shared by identical chunks of the folder (stored by content hash) and is
forgotten when no chunk refers to it any more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engram.core.errors import InvalidInput
from engram.core.files.device import Device
from engram.core.files.names import INDEX_NAME
from engram.core.memory.records import Kind, Memory, NewMemory, content_hash, normalise_text, now_iso
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore

INDEXED, PROBLEM, REMOVED = "indexed", "problem", "removed"
_STATUS_COLUMNS = "folder, name, status, detail, description, chunks, size"
# A file's status, replacing the one it had (an upsert both SQLite and PostgreSQL read).
_PUT_STATUS = ("INSERT INTO session_files(device, folder, name, status, detail, description, content_hash, size,"
               " chunks, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (device, folder, name) DO UPDATE SET"
               " status = excluded.status, detail = excluded.detail, description = excluded.description,"
               " content_hash = excluded.content_hash, size = excluded.size, chunks = excluded.chunks,"
               " indexed_at = excluded.indexed_at")


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
class Piece:
    """A chunk as it is to be stored: its text (file and headings first), its line in the file,
    and its provenance (folder, path, headings)."""

    text: str
    line: int
    source: dict


class FileCatalog:
    def __init__(self, store: MemoryStore, device: Device):
        self.store = store
        self.db = store.db
        self.device = device.id
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO devices(id, name, seen_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE"
                         " SET name = excluded.name, seen_at = excluded.seen_at", (device.id, device.name, now_iso()))
            for table in ("session_files", "session_file_chunks"):    # indexed before devices were told apart
                conn.execute(f"UPDATE {table} SET device = ? WHERE device = ''", (device.id,))

    # -- reading -------------------------------------------------------------------------------

    def folders(self) -> set[str]:
        """Every folder this device holds files of."""
        return {f for (f,) in self.db.query("SELECT DISTINCT folder FROM session_files WHERE device = ?",
                                            (self.device,))}

    def holders(self, folder: str) -> list[str]:
        """The names of the other devices that hold files of the folder."""
        return [n for (n,) in self.db.query(
            "SELECT DISTINCT coalesce(d.name, f.device) FROM session_files f LEFT JOIN devices d ON d.id = f.device"
            " WHERE f.folder = ? AND f.device <> ? ORDER BY 1", (folder, self.device))]

    def statuses(self, folder: str) -> list[FileStatus]:
        rows = self.db.query(f"SELECT {_STATUS_COLUMNS} FROM session_files WHERE device = ? AND folder = ?"
                             " ORDER BY name", (self.device, folder))
        return [FileStatus(*row) for row in rows]

    def status(self, folder: str, name: str) -> FileStatus:
        row = self.db.query_one(f"SELECT {_STATUS_COLUMNS} FROM session_files WHERE device = ? AND folder = ?"
                                " AND name = ?", (self.device, folder, name))
        return FileStatus(*row) if row else FileStatus(folder, name, REMOVED)

    def names(self, folder: str) -> list[str]:
        return [n for (n,) in self.db.query("SELECT name FROM session_files WHERE device = ? AND folder = ?",
                                            (self.device, folder))]

    def bytes_hash(self, folder: str, name: str) -> str | None:
        """The hash of the file's bytes when it was last recorded; None for a file never seen."""
        row = self.db.query_one("SELECT content_hash FROM session_files WHERE device = ? AND folder = ? AND name = ?",
                                (self.device, folder, name))
        return row[0] if row else None

    def chunk_memories(self, folder: str, name: str | None = None) -> list[Memory]:
        """The memories holding a folder's (or one file's) chunks, in file and chunk order."""
        sql = "SELECT memory_id FROM session_file_chunks WHERE device = ? AND folder = ?"
        params: list = [self.device, folder]
        if name is not None:
            sql += " AND name = ?"
            params.append(name)
        ids = [i for (i,) in self.db.query(sql + " ORDER BY name, position", params)]
        return self.store.get_many(ids)

    def chunk_place(self, folder: str, memory_id: int) -> tuple[str, int] | None:
        """Where a chunk's memory first appears in the folder: (file name, line)."""
        return self.db.query_one("SELECT name, line FROM session_file_chunks WHERE device = ? AND folder = ?"
                                 " AND memory_id = ? ORDER BY name, position LIMIT 1", (self.device, folder, memory_id))

    # -- writing -------------------------------------------------------------------------------

    def record(self, folder: str, name: str, scope: Scope, status: str, detail: str = "", description: str = "",
               digest: str = "", size: int = 0, pieces: Sequence[Piece] = (), embed: bool = True) -> FileStatus | None:
        """Store a file's status and make its chunks exactly ``pieces``, embedding only texts not
        stored yet (``embed=False``: none now; the store's ``embed_pending`` does, later). Returns
        None when nothing changed."""
        wanted: list[tuple[str, str, Piece]] = []   # (clean text, its hash, the piece)
        for piece in pieces:
            try:
                clean = normalise_text(piece.text)
            except InvalidInput:
                continue
            wanted.append((clean, content_hash(clean), piece))
        known = self._existing(scope, [h for _, h, _ in wanted])
        fresh = list({h: (t, p.source) for t, h, p in wanted if h not in known}.values())
        embedder = self.store.embedder      # None: words only; the chunks are embedded once a model works
        vectors = embedder.embed([t for t, _ in fresh]) if fresh and embed and embedder is not None else None
        row = (status, detail, description, digest, size)
        with self.db.transaction() as conn:
            if fresh:
                # Vectors of a model switched away from meanwhile would land in the new one's table:
                # those chunks are left to embed_pending instead.
                added = self.store.add_many([NewMemory(t, scope, Kind.FILE, source=s) for t, s in fresh],
                                            embed=False, vectors=vectors if self.store.embedder is embedder else None)
                known.update({m.content_hash: m.id for m in added})
            chunks = [(known[h], p.line) for _, h, p in wanted]
            here = (self.device, folder, name)
            before = conn.execute("SELECT status, detail, description, content_hash, size FROM session_files"
                                  " WHERE device = ? AND folder = ? AND name = ?", here).fetchone()
            old = [tuple(r) for r in conn.execute("SELECT memory_id, line FROM session_file_chunks WHERE device = ?"
                                                  " AND folder = ? AND name = ? ORDER BY position", here)]
            if before is not None and tuple(before) == row and old == chunks:
                return None
            conn.execute("DELETE FROM session_file_chunks WHERE device = ? AND folder = ? AND name = ?", here)
            conn.executemany("INSERT INTO session_file_chunks(device, folder, name, position, line, memory_id)"
                             " VALUES (?,?,?,?,?,?)", [(*here, n, line, mid) for n, (mid, line) in enumerate(chunks)])
            conn.execute(_PUT_STATUS, (*here, *row, len(chunks), now_iso()))
            self._forget_unused(conn, {mid for mid, _ in old})
        return FileStatus(folder, name, status, detail, description, len(chunks), size)

    def remove(self, folder: str, name: str) -> FileStatus:
        return self._remove(folder, "device = ? AND folder = ? AND name = ?", (self.device, folder, name), name)

    def remove_everywhere(self, folder: str) -> None:
        """Forget a folder's files on every device (its session was deleted)."""
        self._remove(folder, "folder = ?", (folder,))

    def _remove(self, folder: str, where: str, params: tuple, name: str = "") -> FileStatus:
        with self.db.transaction() as conn:
            old = {i for (i,) in conn.execute(f"SELECT memory_id FROM session_file_chunks WHERE {where}", params)}
            conn.execute(f"DELETE FROM session_file_chunks WHERE {where}", params)
            conn.execute(f"DELETE FROM session_files WHERE {where}", params)
            self._forget_unused(conn, old)
        return FileStatus(folder, name, REMOVED)

    def drop_orphans(self, scope: Scope) -> None:
        """Forget file memories of the scope that no chunk refers to (left by a crash)."""
        rows = self.db.query(
            "SELECT m.id FROM memories m WHERE m.application = ? AND m.agent = ? AND m.user = ? AND m.session = ?"
            " AND m.kind = 'file' AND NOT EXISTS (SELECT 1 FROM session_file_chunks c WHERE c.memory_id = m.id)",
            [v for _, v in scope.items()])
        with self.db.transaction() as conn:
            self._forget_unused(conn, {i for (i,) in rows})

    def set_index_problem(self, folder: str, problem: str) -> None:
        """Record why memories.md could not be written, or clear it (``problem`` empty)."""
        if problem:
            self.db.execute(_PUT_STATUS, (self.device, folder, INDEX_NAME, PROBLEM, problem, "", "", 0, 0, now_iso()))
        else:
            self.db.execute("DELETE FROM session_files WHERE device = ? AND folder = ? AND name = ?",
                            (self.device, folder, INDEX_NAME))

    def _existing(self, scope: Scope, hashes: list[str]) -> dict[str, int]:
        if not hashes:
            return {}
        rows = self.db.query(
            "SELECT content_hash, id FROM memories WHERE application = ? AND agent = ? AND user = ? AND session = ?"
            f" AND kind = 'file' AND content_hash IN ({','.join('?' * len(hashes))})",
            (*[v for _, v in scope.items()], *hashes))
        return dict(rows)

    def _forget_unused(self, conn, memory_ids: set[int]) -> None:
        for memory_id in sorted(memory_ids):
            if conn.execute("SELECT 1 FROM session_file_chunks WHERE memory_id = ?", (memory_id,)).fetchone() is None:
                self.store.delete(memory_id, actor="system")
