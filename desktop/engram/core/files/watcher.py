"""Watches the session folders while Engram runs and keeps the file index in step with them.

watchdog reports creates, edits, deletes and moves (an editor's save is often "write a temp
file, rename it over the old one": a move whose destination is the file). Reports are debounced
per file: a burst of events for one file is indexed once, ``debounce`` seconds after the last.
Indexing runs on one worker thread, one file at a time, the one changed last first; a folder to
rescan (at start, or moved) becomes its files, queued behind what changes later, and memories.md
(written by the index after each file) comes last. Whatever goes wrong with one file becomes that
file's status, and nothing stops the watcher. The app's own writes arrive here too and are recognised
by content hash in ``FileIndex.sync_file`` (nothing is done twice).

A folder that leaves the tree (a deleted session's, moved to the trash) is reported as deleted,
and watchdog's inotify watch keeps following it: later changes in the trash arrive under its old
path. The index ignores folders without a session, so such reports change nothing and never
re-create the folder.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from engram.core.files.index import FileIndex
from engram.core.files.names import INDEX_NAME

log = logging.getLogger(__name__)
WHOLE_FOLDER = ""    # a pending key's name for "rescan the folder" (a folder moved, deleted or created)


class FolderWatcher(FileSystemEventHandler):
    def __init__(self, index: FileIndex, debounce: float = 0.1):
        self.index = index
        self.root = index.root
        self.debounce = debounce
        self._pending: dict[tuple[str, str], float] = {}
        self._wake = threading.Condition()
        self._stopping = False
        self._observer: BaseObserver | None = None
        self._worker: threading.Thread | None = None
        self._busy = False
        self.errors = 0
        self.problem = ""    # the last failure to index, until indexing works again (the window shows it)

    # -- life cycle ----------------------------------------------------------------------------

    def start(self, catch_up: bool = True) -> "FolderWatcher":
        """Watch from now on; with ``catch_up``, first queue every folder so that changes made
        while Engram was closed are indexed too."""
        self.root.mkdir(parents=True, exist_ok=True)
        self._observer = Observer()
        self._observer.schedule(self, str(self.root), recursive=True)
        self._observer.daemon = True
        self._observer.start()
        self._worker = threading.Thread(target=self._run, name="engram-file-watcher", daemon=True)
        self._worker.start()
        if catch_up:
            for folder in self.root.iterdir():
                if folder.is_dir() and not folder.name.startswith("."):
                    self._queue(folder.name, WHOLE_FOLDER)
        return self

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._worker is not None:
            self._worker.join(timeout=30)

    def __enter__(self) -> "FolderWatcher":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def idle(self) -> bool:
        """Nothing waiting to be indexed (tests and the bench poll this)."""
        with self._wake:
            return not self._pending and not self._busy

    # -- watchdog's side -----------------------------------------------------------------------

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write") or (event.is_directory and event.event_type == "modified"):
            return  # a folder's "modified" only echoes a change to a file in it, reported on its own
        paths = [event.src_path] + ([event.dest_path] if getattr(event, "dest_path", "") else [])
        for path in paths:
            where = self._locate(path)
            if where is None:
                continue
            folder, name = where
            if event.is_directory or not name:
                self._queue(folder, WHOLE_FOLDER)
            else:
                self._queue(folder, name)

    def _locate(self, path: str | bytes) -> tuple[str, str] | None:
        """(folder, name inside it) for a path under the root; name '' for the folder itself."""
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return None
        if not parts or parts[0].startswith("."):
            return None
        return parts[0], "/".join(parts[1:])

    def _queue(self, folder: str, name: str) -> None:
        with self._wake:
            self._pending[(folder, name)] = time.monotonic() + self.debounce
            self._wake.notify_all()

    def _queue_behind(self, folder: str, names: list[str]) -> None:
        """Queue a rescan's files, due now but behind every change reported so far (one reported
        already keeps its place)."""
        with self._wake:
            behind = min([time.monotonic(), *self._pending.values()])
            for name in names:
                self._pending.setdefault((folder, name), behind)
            self._wake.notify_all()

    # -- the worker ----------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._stopping and not (due := self._due()):
                    timeout = min(self._pending.values()) - time.monotonic() if self._pending else None
                    self._wake.wait(timeout)
                if self._stopping:
                    return
                key = self._next(due)
                del self._pending[key]
                self._busy = True
            try:
                self._index(*key)
            finally:
                with self._wake:
                    self._busy = False

    def _due(self) -> list[tuple[str, str]]:
        now = time.monotonic()
        return [key for key, at in self._pending.items() if at <= now]

    def _next(self, due: list[tuple[str, str]]) -> tuple[str, str]:
        """One file at a time, the one changed last first (after folders to rescan, before
        memories.md): a file the person edits while thousands dropped in a folder are indexed
        (40 a second) is indexed at once, not after all of them."""
        return min(due, key=lambda key: (key[1] != WHOLE_FOLDER, key[1] == INDEX_NAME, -self._pending[key]))

    def _index(self, folder: str, name: str) -> None:
        try:
            if name == WHOLE_FOLDER:
                self._queue_behind(folder, self.index.rescan(folder))
            else:
                self.index.sync_file(folder, name)
        except Exception as e:  # one file's failure must never stop the watcher
            self.errors += 1
            self.problem = f"{folder}/{'' if name == WHOLE_FOLDER else name}: {e}"
            log.exception("indexing %s/%s failed", folder, name)
        else:
            self.problem = ""
