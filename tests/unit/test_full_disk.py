"""A full disk (issue 33, defect 11): what is stored can still be read, a change says the disk is
full, doctor says so without a traceback, and no probe file is left behind."""

import errno
from pathlib import Path

import apsw
import pytest

from engram.core import doctor
from engram.core.app import check_writable
from engram.core.errors import DiskFull
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore
from engram.core.settings import Settings
from engram.core.storage import database as db_module
from engram.core.storage.database import Database
from fakes import FakeEmbedder

ANN = Scope(user="ann")


def fill_disk(monkeypatch) -> None:
    """From now on the disk is full: SQLite cannot make the files WAL keeps beside a database (at
    0 bytes free ``PRAGMA journal_mode=WAL`` fails so), and a file is made but not written."""
    def no_room(*args, **kwargs):
        raise apsw.IOError("disk I/O error")

    def made_empty(path, data):
        path.touch()
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(db_module, "disk_full", lambda folder: True)
    monkeypatch.setattr(doctor, "disk_full", lambda folder: True)
    monkeypatch.setattr(Database, "_configure", no_room)
    monkeypatch.setattr(Path, "write_bytes", made_empty)


def test_what_is_stored_is_read_and_a_change_says_the_disk_is_full(tmp_path, monkeypatch):
    path = tmp_path / "engram.db"
    store = MemoryStore(Database(path), FakeEmbedder())
    kept = store.add("I like green tea", ANN)
    store.db.close()
    fill_disk(monkeypatch)
    store = MemoryStore(Database(path), FakeEmbedder())
    try:
        assert [m.text for m in store.list(ANN)] == ["I like green tea"]
        assert [h.memory.id for h in store.search("green tea", ANN).hits] == [kept.id]
        assert [c.action for c in store.history(kept.id)] == ["add"]
        with pytest.raises(DiskFull, match="is full: nothing was changed"):
            store.add("my cat is Tom", ANN)
    finally:
        store.db.close()


def test_the_folder_check_passes_a_full_disk_leaving_no_probe_and_doctor_says_it_is_full(tmp_path, monkeypatch):
    fill_disk(monkeypatch)
    assert check_writable(tmp_path) == tmp_path
    assert list(tmp_path.iterdir()) == []
    check = doctor._data_dir({"data_dir": str(tmp_path), "settings": Settings()})
    assert not check.ok and "the disk is full" in check.detail and "free some space" in check.fix
