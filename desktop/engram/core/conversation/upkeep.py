"""Upkeep of the database file, done after a change and again by the outbox until it succeeds.

Forgetting and deleting a session both leave old pages in SQLite's write-ahead log: emptying it
(``empty_log``) is the last step of each. The facade (app.py) registers the outbox job and
forgetting (forget.py) calls it, so both import it from here rather than from each other.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from engram.core.errors import DataDirError

if TYPE_CHECKING:
    from engram.core.conversation.outbox import Outbox
    from engram.core.storage.database import Database

LOG_WAIT_SECONDS = 10.0          # how long to wait for other processes' reads before leaving it to the outbox
EMPTY_LOG_JOB = "empty_log"


def release_log(db: "Database", wait: float | None = None) -> bool:
    """Copy the write-ahead log into the database and truncate it to nothing, so that the pages
    that held forgotten text before the change are gone from the ``-wal`` file too. A checkpoint
    cannot pass a read that another process has open; SQLite waits for it (the busy timeout) and
    this tries again until ``wait`` has passed. Returns whether the log is empty now (False: another
    process kept a read open the whole time)."""
    if db.path is None:
        return True
    deadline = time.monotonic() + (LOG_WAIT_SECONDS if wait is None else wait)
    while True:
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def empty_log(db: "Database", outbox: "Outbox") -> bool:
    """``release_log``; when another process keeps reading, the outbox job EMPTY_LOG_JOB does it
    later, in whichever Engram process runs its outbox first (the window's, or the next command's),
    retried with backoff until the reads let it. Returns whether the log is empty now."""
    if release_log(db):
        return True
    outbox.enqueue(EMPTY_LOG_JOB, {}, unique=True)
    return False


def empty_log_job(db: "Database"):
    """The outbox handler: empty the log, or fail, to be tried again."""
    def run(payload: dict) -> None:
        if not release_log(db):
            raise DataDirError("another program kept reading the database: its write-ahead log still holds"
                               " forgotten text", hint="it is tried again; closing other Engram windows helps")
    return run
