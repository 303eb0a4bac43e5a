"""Being told that another process committed to the database, without asking it again and again.

Several Engram instances may share one database (two windows on one SQLite file, or devices on
one PostgreSQL server). Each caches what it read until ``change_stamp`` moves; a window also wants
to redraw its lists when another instance wrote. ``ChangeFeed`` holds the callbacks, which each
backend calls from a thread of its own when it learns of another's commit: PostgreSQL from its
LISTEN connection (postgres.py), SQLite from ``DataVersionWatch`` below, a cheap read of
``PRAGMA data_version`` twice a second (SQLite has no notification between processes).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)
POLL_S = 0.5


class ChangeFeed:
    """Callbacks to call when another process committed. They run on the backend's own thread:
    they must return quickly (a window hands the news to its GUI thread and returns)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` after each commit by another process; returns an unsubscribe."""
        with self._lock:
            self._callbacks.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)
        return unsubscribe

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def tell(self) -> None:
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback()
            except Exception:     # one subscriber's bug must not silence the others
                log.exception("a change subscriber failed")


class DataVersionWatch:
    """Tells a feed when another connection committed to a SQLite file: ``read()`` returns the
    file's ``PRAGMA data_version``, which only others' commits move. Runs from the first
    subscriber until ``stop``."""

    def __init__(self, read: Callable[[], int], feed: ChangeFeed):
        self._read, self._feed = read, feed
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            seen = self._read()     # before returning: a commit right after is told
            self._thread = threading.Thread(target=self._run, args=(seen,), name="engram-data-version",
                                            daemon=True)
            self._thread.start()

    def _run(self, seen: int) -> None:
        while not self._stopped.wait(POLL_S):
            try:
                version = self._read()
            except Exception:     # closed meanwhile, or the disk failed: the next read says more
                log.debug("reading data_version failed", exc_info=True)
                continue
            if version != seen:
                seen = version
                self._feed.tell()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2 * POLL_S)
