"""One SQLite file holds everything: opened through apsw so sqlite-vec loads on any Python.

The standard library's ``sqlite3`` is often built without extension loading; apsw ships its own
SQLite (with FTS5 and the trigram tokenizer) and can always load sqlite-vec.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from engram.core.errors import DatabaseError, DataDirError, DiskFull
from engram.core.storage.atomic import write_text_atomic
from engram.core.storage.changes import ChangeFeed, DataVersionWatch
from engram.core.storage.migrations import MIGRATIONS, owner_token, pending
from engram.core.memory.search.words.tokens import index_terms

SQLITE_MAGIC = b"SQLite format 3\x00"
# How long a write waits for another process's write to finish (a large import or re-index in
# another Engram holds it for seconds; the window never waits on the database itself).
BUSY_TIMEOUT_MS = 15_000
DAMAGE_NOTE = "-damaged"      # beside the file: why it is known to be damaged (Database.mark_damaged)
SALVAGE_REACH = 100_000       # ids stepped over at most, looking past a damaged page (salvage)
FULL_BELOW_BYTES = 1 << 20     # a disk with less free is full: a turn or an import needs more
DAMAGED_HINT = ("save what still reads (engram sessions export, engram memory list --json), then move the"
                " file away: Engram starts a new one")


def _check_file(path: Path) -> None:
    """Refuse, before SQLite touches it, a file that exists but is not a SQLite database."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as f:
        if f.read(16) != SQLITE_MAGIC:
            raise DatabaseError(
                f"{path} is not an Engram database (not a SQLite file); it was left untouched.",
                hint="point --data-dir / ENGRAM_DATA_DIR at another folder, or move that file away",
            )


def disk_full(folder: Path) -> bool:
    """Whether the disk holding ``folder`` has no room left for even a small change."""
    try:
        return shutil.disk_usage(folder).free < FULL_BELOW_BYTES
    except OSError:
        return False


class Database:
    """A connection with WAL, foreign keys, sqlite-vec and every migration applied.

    apsw connections are safe to share between threads (calls are serialised); ``transaction``
    additionally holds a Python lock so one thread's multi-statement change is not interleaved
    with another's.
    """

    dialect = "sqlite"

    def __init__(self, path: Path | str):
        self.path = Path(path) if str(path) != ":memory:" else None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise DataDirError(f"cannot create the data folder {self.path.parent}: {e.strerror}",
                                   hint="choose a writable folder with --data-dir or ENGRAM_DATA_DIR") from e
            _check_file(self.path)
        self._lock = threading.RLock()
        self._holder: int | None = None   # the thread inside transaction(), if any
        self._reader: apsw.Connection | None = None   # for snapshot(), opened at its first use
        self._reader_lock = threading.Lock()
        self._changes = ChangeFeed()
        self._watch = DataVersionWatch(lambda: self.change_stamp()[1], self._changes)
        self.full = False     # opened to read only, the disk being full (see _open_to_read)
        self.damaged = self._known_damage()    # what made this file known to be damaged ("": nothing)
        try:
            try:
                self.conn = self._connect()
                self._configure()
                if not self.damaged:
                    self._migrate()
            except (apsw.IOError, apsw.FullError, DiskFull) as e:
                self._open_to_read(e)
            except apsw.CorruptError as e:
                if self.damaged or self.path is None:
                    raise
                self._open_damaged(str(e))
        except apsw.ExtensionLoadingError as e:
            raise DatabaseError(f"SQLite could not load the sqlite-vec extension: {e}",
                                hint="reinstall Engram (the sqlite-vec package provides vec0)") from e
        except apsw.NotADBError as e:
            raise DatabaseError(f"{path} is not a usable SQLite database: {e}",
                                hint="move the file away; Engram will not overwrite it") from e
        except apsw.CorruptError as e:
            raise DatabaseError(f"{path} is damaged: {e}", hint=DAMAGED_HINT) from e
        except (apsw.CantOpenError, apsw.ReadOnlyError, apsw.PermissionsError) as e:
            raise DataDirError(f"cannot open {path} for writing: {e}",
                               hint="choose a writable folder with --data-dir or ENGRAM_DATA_DIR") from e

    def _connect(self) -> apsw.Connection:
        if self.full and self.path is not None:
            conn = apsw.Connection(self.path.as_uri() + "?immutable=1",
                                   flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
        else:
            conn = apsw.Connection(str(self.path or ":memory:"))
        if self.damaged:    # only read; tables whose own definition is damaged are left out
            conn.execute("PRAGMA writable_schema=ON")
            conn.execute("PRAGMA query_only=ON")
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        # Word indexes are filled (by migrations, and per user in core/memory/search/words/index.py) with the
        # same code that indexes each new memory.
        conn.create_scalar_function("engram_index_text", index_terms, 1, deterministic=True)
        conn.create_scalar_function("engram_owner_token", owner_token, 1, deterministic=True)
        return conn

    def _known_damage(self) -> str:
        """Why this file was found damaged (mark_damaged), if it was; a note left of a file since
        moved away (its inode differs) is removed."""
        if self.path is None or not (note := self._damage_note(self.path)).exists():
            return ""
        with contextlib.suppress(OSError, ValueError, AttributeError):   # unreadable: as if none
            found = json.loads(note.read_text(encoding="utf-8"))
            if self.path.exists() and found.get("inode") == self.path.stat().st_ino:
                return str(found.get("findings") or "damaged")
        with contextlib.suppress(OSError):
            note.unlink()
        return ""

    @staticmethod
    def _damage_note(path: Path) -> Path:
        return Path(f"{path}{DAMAGE_NOTE}")

    def mark_damaged(self, findings: str) -> None:
        """Remember that this file is damaged (doctor's check, or a read that failed): from now on
        this and every Engram opening it only read, as a write may spread the damage, and what
        still reads can be saved (DAMAGED_HINT). The note goes when the file is moved away."""
        self.damaged = findings
        self.conn.execute("PRAGMA query_only=ON")
        if self.path is None:
            return
        with contextlib.suppress(OSError):      # a disk too damaged or full: known to this process only
            write_text_atomic(self._damage_note(self.path),
                              json.dumps({"inode": self.path.stat().st_ino, "findings": findings}))

    def mark_healthy(self) -> None:
        """The file passed doctor's check: it may be written again."""
        if self.damaged and self.path is not None:
            self._damage_note(self.path).unlink(missing_ok=True)
            self.damaged = ""
            self.conn.execute("PRAGMA query_only=OFF")

    def _refusal(self) -> DatabaseError | DiskFull:
        """Why a change is refused by a database opened to read only."""
        if self.damaged:
            return DatabaseError(f"{self.path} is damaged (`engram doctor` says how): Engram only reads it, so"
                                 " that writing does not spread the damage; nothing was changed", hint=DAMAGED_HINT)
        return DiskFull(self._folder)

    def _open_damaged(self, findings: str) -> None:
        """A file too damaged to open as it is (its list of tables, say) is opened to read what
        still reads, so that it can be saved (DAMAGED_HINT), and marked damaged."""
        self._close_connection()
        self.damaged = findings
        self.conn = self._connect()
        self.mark_damaged(findings)

    def _close_connection(self) -> None:
        """Close the connection opened before (if one was) to open it again another way."""
        if getattr(self, "conn", None) is not None:
            self.conn.close()

    @property
    def _folder(self) -> Path | str:
        """Where the data is, as errors name it."""
        return self.path.parent if self.path is not None else "memory"

    def _open_to_read(self, error: Exception) -> None:
        """On a full disk SQLite may not even make the files WAL keeps beside the database. With
        none holding changes, what is stored is read from the file alone (immutable: nothing can
        change it, as nothing can be written), and every change is refused as the disk being full."""
        wal = Path(f"{self.path}-wal")     # changes not yet in the file itself
        if self.path is None or not disk_full(self.path.parent) or (wal.exists() and wal.stat().st_size > 0):
            if isinstance(error, DataDirError):
                raise error
            raise DataDirError(f"cannot open {self.path}: {error}",
                               hint="check the disk holding the data folder (`engram doctor`)") from error
        self._close_connection()
        self.full = True
        self.conn = self._connect()
        done = {v for (v,) in self.conn.execute("SELECT version FROM schema_migrations")}
        if pending(MIGRATIONS, done, hint="update Engram, or open another data folder"):
            raise DiskFull(self.path.parent, "this Engram cannot upgrade the database until there is room")

    def _configure(self) -> None:
        if self.path is not None:
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise DataDirError(f"SQLite could not switch {self.path} to WAL mode (got {mode})")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        # Up to 64 MB of pages (default 2 MB): a search at a million memories touches scattered
        # rows of memories and the word index; from the page cache each costs half.
        self.conn.execute("PRAGMA cache_size=-65536")
        # Forgotten memories must not linger in free pages of the file.
        self.conn.execute("PRAGMA secure_delete=ON")

    def _migrate(self) -> None:
        """Apply what is pending. Foreign keys are off meanwhile (SQLite ignores the pragma inside
        a transaction): a migration that rebuilds a table drops the old one, which with them on
        would cascade to every row that refers to it. Rebuilds keep every id, so nothing dangles."""
        self.conn.execute("PRAGMA foreign_keys=OFF")
        try:
            self._apply_migrations()
        finally:
            self.conn.execute("PRAGMA foreign_keys=ON")

    def _apply_migrations(self) -> None:
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
            )
            done = {v for (v,) in self.conn.execute("SELECT version FROM schema_migrations")}
            for migration in pending(MIGRATIONS, done, hint="update Engram, or open another data folder"):
                self.conn.execute(migration.sql)
                self.conn.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)",
                                  (migration.version, migration.name))

    @contextmanager
    def transaction(self) -> Iterator[apsw.Connection]:
        """All statements inside commit together or not at all.

        The outermost transaction takes the write lock up front (BEGIN IMMEDIATE), so a second
        process waits its turn for up to the busy timeout: a transaction that starts by reading
        and only later writes could not wait (SQLite refuses at once, to avoid a deadlock).
        Inner ones are savepoints in it."""
        with self._errors_said(), self._lock, self._busy_said():
            outermost = not self.conn.in_transaction
            if outermost:   # opened to read only, reads in a transaction go on (its first write fails)
                self.conn.execute("BEGIN" if self.full or self.damaged else "BEGIN IMMEDIATE")
            outer, self._holder = self._holder, threading.get_ident()
            try:
                with self.conn:
                    yield self.conn
            except BaseException:
                if outermost and self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            else:
                if outermost:
                    self.conn.execute("COMMIT")
            finally:
                self._holder = outer

    @contextmanager
    def _busy_said(self) -> Iterator[None]:
        """Another process held the write lock for longer than the busy timeout: say so plainly."""
        try:
            yield
        except apsw.BusyError as e:
            raise DatabaseError(
                f"the database is busy: another Engram process kept it locked for over"
                f" {BUSY_TIMEOUT_MS // 1000} s; nothing was changed",
                hint="try again; if this persists, close the other Engram windows or commands") from e

    @contextmanager
    def _errors_said(self) -> Iterator[None]:
        """SQLite's "database or disk is full" as a DataDirError that says where and what to do.
        The change is rolled back, so what was stored before stays as it was. SQLite may roll the
        whole transaction back itself; the savepoint's own rollback then fails, with the full
        disk as its context. A change to a database opened to read only says why it is refused;
        a damaged page met says so, and the file is marked damaged."""
        try:
            yield
        except apsw.ReadOnlyError as e:
            if not (self.full or self.damaged):
                raise
            raise self._refusal() from e
        except (apsw.CorruptError, apsw.NotADBError) as e:
            self.mark_damaged(str(e))
            raise DatabaseError(f"{self.path} is damaged: {e}", hint=DAMAGED_HINT) from e
        except apsw.Error as e:
            if self.damaged and isinstance(e, apsw.SQLError):    # a table left out (_open_damaged)
                raise DatabaseError(f"{self.path} is damaged, this part beyond reading: {e}",
                                    hint=DAMAGED_HINT) from e
            cause: BaseException | None = e
            while cause is not None and not isinstance(cause, (apsw.FullError, DataDirError)):
                cause = cause.__context__
            if isinstance(cause, DataDirError):
                raise cause from None   # said already, by a transaction inside this one
            if cause is None:
                raise
            raise DiskFull(self._folder) from cause

    @contextmanager
    def snapshot(self) -> Iterator[apsw.Connection]:
        """A read transaction on a second connection: a long read (a user's vectors, seconds at
        100k memories) then sees one consistent state without holding up this connection's
        writes, e.g. the message a person sends meanwhile (WAL lets both proceed). An in-memory
        database has no second connection; the read then runs in a transaction here."""
        if self.path is None:
            with self.transaction() as conn:
                yield conn
            return
        with self._reader_lock:
            if self._reader is None:
                self._reader = self._connect()
                self._reader.execute("PRAGMA query_only=ON")
            self._reader.execute("BEGIN")
            try:
                yield self._reader
            finally:
                self._reader.execute("ROLLBACK")

    def in_transaction_here(self) -> bool:
        """Whether this thread is inside ``transaction``: work handed to another thread that needs
        the database would then wait for this one, which waits for it."""
        return self._holder == threading.get_ident()

    def execute(self, sql: str, params: Sequence[Any] | dict = ()) -> apsw.Cursor:
        with self._errors_said(), self._lock, self._busy_said():
            return self.conn.execute(sql, params)

    def query(self, sql: str, params: Sequence[Any] | dict = ()) -> list[tuple]:
        with self._errors_said(), self._lock:
            return self.conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] | dict = ()) -> tuple | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def salvage(self, table: str, columns: str, where: str = "TRUE", params: Sequence[Any] = ()) -> tuple[
            list[tuple], list[str]]:
        """What a damaged file still gives of a table (DAMAGED_HINT): the rows of ``columns``
        (the table's alias is ``m``) matching ``where`` that still read, in id order, and what did
        not: "#12" for a row, "#40–#57" for a stretch of ids on a damaged page. Rows are read one
        at a time by id, without the table's indexes (which may be damaged too), and a damaged
        stretch is stepped over, so one bad page or text loses only its own rows. A row whose
        ``where`` columns do not read is named too: whose it is cannot be told."""
        rows: list[tuple] = []
        # The table's definition damaged (a column's name, say): nothing of it reads; said at once.
        self.query(f"SELECT {columns} FROM {table} AS m NOT INDEXED WHERE {where} LIMIT 0", params)
        ids, lost = self._readable_ids(table)
        for row_id in ids:
            try:
                if self.query(f"SELECT m.id FROM {table} AS m NOT INDEXED WHERE m.id = ? AND ({where})",
                              (row_id, *params)):
                    rows += self.query(f"SELECT {columns} FROM {table} AS m NOT INDEXED WHERE m.id = ?", (row_id,))
            except (DatabaseError, ValueError):     # ValueError: a text no longer UTF-8
                lost.append(f"#{row_id}")
        return rows, lost

    def _readable_ids(self, table: str) -> tuple[list[int], list[str]]:
        """The ids a table's b-tree still gives, in order, and the stretches it does not. One id
        at a time: a scan fails at a damaged page before giving the rows read just before it."""
        ids: list[int] = []
        lost: list[str] = []
        try:
            end = self.query(f"SELECT max(id) FROM {table}")[0][0] or 0
        except (DatabaseError, ValueError):
            end = None
        with self._lock:
            after = 0
            while True:
                try:
                    found = self._id_from(table, after + 1)
                except (apsw.Error, ValueError) as e:
                    if not self.damaged:
                        self.mark_damaged(str(e))
                    found = self._next_readable_id(table, after + 1, end)
                    lost.append(f"#{after + 1}–#{found - 1}" if found else f"#{after + 1} onwards")
                if found is None:
                    return ids, lost
                ids.append(found)
                after = found

    def _id_from(self, table: str, first: int) -> int | None:
        row = self.conn.execute(f"SELECT id FROM {table} NOT INDEXED WHERE id >= ? ORDER BY id LIMIT 1",
                                (first,)).fetchone()
        return None if row is None else row[0]

    def _next_readable_id(self, table: str, failed: int, end: int | None) -> int | None:
        """The first id past ``failed`` (where reading failed) whose page reads (None: none up to
        ``end``, or within SALVAGE_REACH ids when the largest id is unknown)."""
        for candidate in range(failed + 1, (end if end is not None else failed + SALVAGE_REACH) + 1):
            try:
                return self._id_from(table, candidate)
            except (apsw.Error, ValueError):
                continue
        return None

    def change_stamp(self) -> tuple[int, int]:
        """Changes through this connection and commits by others so far: equal stamps mean
        nothing was written in between, so what was read from the database still holds."""
        with self._lock:
            return self.conn.total_changes(), self.conn.execute("PRAGMA data_version").fetchone()[0]

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (on a thread of its own) soon after another process commits to this
        file (see changes.py); returns an unsubscribe."""
        unsubscribe = self._changes.subscribe(callback)
        if self.path is not None:      # nobody else can write to an in-memory database
            self._watch.start()
        return unsubscribe

    def schema_version(self) -> int:
        return self.query_one("SELECT max(version) FROM schema_migrations")[0] or 0

    def close(self) -> None:
        self._watch.stop()
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
        self.conn.close()


def versions(db: Database) -> dict[str, str]:
    """Versions of the parts the doctor reports."""
    return {
        "sqlite": db.query_one("SELECT sqlite_version()")[0],
        "sqlite-vec": db.query_one("SELECT vec_version()")[0],
        "apsw": apsw.apsw_version(),
    }
