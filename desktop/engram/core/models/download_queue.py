"""Several downloads asked for at once: fetched one after another on one background thread (a
second stream from the same mirror would not make either faster), each of them paused, resumed
or cancelled on its own. The window watches through ``on_change``, which is called on that
thread: the window hands it on to its own thread, as every worker's signal does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from engram.core.models.downloads import DownloadStopped, Progress, discard_partial
from engram.core.errors import EngramError
from engram.core.models.library import ModelLibrary

QUEUED, DOWNLOADING, PAUSED, CANCELLED, DONE, FAILED = "queued", "downloading", "paused", "cancelled", "done", "failed"


@dataclass(frozen=True)
class DownloadState:
    name: str
    state: str
    progress: Progress | None = None
    error: EngramError | None = None
    path: Path | None = None


class DownloadQueue:
    def __init__(self, library: ModelLibrary, on_change: Callable[[DownloadState], None] = lambda state: None,
                 client=None):
        self.library, self.on_change, self.client = library, on_change, client
        self._states: dict[str, DownloadState] = {}
        self._order: list[str] = []
        self._stops: dict[str, threading.Event] = {}
        self._cancelled: set[str] = set()
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def state(self, name: str) -> DownloadState | None:
        with self._lock:
            return self._states.get(name)

    def add(self, name: str) -> None:
        """Queue a download (or resume a paused or failed one); one already queued is left as it is."""
        name = self.library.catalog.get(name).name
        with self._lock:
            if self._closed or (name in self._states and self._states[name].state in (QUEUED, DOWNLOADING)):
                return
            self._cancelled.discard(name)
            self._order.append(name)
            self._set(DownloadState(name, QUEUED))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="engram-downloads", daemon=True)
                self._thread.start()
            self._lock.notify()

    def pause(self, name: str) -> None:
        """Stop a download, keeping what arrived (``add`` resumes it, also after a restart)."""
        self._stop(name, cancel=False)

    def cancel(self, name: str) -> None:
        """Stop a download and delete what arrived."""
        self._stop(name, cancel=True)

    def _stop(self, name: str, cancel: bool) -> None:
        with self._lock:
            current = self._states.get(name)
            if cancel:
                self._cancelled.add(name)
            if current is not None and current.state == DOWNLOADING:
                self._stops[name].set()                  # the thread reports the pause or cancel
                return
            if name in self._order:
                self._order.remove(name)
            if cancel:
                discard_partial(self.library.path(self.library.catalog.get(name)))
            if current is not None and current.state in (QUEUED, PAUSED, FAILED):
                self._set(replace(current, state=CANCELLED if cancel else PAUSED))

    def wait(self, timeout: float | None = None) -> bool:
        """Until nothing is queued or downloading (for the CLI and tests); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._order and not any(
                s.state == DOWNLOADING for s in self._states.values()), timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Pause whatever is downloading (it resumes next time) and end the thread."""
        with self._lock:
            self._closed = True
            self._order.clear()
            for event in self._stops.values():
                event.set()
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def _set(self, state: DownloadState) -> None:
        self._states[state.name] = state
        self._lock.notify_all()
        self.on_change(state)

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._order or self._closed)
                if self._closed:
                    return
                name = self._order.pop(0)
                stop = self._stops[name] = threading.Event()
                self._set(DownloadState(name, DOWNLOADING))
            self._download(name, stop)

    def _download(self, name: str, stop: threading.Event) -> None:
        def progressed(progress: Progress) -> None:
            with self._lock:
                self._set(DownloadState(name, DOWNLOADING, progress))

        try:
            path = self.library.download(name, stop=stop, on_progress=progressed, client=self.client)
            outcome = DownloadState(name, DONE, path=path)
        except DownloadStopped:
            outcome = DownloadState(name, PAUSED, self._states[name].progress)
        except EngramError as e:
            outcome = DownloadState(name, FAILED, self._states[name].progress, error=e)
        except Exception as e:           # shown to the person, never swallowed
            outcome = DownloadState(name, FAILED, error=EngramError(f"{type(e).__name__}: {e}"))
        with self._lock:
            if name in self._cancelled and outcome.state != DONE:
                discard_partial(self.library.path(self.library.catalog.get(name)))
                outcome = DownloadState(name, CANCELLED)
            self._set(outcome)
