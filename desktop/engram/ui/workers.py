"""Background work for the window: every model and disk call runs here, never on the GUI thread.

A ``Worker`` runs one callable on a thread pool and reports back through Qt signals, which are
delivered on the GUI thread (napari-style: yielded / returned / errored / aborted / finished).
A callable that streams gets ``worker.emit`` to call from any thread, and ``worker.stop`` (a
``threading.Event``) to honour when the person presses Stop.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class WorkerSignals(QObject):
    yielded = Signal(object)
    returned = Signal(object)
    errored = Signal(object)
    aborted = Signal()
    finished = Signal()


class Worker(QRunnable):
    """One job. Generators stream their values through ``yielded``; stop() ends them early."""

    def __init__(self, fn: Callable, *args, **kwargs):
        super().__init__()
        self.setAutoDelete(False)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals = WorkerSignals()
        self.stop = threading.Event()

    def emit(self, value: object) -> None:
        """Hand a value to the GUI thread (safe from any thread)."""
        self.signals.yielded.emit(value)

    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
            if inspect.isgenerator(result):
                result = self._drain(result)
            if self.stop.is_set():
                self.signals.aborted.emit()
            self.signals.returned.emit(result)
        except Exception as e:  # reported to the window, never swallowed
            self.signals.errored.emit(e)
        finally:
            self.signals.finished.emit()

    def _drain(self, generator):
        while True:
            if self.stop.is_set():
                generator.close()
                return None
            try:
                self.emit(next(generator))
            except StopIteration as done:
                return done.value


class Pool:
    """A thread pool that keeps its workers alive until they finish."""

    def __init__(self, threads: int):
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(threads)
        self._running: set[Worker] = set()

    def start(self, fn: Callable, *args, returned: Callable | None = None, errored: Callable | None = None,
              yielded: Callable | None = None, finished: Callable | None = None, **kwargs) -> Worker:
        worker = Worker(fn, *args, **kwargs)
        return self.submit(worker, returned=returned, errored=errored, yielded=yielded, finished=finished)

    def submit(self, worker: Worker, *, returned: Callable | None = None, errored: Callable | None = None,
               yielded: Callable | None = None, finished: Callable | None = None) -> Worker:
        for signal, slot in ((worker.signals.returned, returned), (worker.signals.errored, errored),
                             (worker.signals.yielded, yielded)):
            if slot is not None:
                signal.connect(slot)
        if finished is not None:
            worker.signals.finished.connect(finished)
        self._running.add(worker)
        worker.signals.finished.connect(lambda: self._running.discard(worker))
        self.pool.start(worker)
        return worker

    def wait(self, msecs: int = -1) -> bool:
        for worker in list(self._running):
            worker.stop.set()
        return self.pool.waitForDone(msecs)
