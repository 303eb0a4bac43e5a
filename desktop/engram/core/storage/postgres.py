"""The same store on a PostgreSQL server (psycopg 3, pgvector), for people who outgrow one machine.

``PostgresDatabase`` offers what ``Database`` (SQLite) offers: ``transaction``, ``snapshot``,
``execute``/``query``/``query_one``, ``change_stamp``, ``schema_version``. Repositories keep
writing their SQL once, in the dialect both engines share; what differs is said here once:

- placeholders: ``?`` becomes ``%s``, and every ``%`` becomes ``%%``, in string literals too
  (psycopg reads percent signs everywhere; statements always go with parameters, so it always does);
- ``user`` is a column of ours but a reserved word of PostgreSQL (``SELECT user`` is the
  server's login name, silently): a bare ``user`` becomes ``"user"``.

What cannot be written once (word and vector search, JSON lists of ids, upserts that replace) is
chosen by ``dialect`` in the modules that need it.

Connections come from a pool (psycopg_pool): a transaction holds one for its thread, so two
threads' transactions run side by side as two sessions of the server, and a read outside a
transaction borrows one for that read only.

Other Engram instances on the same database (other devices, other windows) are followed with
LISTEN/NOTIFY: a transaction that wrote sends ``pg_notify`` before it commits (PostgreSQL delivers
it on commit, and never for a rollback), and ``ChangeListener`` counts the ones others sent. So
``change_stamp`` is (this instance's writes, others' commits seen), as SQLite's is, and whatever
is cached on it (counts, the in-memory copy of vectors) is read again after anyone's commit.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg_pool

from engram.core.errors import DatabaseError
from engram.core.storage.changes import ChangeFeed
from engram.core.storage.migrations import pending
from engram.core.storage.postgres_migrations import MIGRATIONS

log = logging.getLogger(__name__)
POOL_SIZE = 8
CONNECT_TIMEOUT_S = 10
CHANNEL = "engram_changes"      # every instance's commits; the payload is the writer's token
LISTEN_WAIT_S = 30              # the listener looks up from waiting at least this often
RECONNECT_S = (0.2, 0.5, 1, 2, 5)   # waits between tries after the server went away (the last repeats)
# What a statement's status says it did: rows written (counted), or the schema changed.
_ROW_WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "MERGE", "COPY"})
_SCHEMA_WRITES = frozenset({"CREATE", "ALTER", "DROP", "TRUNCATE"})

# One SQLite-style statement: string literals and quoted names pass unchanged, the rest is scanned
# for placeholders, percent signs and the bare word user.
_TOKENS = re.compile(r"""('(?:[^']|'')*')|("(?:[^"]|"")*")|(\?)|(%)|(?<![\w."])(user)(?![\w"])""",
                     re.IGNORECASE)


@lru_cache(maxsize=4096)
def translated(sql: str) -> str:
    """``sql`` as PostgreSQL reads it (see the module's docstring)."""
    def replace(match: re.Match) -> str:
        literal, quoted, placeholder, percent, user = match.groups()
        if placeholder:
            return "%s"
        if percent:
            return "%%"
        if user:
            return '"user"'
        return literal.replace("%", "%%") if literal else quoted
    return _TOKENS.sub(replace, sql)


def redacted(url: str) -> str:
    """The URL with its password replaced by ``***``: safe to log and to print in ``doctor``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def is_server_url(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


class Connection:
    """One pooled server session inside a transaction, with the calls repositories make on
    apsw's connection: ``execute``, ``executemany``, ``last_insert_rowid``, ``total_changes``."""

    def __init__(self, raw: psycopg.Connection, wrote: Callable[[], None] = lambda: None):
        self.raw = raw
        self._changes = 0
        self._wrote = wrote
        self.changed = False    # whether anything was written: then others are told at commit

    def execute(self, sql: str, params: Sequence[Any] | dict = ()) -> psycopg.Cursor:
        cursor = self.raw.execute(translated(sql), params)
        verb = (cursor.statusmessage or "").partition(" ")[0]
        if verb in _ROW_WRITES and cursor.rowcount > 0:
            self._changed(cursor.rowcount)
        elif verb in _SCHEMA_WRITES:
            self._changed(0)
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(translated(sql), rows)
            if cursor.rowcount > 0:
                self._changed(cursor.rowcount)

    def _changed(self, rows: int) -> None:
        self._changes += rows
        self.changed = True
        self._wrote()

    def last_insert_rowid(self) -> int:
        """The id the last INSERT of this session generated (identity columns draw from sequences)."""
        return self.raw.execute("SELECT lastval()").fetchone()[0]

    def total_changes(self) -> int:
        return self._changes

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE


class Rows:
    """What a statement run outside a transaction returned, read before its connection went back
    to the pool: iterable, with ``fetchone`` and ``fetchall`` as a cursor has."""

    def __init__(self, rows: list[tuple]):
        self._rows = rows
        self._at = 0

    def __iter__(self) -> Iterator[tuple]:
        while (row := self.fetchone()) is not None:
            yield row

    def fetchone(self) -> tuple | None:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[tuple]:
        rows, self._at = self._rows[self._at:], len(self._rows)
        return rows


class ChangeListener:
    """A connection of its own that LISTENs for other instances' commits and calls ``heard()``
    for each, from a daemon thread. When the server goes away (a restart, a dropped network) it
    connects again, and calls ``heard()`` once more: what was committed meanwhile was not told."""

    def __init__(self, url: str, token: str, heard: Callable[[], None], connect_timeout_s: int):
        self.url, self.token, self.heard, self.connect_timeout_s = url, token, heard, connect_timeout_s
        self._wake = f"engram_wake_{token}"      # close() wakes the thread through it
        self._stopped = threading.Event()
        self._conn: psycopg.Connection | None = self._connect()   # listening before the first commit
        self._thread = threading.Thread(target=self._run, name="engram-listener", daemon=True)
        self._thread.start()

    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=self.connect_timeout_s)
        conn.execute(f"LISTEN {CHANNEL}")
        conn.execute(f"LISTEN {self._wake}")
        return conn

    def _run(self) -> None:
        tries = 0
        while not self._stopped.is_set():
            try:
                if self._conn is None:
                    self._conn = self._connect()
                    tries = 0
                    self.heard()     # commits made while nobody listened
                for note in self._conn.notifies(timeout=LISTEN_WAIT_S):
                    if self._stopped.is_set():
                        break
                    if note.channel == CHANNEL and note.payload != self.token:
                        self.heard()
            except psycopg.Error as e:
                if self._conn is not None:
                    log.warning("lost the PostgreSQL server's change notifications (%s); reconnecting", e)
                    self._conn.close()
                    self._conn = None
                self._stopped.wait(RECONNECT_S[min(tries, len(RECONNECT_S) - 1)])
                tries += 1
        if self._conn is not None:
            self._conn.close()

    def stop(self, pool: psycopg_pool.ConnectionPool) -> None:
        """Stop listening: the thread is woken by a notification only it listens to."""
        self._stopped.set()
        try:
            with pool.connection(timeout=1) as conn:
                conn.execute("SELECT pg_notify(%s, '')", (self._wake,))
        except (psycopg.Error, psycopg_pool.PoolTimeout):
            pass      # the server is gone: the thread is between tries, and sees the flag
        self._thread.join(timeout=2)


class PostgresDatabase:
    """The store on a PostgreSQL server with pgvector: same calls as ``Database``."""

    dialect = "postgresql"
    path = None   # no file: a server

    def __init__(self, url: str, *, connect_timeout_s: int | None = None):
        """``connect_timeout_s``: how long to wait for the server; by default the URL's own
        ``connect_timeout`` (libpq's parameter, e.g. ``?connect_timeout=3``), else 10 s."""
        self.url = url
        self._local = threading.local()
        self._token = uuid.uuid4().hex     # tells this instance's notifications from others'
        self._writes = 0                   # statements that wrote, and ends of transactions that did
        self._heard = 0                    # commits by other instances
        self._counting = threading.Lock()
        self._changes = ChangeFeed()
        try:
            connect_timeout_s = connect_timeout_s or int(
                psycopg.conninfo.conninfo_to_dict(url).get("connect_timeout") or CONNECT_TIMEOUT_S)
            # One connection first: the pool retries quietly until its timeout and then says only
            # that it timed out; this one says why (no such host, a wrong or missing password).
            psycopg.connect(url, connect_timeout=connect_timeout_s).close()
            self._pool = psycopg_pool.ConnectionPool(
                url, min_size=1, max_size=POOL_SIZE, open=True, timeout=connect_timeout_s,
                kwargs={"autocommit": True, "connect_timeout": connect_timeout_s})
            self._pool.wait(timeout=connect_timeout_s)
            self._listener = ChangeListener(url, self._token, self._heard_commit, connect_timeout_s)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as e:
            if "password" in str(e):
                raise DatabaseError(f"the PostgreSQL server at {redacted(url)} refused the login: {e}",
                                    hint="give the login's password in ~/.pgpass (where Settings → Data keeps"
                                         " it), in PGPASSWORD, or in the URL") from None
            raise DatabaseError(f"cannot reach the PostgreSQL server at {redacted(url)}: {e}",
                                hint="check the server is running and the URL (database_url,"
                                     " ENGRAM_DATABASE_URL or --database-url)") from None
        self._migrate()

    def _migrate(self) -> None:
        with self.transaction() as conn:
            # One Engram at a time migrates (others wait here, then find nothing left to do).
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('engram.migrations'))")
            # On the raw session: finding the table there is no change to tell other instances.
            conn.raw.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                             " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                             " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            done = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
            for migration in pending(MIGRATIONS, done, hint="update Engram, or point it at another database"):
                conn.raw.execute(migration.sql)
                conn.execute("INSERT INTO schema_migrations(version, name) VALUES (?, ?)",
                             (migration.version, migration.name))

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """All statements inside commit together or not at all; inner ones are savepoints."""
        held: Connection | None = getattr(self._local, "conn", None)
        if held is not None:
            with held.raw.transaction():
                yield held
            return
        with self._pool.connection() as raw:
            try:
                with self._told(raw) as conn:
                    self._local.conn = conn
                    yield conn
            finally:
                self._local.conn = None

    @contextmanager
    def _told(self, raw: psycopg.Connection) -> Iterator[Connection]:
        """A transaction on ``raw`` whose writes other instances are told of when it commits."""
        conn = Connection(raw, self._wrote)
        try:
            with raw.transaction():
                yield conn
                if conn.changed:    # delivered to the listeners on commit, never on rollback
                    raw.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self._token))
        finally:
            if conn.changed:        # committed or rolled back: what was read inside is stale
                self._wrote()

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read-only transaction that sees one consistent state (REPEATABLE READ) while writes go on."""
        with self._pool.connection() as raw:
            with raw.transaction():
                raw.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield Connection(raw)

    @contextmanager
    def pipelined(self) -> Iterator[Connection]:
        """A transaction for reading whose statements go to the server without waiting for one
        another (psycopg's pipeline mode): BEGIN, and what is sent before rows are read, travel
        together in one round trip (a search's settings, then its query). Only for reads: a
        statement's status is known only once rows are read, so writes would go untold. Inside
        the thread's transaction, a savepoint of it, as ``transaction``'s."""
        if getattr(self._local, "conn", None) is not None:
            with self.transaction() as savepoint:
                yield savepoint
            return
        with self._pool.connection() as raw:
            try:
                with raw.pipeline():    # not raw.transaction(), which waits for the server at BEGIN and at COMMIT
                    raw.execute("BEGIN")
                    yield Connection(raw)
                    raw.execute("COMMIT")
            finally:
                if raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:   # it failed
                    raw.execute("ROLLBACK")

    @contextmanager
    def detached_transaction(self) -> Iterator[Connection]:
        """A transaction on a server session of its own, apart from the thread's: a worker holds a
        claim's row locks in it (the outbox) while the work it claimed commits in transactions of
        their own."""
        with self._pool.connection() as raw, self._told(raw) as conn:
            yield conn

    @contextmanager
    def session(self) -> Iterator[psycopg.Connection]:
        """A server session of its own outside any transaction, for the statements that refuse to
        run in one (``CREATE INDEX CONCURRENTLY``); psycopg's own connection, placeholders ``%s``."""
        with self._pool.connection() as raw:
            yield raw

    def in_transaction_here(self) -> bool:
        return getattr(self._local, "conn", None) is not None

    def execute(self, sql: str, params: Sequence[Any] | dict = ()) -> Rows:
        with self.transaction() as conn:
            cursor = conn.execute(sql, params)
            return Rows(cursor.fetchall() if cursor.description is not None else [])

    def query(self, sql: str, params: Sequence[Any] | dict = ()) -> list[tuple]:
        held: Connection | None = getattr(self._local, "conn", None)
        if held is not None:
            return held.execute(sql, params).fetchall()
        with self._pool.connection() as raw:
            return raw.execute(translated(sql), params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] | dict = ()) -> tuple | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def change_stamp(self) -> tuple[int, int]:
        """Writes by this instance and commits by others seen so far: equal stamps mean nothing
        was written in between, so what was read from the database still holds. Both counts move
        after the commit is visible, so a read made under the new stamp sees it."""
        with self._counting:
            return self._writes, self._heard

    def _wrote(self) -> None:
        with self._counting:
            self._writes += 1

    def _heard_commit(self) -> None:
        with self._counting:
            self._heard += 1
        self._changes.tell()

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (on the listener's thread) after each commit by another instance;
        returns an unsubscribe."""
        return self._changes.subscribe(callback)

    def schema_version(self) -> int:
        return self.query_one("SELECT max(version) FROM schema_migrations")[0] or 0

    def close(self) -> None:
        self._listener.stop(self._pool)
        self._pool.close()
