"""The watcher's queue (issue 33, defect 15): a file the person edits while a burst of files
dropped in a folder is being indexed waits for one file, not for the whole burst."""

import threading
import time

from engram.core.files.watcher import FolderWatcher

BURST = 300
ONE_FILE_S = 0.01     # indexing one file; the burst takes BURST times that


class SlowIndex:
    """Stands for FileIndex: indexing a file takes a while, and when each was indexed is kept."""

    def __init__(self, root):
        self.root = root
        self.indexed: dict[str, float] = {}
        self.edited = threading.Event()

    def sync_file(self, folder: str, name: str) -> None:
        time.sleep(ONE_FILE_S)
        self.indexed[name] = time.monotonic()
        if name == "plan.md":
            self.edited.set()

    def rescan(self, folder: str) -> list[str]:
        return sorted(p.name for p in (self.root / folder).iterdir())

    def sync_folder(self, folder: str) -> None:     # what a watcher must not do during a burst
        for name in self.rescan(folder):
            self.sync_file(folder, name)


def test_a_hand_edit_during_a_burst_is_indexed_at_once(tmp_path):
    index = SlowIndex(tmp_path)
    folder = tmp_path / "trip"
    folder.mkdir()
    (folder / "plan.md").write_text("# Plan\n")
    watcher = FolderWatcher(index, debounce=0.05).start(catch_up=False)
    try:
        for n in range(BURST):
            (folder / f"dropped-{n}.md").write_text(f"file {n}\n")
        time.sleep(0.3)                          # the burst is being indexed
        edited_at = time.monotonic()
        (folder / "plan.md").write_text("# Plan\nBook the train.\n")
        assert index.edited.wait(BURST * ONE_FILE_S * 2)
        waited = index.indexed["plan.md"] - edited_at
        left = sum(1 for n in range(BURST) if f"dropped-{n}.md" not in index.indexed)
        assert waited < 1.0 and left > BURST // 3, (waited, left)
    finally:
        watcher.stop()


def test_an_edit_during_the_start_rescan_of_a_burst_is_indexed_at_once(tmp_path):
    """The rescan at start (files dropped while Engram was closed) is queued file by file, behind
    a later edit, not indexed in one go."""
    index = SlowIndex(tmp_path)
    folder = tmp_path / "trip"
    folder.mkdir()
    for n in range(BURST):
        (folder / f"dropped-{n}.md").write_text(f"file {n}\n")
    (folder / "plan.md").write_text("# Plan\n")
    watcher = FolderWatcher(index, debounce=0.05).start(catch_up=True)
    try:
        time.sleep(0.3)
        edited_at = time.monotonic()
        (folder / "plan.md").write_text("# Plan\nBook the train.\n")
        deadline = time.monotonic() + BURST * ONE_FILE_S * 2
        while index.indexed.get("plan.md", 0) < edited_at and time.monotonic() < deadline:
            time.sleep(0.01)
        waited = index.indexed["plan.md"] - edited_at
        left = sum(1 for n in range(BURST) if f"dropped-{n}.md" not in index.indexed)
        assert waited < 1.0 and left > BURST // 3, (waited, left)
    finally:
        watcher.stop()


def test_memories_md_comes_after_the_files(tmp_path):
    """The index rewrites memories.md after each file; its report must not go before the files."""
    index = SlowIndex(tmp_path)
    watcher = FolderWatcher(index, debounce=0)
    watcher._pending = {("trip", "memories.md"): 2.0, ("trip", "a.md"): 1.0}
    assert watcher._next(list(watcher._pending)) == ("trip", "a.md")
