"""A durable queue for work done after a reply (archiving messages, summaries).

A job is written in the same transaction as what it is about (the message), so a crash between
the two is impossible: on the next start the job is still there and runs. A failing job is retried
with exponential backoff; after ``max_attempts`` it is marked failed, counted by ``health()`` (for
``engram doctor`` and the window's memory-health indicator) and rerun by ``retry_failed()``.
Nothing is swallowed: every error is kept in ``last_error``.

Several Engram processes may share one queue (the window, and ``engram import`` in a terminal).
A job queued or taken by a process whose worker runs is that process's (``owner``): the others leave
it to it while it runs, so a window does not embed, beside the importing process, what that process
will embed anyway; once the owner has ended (or crashed), any worker takes the job up. On
PostgreSQL a worker also locks the job's row (``FOR UPDATE SKIP LOCKED``, the others pass it by)
until the job's outcome is recorded, and a worker that dies releases that lock with its connection.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import psutil

from engram.core.storage.database import Database
from engram.core.storage.postgres import PostgresDatabase

log = logging.getLogger(__name__)
STALLED_RETRY_SECONDS = 5.0   # how soon a worker whose database failed tries again
Handler = Callable[[dict], None]


def process_owner(pid: int | None = None) -> str:
    """Who owns the jobs a process's worker queues or takes: its host, id and start time (an id
    alone is given to another process once this one has ended)."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()} {pid} {psutil.Process(pid).create_time():.2f}"


def owner_alive(owner: str) -> bool:
    """Whether the process that owns a job still runs. A process on another machine (a shared
    server) cannot be asked: its jobs are taken up, as they always were, rather than left undone."""
    host, pid, started = owner.rsplit(" ", 2)
    if host != socket.gethostname():
        return False
    try:
        process = psutil.Process(int(pid))
        return f"{process.create_time():.2f}" == started and process.status() != psutil.STATUS_ZOMBIE
    except (psutil.Error, ValueError):
        return False


def _iso(at: datetime) -> str:
    return at.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    payload: dict
    state: str
    attempts: int
    next_attempt_at: str
    last_error: str | None
    created_at: str
    updated_at: str

    COLUMNS = "id, kind, payload, state, attempts, next_attempt_at, last_error, created_at, updated_at"

    @classmethod
    def from_row(cls, row: tuple) -> "Job":
        return cls(row[0], row[1], json.loads(row[2]), *row[3:])

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "payload": self.payload, "state": self.state,
                "attempts": self.attempts, "next_attempt_at": self.next_attempt_at, "last_error": self.last_error,
                "created_at": self.created_at, "updated_at": self.updated_at}


_DUE = (f"SELECT {Job.COLUMNS}, owner FROM outbox WHERE state = 'pending' AND next_attempt_at <= ?{{others}}"
        " ORDER BY next_attempt_at, id LIMIT 1")     # the next job due, but those of ``others``


@dataclass(frozen=True)
class OutboxHealth:
    pending: int
    failed: int
    retrying: int                                   # pending jobs that have failed at least once
    errors: list[Job] = field(default_factory=list)  # failed or retrying jobs, newest first
    stalled: str = ""                               # why this process's worker cannot go on, if so

    @property
    def ok(self) -> bool:
        return self.failed == 0 and not self.stalled

    def to_json(self) -> dict:
        return {"pending": self.pending, "failed": self.failed, "retrying": self.retrying, "ok": self.ok,
                "stalled": self.stalled, "errors": [j.to_json() for j in self.errors]}


class Outbox:
    def __init__(self, db: Database | PostgresDatabase, handlers: dict[str, Handler] | None = None, *, max_attempts: int = 5,
                 base_delay: float = 2.0, max_delay: float = 600.0,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        self.db = db
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.now = now
        self._running = threading.Lock()    # one job at a time in this process
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.owner = process_owner()
        self.stalled = ""    # set while the worker cannot record its work (e.g. a full disk)

    # -- queueing ------------------------------------------------------------------------------

    def enqueue(self, kind: str, payload: dict, conn=None, *, unique: bool = False) -> int | None:
        """Queue a job; pass ``conn`` to make it part of the caller's transaction. With ``unique``,
        an identical pending job is not queued twice (returns None). While this process's worker
        runs, the job is its own: other processes leave it to this one."""
        if conn is None:
            with self.db.transaction() as own:
                job_id = self.enqueue(kind, payload, own, unique=unique)
            self._wake.set()
            return job_id
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
        if unique and conn.execute("SELECT 1 FROM outbox WHERE kind = ? AND payload = ? AND state = 'pending'",
                                   (kind, text)).fetchone():
            return None
        at = _iso(self.now())
        conn.execute("INSERT INTO outbox(kind, payload, next_attempt_at, created_at, updated_at, owner)"
                     " VALUES (?,?,?,?,?,?)", (kind, text, at, at, at, self.owner if self.running else None))
        return conn.last_insert_rowid()

    def wake(self) -> None:
        """Tell the worker that a job committed by someone else's transaction is waiting."""
        self._wake.set()

    # -- running -------------------------------------------------------------------------------

    def run_due(self, limit: int | None = None) -> int:
        """Run jobs that are due now, oldest first, on the calling thread; returns how many ran."""
        ran = 0
        with self._running:
            while limit is None or ran < limit:
                with self._claimed() as claim:
                    if claim is None:
                        break
                    self._run(*claim)
                ran += 1
        return ran

    def _others(self) -> tuple[str, list[str]]:
        """SQL that leaves out pending jobs of other processes that still run, and its parameters."""
        owners = [o for (o,) in self.db.query("SELECT DISTINCT owner FROM outbox WHERE state = 'pending'"
                                              " AND owner IS NOT NULL AND owner != ?", (self.owner,))]
        alive = [o for o in owners if owner_alive(o)]
        return (f" AND (owner IS NULL OR owner NOT IN ({','.join('?' * len(alive))}))" if alive else ""), alive

    @contextmanager
    def _claimed(self) -> Iterator[tuple[Job, Any] | None]:
        """The next due job this process may run and where to record its outcome, or None. SQLite
        has one writer and one worker per process (``_running``): the job is made this process's
        (unless another took it first) and its outcome written as any row. On a server the job's row
        stays locked until its outcome is recorded, in a transaction of its own beside the ones its
        handler commits (and so is the job's new owner); other workers skip it."""
        if not isinstance(self.db, PostgresDatabase):
            row = self._take()
            yield None if row is None else (Job.from_row(row), self.db)
            return
        others, alive = self._others()
        with self.db.detached_transaction() as conn:
            row = conn.execute(_DUE.format(others=others) + " FOR UPDATE SKIP LOCKED",
                               (_iso(self.now()), *alive)).fetchone()
            if row is not None and row[-1] != self.owner:
                conn.execute("UPDATE outbox SET owner = ? WHERE id = ?", (self.owner, row[0]))
            yield None if row is None else (Job.from_row(row[:-1]), conn)

    def _take(self) -> tuple | None:
        """The next due job this process may run, made its own (SQLite), or None."""
        while True:
            others, alive = self._others()
            row = self.db.query_one(_DUE.format(others=others), (_iso(self.now()), *alive))
            if row is None or row[-1] == self.owner:
                return None if row is None else row[:-1]
            with self.db.transaction() as conn:      # unless another process took it meanwhile
                if conn.execute("UPDATE outbox SET owner = ? WHERE id = ? AND state = 'pending' AND owner IS ?"
                                " RETURNING id", (self.owner, row[0], row[-1])).fetchall():
                    return row[:-1]

    def _run(self, job: Job, outcome) -> None:
        """Run the job and record how it went through ``outcome`` (what ``_claimed`` gave)."""
        handler = self.handlers.get(job.kind)
        try:
            if handler is None:
                raise LookupError(f"no handler for outbox jobs of kind {job.kind!r}")
            handler(job.payload)
        except Exception as e:  # every failure is recorded and retried, never lost
            attempts = job.attempts + 1
            failed = attempts >= self.max_attempts
            delay = min(self.max_delay, self.base_delay * 2 ** (attempts - 1))
            error = f"{type(e).__name__}: {e}"
            log.warning("outbox job %s (%s) failed, attempt %s: %s", job.id, job.kind, attempts, error)
            outcome.execute("UPDATE outbox SET state = ?, attempts = ?, next_attempt_at = ?, last_error = ?,"
                            " updated_at = ? WHERE id = ?",
                            ("failed" if failed else "pending", attempts,
                             _iso(self.now() + timedelta(seconds=delay)), error, _iso(self.now()), job.id))
            return
        outcome.execute("UPDATE outbox SET state = 'done', attempts = attempts + 1, updated_at = ? WHERE id = ?",
                        (_iso(self.now()), job.id))

    def start(self) -> None:
        """Run jobs on a background thread until ``stop``; jobs left by a crash run first."""
        if self._thread is not None:
            return
        self.prune()
        self._stopping.clear()
        self._thread = threading.Thread(target=self._loop, name="engram-outbox", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                if self.run_due(limit=1):
                    self.stalled = ""
                    continue
                wait = self._seconds_to_next()
                self.stalled = ""
            except Exception as e:  # the database itself failed (e.g. a full disk): say so, try again later
                self.stalled = f"{type(e).__name__}: {e}"
                log.warning("outbox worker stalled: %s", self.stalled)
                wait = STALLED_RETRY_SECONDS
            self._wake.wait(timeout=wait)
            self._wake.clear()

    def _seconds_to_next(self, most: float = 5.0) -> float:
        """How long until a job this process may run is due; at most ``most``, so that jobs left by
        a process that has ended meanwhile are taken up soon."""
        others, alive = self._others()
        row = self.db.query_one(f"SELECT min(next_attempt_at) FROM outbox WHERE state = 'pending'{others}", alive)
        if not row or row[0] is None:
            return most
        due = datetime.fromisoformat(row[0].replace("Z", "+00:00"))
        return max(0.05, min(most, (due - self.now()).total_seconds()))

    @property
    def running(self) -> bool:
        return self._thread is not None

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the worker after the job in hand; unfinished jobs stay queued for next time."""
        if self._thread is None:
            return
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout)
        self._thread = None

    def drain(self, timeout: float = 60.0) -> bool:
        """Run every job that is due, also ones that become due within ``timeout`` seconds after a
        retry; returns whether nothing pending is left, but the jobs of other Engram processes that
        still run (which those do). For the CLI, which exits after one turn."""
        deadline = self.now() + timedelta(seconds=timeout)
        while self.now() < deadline:
            self.run_due()
            if self._pending_here() == 0:
                return True
            time.sleep(max(0.0, min(self._seconds_to_next(), (deadline - self.now()).total_seconds())))
        return self._pending_here() == 0

    def _pending_here(self) -> int:
        """Pending jobs this process may run (not those another running process will)."""
        others, alive = self._others()
        return self.db.query_one(f"SELECT count(*) FROM outbox WHERE state = 'pending'{others}", alive)[0]

    # -- health --------------------------------------------------------------------------------

    def health(self, errors: int = 5) -> OutboxHealth:
        counts = dict(self.db.query("SELECT state, count(*) FROM outbox GROUP BY state"))
        retrying = self.db.query_one("SELECT count(*) FROM outbox WHERE state = 'pending' AND attempts > 0")[0]
        rows = self.db.query(f"SELECT {Job.COLUMNS} FROM outbox WHERE last_error IS NOT NULL AND state != 'done'"
                             " ORDER BY updated_at DESC, id DESC LIMIT ?", (errors,))
        return OutboxHealth(counts.get("pending", 0), counts.get("failed", 0), retrying,
                            [Job.from_row(r) for r in rows], self.stalled)

    def jobs(self, state: str | None = None, limit: int = 100) -> list[Job]:
        sql = f"SELECT {Job.COLUMNS} FROM outbox" + (" WHERE state = ?" if state else "") + " ORDER BY id DESC LIMIT ?"
        return [Job.from_row(r) for r in self.db.query(sql, (state, limit) if state else (limit,))]

    def prune(self, keep_days: float = 7.0) -> int:
        """Forget finished jobs older than ``keep_days``; failed and pending ones always stay."""
        with self.db.transaction() as conn:
            return len(conn.execute("DELETE FROM outbox WHERE state = 'done' AND updated_at < ? RETURNING id",
                                    (_iso(self.now() - timedelta(days=keep_days)),)).fetchall())

    def retry_failed(self) -> int:
        """Queue every failed job again, from a fresh count of attempts; returns how many."""
        at = _iso(self.now())
        with self.db.transaction() as conn:
            count = len(conn.execute("UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?,"
                                     " updated_at = ? WHERE state = 'failed' RETURNING id", (at, at)).fetchall())
        self._wake.set()
        return count
