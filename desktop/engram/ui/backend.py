"""The window's door to engram.core: opens the Engram facade off the GUI thread and runs every
call on a worker, handing results and errors back as signals.

Disk work runs on one thread, in the order asked (a rename is listed after it happened); model work
(a reply, a model load) runs on another, so a streaming reply never holds up the memory list.

Another Engram writing to the same database (a second window, a command, another device on a
server) is told by the database on a thread of its own (``db.on_change``); ``changed_elsewhere``
carries that onto the GUI thread, where the window reads its lists again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from engram.core.memory.sensitive import MASK, mask, mask_error
from engram.ui.workers import Pool, Worker


class Backend(QObject):
    opened = Signal(object)      # the Engram facade, its database open (its embedding_problem: why no embedder)
    failed = Signal(object)      # the facade could not open (e.g. the data folder is not writable)
    error = Signal(object)       # any other call that failed without its own error handler
    changed_elsewhere = Signal()  # another Engram committed to the database (queued to the GUI thread)
    download_changed = Signal(object)   # a DownloadState of the window's queue (queued to the GUI thread)

    def __init__(self, data_dir: str | None = None, opener: Callable | None = None, parent=None):
        super().__init__(parent)
        self.data_dir = data_dir
        self.opener = opener
        self.engram = None
        self.watcher = None
        self._unsubscribe = None     # from the database's news of others' commits
        self.disk_pool = Pool(1)
        self.model_pool = Pool(1)
        self._downloads = None       # the window's DownloadQueue, made on first use

    def open(self) -> None:
        """Open the facade in the background; ``opened`` or ``failed`` follows."""
        self.disk_pool.start(self._open, returned=self._opened, errored=self.failed.emit)

    def _open(self):
        """Open the facade and start watching the session folders (changes made on disk by other
        programs are indexed and reported to the Files tab)."""
        from engram.core.files.watcher import FolderWatcher

        if self.opener is not None:
            engram = self.opener(self.data_dir)
        else:
            from engram.core.app import Engram

            engram = Engram(self.data_dir)
        self.watcher = FolderWatcher(engram.files).start()
        # Emitting only queues the signal: the database's thread never waits for the window.
        self._unsubscribe = engram.db.on_change(self.changed_elsewhere.emit)
        return engram

    def _stop_hearing(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _opened(self, engram) -> None:
        self.engram = engram
        self.opened.emit(engram)

    @property
    def ready(self) -> bool:
        return self.engram is not None

    def masks(self) -> bool:
        """Whether the person chose ``sensitive_details: mask``: then the errors the window shows
        are masked too (logs always are), as what they stored is."""
        return self.engram is not None and self.engram.settings.sensitive_details == MASK

    def masked(self, text: str | None) -> str | None:
        """A text for an error label, masked when the person chose so."""
        return mask(text) if text and self.masks() else text

    def _errored(self, errored: Callable) -> Callable:
        return lambda error: errored(mask_error(error) if self.masks() else error)

    def disk(self, fn: Callable, *args, returned: Callable | None = None, errored: Callable | None = None,
             **kwargs) -> Worker | None:
        """Run fn(engram, *args) on the disk thread."""
        return self._run(self.disk_pool, fn, args, kwargs, returned, errored)

    def model(self, fn: Callable, *args, returned: Callable | None = None, errored: Callable | None = None,
              yielded: Callable | None = None, **kwargs) -> Worker | None:
        """Run fn(engram, worker, *args) on the model thread; ``worker.emit`` streams, ``worker.stop``
        is set by Stop."""
        if self.engram is None:
            return None
        worker = Worker(lambda: fn(self.engram, worker, *args, **kwargs))
        return self.model_pool.submit(worker, returned=returned, errored=self._errored(errored or self.error.emit),
                                      yielded=yielded)

    def _run(self, pool: Pool, fn, args, kwargs, returned, errored) -> Worker | None:
        if self.engram is None:
            return None
        return pool.start(fn, self.engram, *args, returned=returned,
                          errored=self._errored(errored or self.error.emit), **kwargs)

    def reopen(self, change: Callable, done: Callable) -> None:
        """Close the data, run change(old data folder) -> new folder (e.g. a move), and open the
        data again, all on the disk thread; done(new folder or the error) follows ``opened``. On an
        error the old folder is opened again. The caller makes sure no reply is streaming."""
        engram, watcher = self.engram, self.watcher
        self.engram, self.watcher = None, None          # no new calls start meanwhile

        def work():
            self._stop_hearing()
            if watcher is not None:
                watcher.stop()
            folder = engram.data_dir
            engram.close()
            try:
                outcome = change(folder)
                self.data_dir = str(outcome)
            except Exception as e:     # shown to the person; the old data opens again
                outcome = e
            return outcome, self._open()

        def finished(result):
            outcome, reopened = result
            self._opened(reopened)
            done(outcome)

        self.disk_pool.start(work, returned=finished, errored=self.failed.emit)

    def downloads(self, library):
        """The window's one download queue (the first-start choice and the Models dialog share it,
        so each sees what the other started), reading ``library`` from now on; its reports come
        as ``download_changed``."""
        from engram.core.models.download_queue import DownloadQueue

        if self._downloads is None:
            self._downloads = DownloadQueue(library, self.download_changed.emit)
        self._downloads.library = library
        return self._downloads

    def close(self, wait_ms: int = 10_000) -> None:
        """Pause downloads (they resume from their kept part), stop streaming work, wait for the
        threads, then close the facade."""
        if self._downloads is not None:
            self._downloads.close()
        self.model_pool.wait(wait_ms)
        self.disk_pool.wait(wait_ms)
        self._stop_hearing()
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        if self.engram is not None:
            self.engram.close()
            self.engram = None
