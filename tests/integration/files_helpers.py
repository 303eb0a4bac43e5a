"""Shared set-up for the session-file tests with real watchdog and the real embedding model."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from engram.core.storage.database import Database
from engram.core.files import FileIndex
from engram.core.files.watcher import FolderWatcher
from engram.core.conversation.sessions import Session, Sessions
from engram.core.memory.store import MemoryStore


@dataclass
class Watched:
    db: Database
    store: MemoryStore
    session: Session
    index: FileIndex
    folder: Path
    watcher: FolderWatcher
    events: list


def start(data_dir: Path, embedder) -> Watched:
    db = Database(data_dir / "engram.db")
    store = MemoryStore(db, embedder)
    session = Sessions(db).get_or_create("s1", "alice", title="Trip planning")
    index = FileIndex(store, data_dir / "sessions")
    folder = index.folder(session.folder).path
    folder.mkdir(parents=True)
    events: list = []
    index.subscribe(events.append)
    watcher = FolderWatcher(index, debounce=0.1).start()
    return Watched(db, store, session, index, folder, watcher, events)


def wait_for(condition, timeout: float = 30.0, what: str = "the condition"):
    """Poll until ``condition()`` is truthy (a loaded machine may be slow; a broken one times out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def other_process(code: str, **names) -> None:
    """Run ``code`` in another Python process (the way a person's editor changes files)."""
    prelude = "import os, sys\nfrom pathlib import Path\n" + "".join(f"{k} = {v!r}\n" for k, v in names.items())
    subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], check=True, timeout=60)
