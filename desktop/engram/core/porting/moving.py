"""Moving the whole store to another database: from SQLite to a PostgreSQL server, or back.

Everything is copied with its ids kept, so what points at an id (a memory's history, a file's
chunks, a turn's messages, a note's sources, vectors) still points right. Tables go one after
another, in the order their references need, each in id order in batches that commit: after a
crash or Ctrl-C, a second run finds how far each table came in the target itself (its largest
id) and goes on from there. The few tables without an integer key (sessions, preferences, the
session files' list, distillation's progress) are small and copied whole in one transaction.
Vectors are read and written through each backend's VectorIndex; word indexes are not copied
but made again on the target by its own word-index code (each engine cuts and stores words its
own way). At the end every table's rows are counted on both sides.

A target must hold nothing but what this copy put there: the first run records its source in
``data_copied_from``, and a target with other data, or copied from another source, is refused, so
two people's stores are never merged by accident. The source should not be in use meanwhile
(close the window first): rows written during the copy may be missed, and the counts then say so.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engram.core import paths
from engram.core.errors import DatabaseError, InvalidInput
from engram.core.memory.records import now_iso
from engram.core.memory.scope import Scope
from engram.core.memory.search import words
from engram.core.memory.search.vectors import index_type
from engram.core.memory.search.vectors.index import VectorIndex
from engram.core.settings import Settings
from engram.core.storage import open_database
from engram.core.storage.postgres import is_server_url, redacted

BATCH = 5000             # rows per committed batch: about 0.1-0.3 s each, so a crash redoes little
VECTOR_BATCH = 4096      # vectors per committed batch
_IN = 900                # ids per IN (...) list (under every engine's limit on parameters)
MARKER = "data_copied_from"
ROWID = "rowid"

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]   # (what, done, total)


@dataclass(frozen=True)
class Table:
    """A table copied as is. ``key``: the integer column it is copied in order of, in batches
    (None: copied whole); ``later``: columns written as NULL first and set once the whole table
    is there (a memory superseded by a newer one points forward)."""

    name: str
    key: str | None = "id"
    later: tuple[str, ...] = ()


# In the order references need: a turn's messages, a chunk's memory, a distillation's session exist first.
TABLES = (
    Table("embedding_models"),
    Table("sessions", key=None),
    Table("messages"),
    Table("turns"),
    Table("distilled", key=None),
    Table("outbox"),
    Table("preferences", key=None),
    Table("memories", later=("superseded_by",)),
    Table("memory_history"),
    Table("devices", key=None),
    Table("session_files", key=None),
    Table("session_file_chunks", key="memory_id"),
    Table("chat_settings", key=None),
    Table("forks"),
)


@dataclass(frozen=True)
class Count:
    """Rows of one table (or one model's vectors) in the source and in the target."""

    what: str
    source: int
    target: int

    @property
    def same(self) -> bool:
        return self.source == self.target


def current_location(data_dir: str | os.PathLike | None = None, database_url: str | None = None,
                     config_dir: str | os.PathLike | None = None) -> str | Path:
    """The database Engram opens: a server's URL (``--database-url``, ``ENGRAM_DATABASE_URL``,
    the ``database_url`` setting, in that order), else the data folder's SQLite file."""
    settings = Settings.load(config_dir)
    if url := paths.database_url(database_url, settings.database_url):
        return url
    return paths.data_dir(data_dir or settings.data_dir or None) / paths.DATABASE_FILE


def target_location(to: str) -> str | Path:
    """``--to`` as a location: a server's URL, or a SQLite file (a folder means its engram.db)."""
    if is_server_url(to):
        return to
    path = Path(to).expanduser().resolve()
    return path / paths.DATABASE_FILE if path.is_dir() else path


def described(location: str | Path) -> str:
    """A location as it may be shown and stored: a URL without its password, a file's full path."""
    return redacted(location) if isinstance(location, str) else str(Path(location).resolve())


@dataclass(frozen=True)
class TargetState:
    """What a database offers as a target: its engine's version, the tables that hold data, and
    the source it holds a copy of (finished or not), if any."""

    version: str
    holding: tuple[str, ...]
    copied_from: str | None

    @property
    def ready(self) -> bool:
        """Whether a copy may go there: empty, or part-way through a copy (which goes on)."""
        return not self.holding or self.copied_from is not None


def check_target(location: str | Path) -> TargetState:
    """Connect to ``location`` (made and brought to Engram's schema if new) and say what it holds;
    raises DatabaseError when it cannot be reached."""
    db = open_database(location)
    try:
        (version,) = db.query("SELECT version()" if db.dialect == "postgresql" else
                              "SELECT 'SQLite ' || sqlite_version()")[0]
        holding = tuple(t.name for t in TABLES if db.query_one(f"SELECT 1 FROM {t.name} LIMIT 1"))
        copied_from = _columns(db, MARKER) and db.query_one(f"SELECT source FROM {MARKER}")
        return TargetState(version.split(" on ")[0], holding, copied_from[0] if copied_from else None)
    finally:
        db.close()


def migrate_data(source: str | Path, target: str | Path, progress: Progress | None = None) -> list[Count]:
    """Copy everything in ``source`` to ``target`` (see the module's docstring); returns the
    counts, all equal. Raises DatabaseError when the target holds other data or a count differs."""
    if described(source) == described(target):
        raise InvalidInput("the target is the database Engram uses now", hint="name another database")
    src = open_database(source)
    try:
        dst = open_database(target)
        try:
            return _copy(src, dst, described(source), progress or (lambda what, done, total: None))
        finally:
            dst.close()
    finally:
        src.close()


def _copy(src, dst, source_name: str, progress: Progress) -> list[Count]:
    _claim(dst, source_name)
    for table in TABLES:
        _copy_table(src, dst, table, progress)
    models = src.query("SELECT id, name, fingerprint, dimensions FROM embedding_models ORDER BY id")
    for model_id, name, fingerprint, dimensions in models:
        _copy_vectors(src, dst, model_id, name, fingerprint, dimensions, progress)
    _index_words(dst, source_name, progress)
    with dst.transaction() as conn:
        for table in TABLES:
            _ids_follow(dst, conn, table.name, _ids_given(src, table) if table.key == "id" else 0)
    counts = _counts(src, dst, models)
    wrong = [c for c in counts if not c.same]
    if wrong:
        raise DatabaseError(
            "the copy differs from the source: " + ", ".join(f"{c.what} {c.target} of {c.source}" for c in wrong),
            hint="was Engram in use meanwhile? Close it, empty or remove the target, and copy again")
    dst.execute(f"UPDATE {MARKER} SET finished_at = ? WHERE source = ?", (now_iso(), source_name))
    return counts


def _claim(dst, source_name: str) -> None:
    """Record that the target is being filled from ``source_name``; refuse a target that holds
    anything else (another store, or the copy of another one)."""
    with dst.transaction() as conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {MARKER} ("
                     " source TEXT PRIMARY KEY, started_at TEXT NOT NULL, words_through BIGINT NOT NULL DEFAULT 0,"
                     " finished_at TEXT)")
        sources = [s for (s,) in conn.execute(f"SELECT source FROM {MARKER}").fetchall()]
        if sources and sources != [source_name]:
            raise DatabaseError(f"the target holds a copy of another database ({sources[0]})",
                                hint="copy into a new, empty database")
        if not sources:
            full = [t.name for t in TABLES if conn.execute(f"SELECT 1 FROM {t.name} LIMIT 1").fetchone()]
            if full:
                raise DatabaseError(f"the target already holds data ({', '.join(full)}): Engram copies only"
                                    " into an empty database, so that two stores are never mixed",
                                    hint="create a new database (or choose a new file) and copy into that")
            conn.execute(f"INSERT INTO {MARKER}(source, started_at) VALUES (?, ?)", (source_name, now_iso()))


def _copy_table(src, dst, table: Table, progress: Progress) -> None:
    there = _columns(dst, table.name)
    # A table's rowid (SQLite's own, PostgreSQL's column of that name) keeps the order rows were
    # made in: copied where both sides have one.
    columns = [c for c in _columns(src, table.name) if c in there]
    if missing := [c for c in _columns(src, table.name) if c not in there and c != ROWID]:
        raise DatabaseError(f"the target's {table.name} lacks {', '.join(missing)}: it is an older Engram's",
                            hint="update Engram where the target is used, or copy into a new database")
    total = src.query_one(f"SELECT count(*) FROM {table.name}")[0]
    listed = ", ".join(columns)
    later = [columns.index(c) for c in table.later]
    if table.key is None:
        if dst.query_one(f"SELECT count(*) FROM {table.name}")[0] == 0:
            with dst.transaction() as conn:
                _insert(dst, conn, table.name, columns, src.query(f"SELECT {listed} FROM {table.name}"))
        progress(table.name, total, total)
        return
    key = table.key
    last = dst.query_one(f"SELECT max({key}) FROM {table.name}")[0]
    done = dst.query_one(f"SELECT count(*) FROM {table.name}")[0]
    while True:
        # Whole groups of one key per batch (a memory's chunks), so that the largest key in the
        # target always means "everything up to here is copied".
        since = "" if last is None else f" WHERE {key} > ?"
        args = () if last is None else (last,)
        upper = src.query_one(f"SELECT {key} FROM {table.name}{since} ORDER BY {key} LIMIT 1 OFFSET ?",
                              (*args, BATCH - 1))
        upper = None if upper is None else upper[0]
        until = "" if upper is None else (" AND " if since else " WHERE ") + f"{key} <= ?"
        rows = src.query(f"SELECT {listed} FROM {table.name}{since}{until} ORDER BY {key}",
                         (*args, *(() if upper is None else (upper,))))
        if not rows:
            break
        if later:
            rows = [tuple(None if i in later else v for i, v in enumerate(row)) for row in rows]
        with dst.transaction() as conn:
            _insert(dst, conn, table.name, columns, rows)
        last, done = rows[-1][columns.index(key)], done + len(rows)
        progress(table.name, done, total)
        if upper is None:
            break
    for column in table.later:   # few rows; setting them again changes nothing
        pointing = src.query(f"SELECT {column}, id FROM {table.name} WHERE {column} IS NOT NULL")
        with dst.transaction() as conn:
            conn.executemany(f"UPDATE {table.name} SET {column} = ? WHERE id = ?", pointing)


def _copy_vectors(src, dst, model_id: int, name: str, fingerprint: str, dimensions: int,
                  progress: Progress) -> None:
    """One embedding model's vectors, with the scope and kind of their memories in the target. The
    memories that have no vector in the target yet say what is left (after a crash, the rest)."""
    source, target = _vector_index(src, name, fingerprint, dimensions), _vector_index(dst, name, fingerprint, dimensions)
    if target.model_id != model_id:
        raise DatabaseError(f"the target numbers the embedding model {name} {target.model_id}, not {model_id}")
    total = source.count()
    left = {row[0] for row in target.missing(total + 1)}
    what, done = f"vectors ({name})", total - len(left)
    # pgvector builds its graph once over all rows at the end: many times faster than row by row.
    with getattr(target, "loading", nullcontext)():
        for ids, vectors in source.each(VECTOR_BATCH):
            keep = np.fromiter((int(i) in left for i in ids), bool, len(ids))
            if not keep.any():
                continue
            ids, vectors = ids[keep], vectors[keep]
            owners = _scopes(dst, ids.tolist())
            rows = [(int(i), *owners[int(i)]) for i in ids if int(i) in owners]
            present = np.array([int(i) in owners for i in ids], bool)
            with dst.transaction() as conn:
                target.put(conn, rows, vectors[present])
            left.difference_update(ids.tolist())
            done += len(rows)
            progress(what, done, total)
    progress(what, total - len(left), total)


def _vector_index(db, name: str, fingerprint: str, dimensions: int) -> VectorIndex:
    """The database's index of one model's vectors."""
    return index_type(db)(db, name, fingerprint, dimensions)


def _scopes(db, ids: list[int]) -> dict[int, tuple[Scope, str]]:
    """Each memory's (scope, kind), for the vector rows of those ids."""
    found = {}
    for start in range(0, len(ids), _IN):
        part = ids[start:start + _IN]
        for memory_id, application, agent, user, session, kind in db.query(
                "SELECT id, application, agent, user, session, kind FROM memories"
                f" WHERE id IN ({', '.join('?' * len(part))})", part):
            found[memory_id] = (Scope(application, agent, user, session), kind)
    return found


def _index_words(db, source_name: str, progress: Progress) -> None:
    """Index every memory's words on the target, with the target's own word-index code. SQLite
    makes each user's FTS5 table from all of their memories at once (one transaction per user, so
    a user is done or not); PostgreSQL indexes the memories it is given, here in id order in
    batches that commit with how far they came."""
    index = words.for_database(db)
    if db.dialect == "sqlite":
        users = [u for (u,) in db.query("SELECT DISTINCT user FROM memories ORDER BY user")]
        for done, user in enumerate(users, 1):
            index.warm(db, user)
            progress("word indexes", done, len(users))
        return
    through = db.query_one(f"SELECT words_through FROM {MARKER} WHERE source = ?", (source_name,))[0]
    total = db.query_one("SELECT count(*) FROM memories")[0]
    done = db.query_one("SELECT count(*) FROM memories WHERE id <= ?", (through,))[0]
    while rows := db.query("SELECT id, user, text FROM memories WHERE id > ? ORDER BY id LIMIT ?", (through, BATCH)):
        with db.transaction() as conn:
            index.index(conn, rows)
            conn.execute(f"UPDATE {MARKER} SET words_through = ? WHERE source = ?", (rows[-1][0], source_name))
        through, done = rows[-1][0], done + len(rows)
        progress("word index", done, total)


def _insert(db, conn, table: str, columns: list[str], rows: list[tuple]) -> None:
    """Write rows into the target's table, inside the caller's transaction. PostgreSQL takes them
    through COPY: one stream instead of a statement per row (about 5x faster)."""
    if db.dialect == "postgresql":
        quoted = ", ".join('"' + c + '"' for c in columns)    # "user" is a reserved word there
        with conn.raw.cursor().copy(f"COPY {table} ({quoted}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        conn.executemany(f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)


def _columns(db, table: str) -> list[str]:
    """The table's columns, in order (none: no such table); on SQLite with its rowid when no
    INTEGER PRIMARY KEY names it."""
    if db.dialect == "postgresql":
        return [c for (c,) in db.query(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = ? ORDER BY ordinal_position", (table,))]
    info = db.query("SELECT name, type, pk FROM pragma_table_info(?)", (table,))
    keys = [kind.upper() for _, kind, pk in info if pk]
    return [name for name, _, _ in info] + ([] if not info or keys == ["INTEGER"] else [ROWID])


def _ids_given(db, table: Table) -> int:
    """The largest id ``table`` gave out, to a row since deleted too: a forgotten memory's id, which
    its history still names, must not be given to a new memory on the target either."""
    latest = db.query_one(f"SELECT coalesce(max(id), 0) FROM {table.name}")[0]
    if db.dialect == "postgresql":
        counter = db.query_one("SELECT pg_sequence_last_value(pg_get_serial_sequence(?, 'id'))", (table.name,))
    else:
        counter = db.query_one("SELECT seq FROM sqlite_sequence WHERE name = ?", (table.name,))
    return max(latest, counter[0] if counter and counter[0] else 0)


def _ids_follow(db, conn, table: str, given: int) -> None:
    """New rows of the target get ids past the copied ones and past ``given``, the source's
    largest. PostgreSQL's identity columns draw from sequences that the copied ids did not move;
    SQLite's AUTOINCREMENT counters (sqlite_sequence) follow the copied ids by themselves."""
    if db.dialect == "postgresql":
        for (column,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = ? AND is_identity = 'YES'", (table,)).fetchall():
            # Marked as given out (is_called), so that a copy made from this one reads it back.
            conn.execute(f"SELECT setval(pg_get_serial_sequence(?, ?), greatest(high, 1), high > 0) FROM"
                         f" (SELECT greatest(?, coalesce(max({column}), 0)) AS high FROM {table}) ids",
                         (table, column, given if column == "id" else 0))
    elif given:
        conn.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (given, table))
        conn.execute("INSERT INTO sqlite_sequence(name, seq) SELECT ?, ? WHERE NOT EXISTS"
                     " (SELECT 1 FROM sqlite_sequence WHERE name = ?)", (table, given, table))


def _counts(src, dst, models: list[tuple]) -> list[Count]:
    counts = [Count(t.name, *(db.query_one(f"SELECT count(*) FROM {t.name}")[0] for db in (src, dst)))
              for t in TABLES]
    for _, name, fingerprint, dimensions in models:
        counts.append(Count(f"vectors ({name})", *(_vector_index(db, name, fingerprint, dimensions).count()
                                                   for db in (src, dst))))
    return counts
