"""Two devices on one database: each keeps the session folders on its own disk, and says where the
others' are (the index rows name the device)."""

from __future__ import annotations

import socket

import pytest

from engram.core.errors import DataDirError, InvalidInput
from engram.core.files import FileIndex
from engram.core.files.device import DEVICE_FILE, Device, this_device
from engram.core.files.tools import file_tools


def test_a_data_folder_is_one_device_made_once(tmp_path):
    device = this_device(tmp_path)
    assert device == this_device(tmp_path) and device.name == socket.gethostname()
    assert this_device(tmp_path / "another").id != device.id
    (tmp_path / DEVICE_FILE).write_text("{not json")
    with pytest.raises(DataDirError, match="which device"):
        this_device(tmp_path)


@pytest.fixture
def desk(store, tmp_path):
    return FileIndex(store, tmp_path / "desk" / "sessions", device=Device("d1", "desk"))


@pytest.fixture
def laptop(store, tmp_path):
    return FileIndex(store, tmp_path / "laptop" / "sessions", device=Device("l1", "laptop"))


def tool(index, folder, name):
    return next(t for t in file_tools(index, folder) if t.name == name)


@pytest.mark.both_backends
def test_files_stay_on_the_device_that_has_the_folder(desk, laptop, session):
    desk.write(session.folder, "plan.md", "# Trip\nthe night train to Vienna\n", "Trip plan")
    laptop.sync_all()        # the laptop does not have the folder: it must not drop the desk's files
    assert [s.name for s in desk.statuses(session.folder)] == ["plan.md"]
    assert laptop.statuses(session.folder) == [] and laptop.folders() == set()
    assert laptop.elsewhere(session.folder) == "desk" and desk.elsewhere(session.folder) is None
    with pytest.raises(InvalidInput, match="'desk'"):
        laptop.write(session.folder, "notes.md", "a second folder of the same chat")
    assert not laptop.folder(session.folder).path.exists()
    assert "on the device 'desk'" in tool(laptop, session.folder, "files_list").call({})
    assert desk.search(session.folder, "night train", mode="words")[0].name == "plan.md"
    recalled = laptop.store.search("night train", desk.scope_for(session.folder)).hits
    assert any("Vienna" in hit.memory.text for hit in recalled)     # what the file says is shared memory


@pytest.mark.both_backends
def test_a_deleted_session_leaves_no_files_indexed_on_any_device(desk, laptop, session, store):
    desk.write(session.folder, "plan.md", "# Trip\nVienna\n")
    chunk = desk.chunk_memories(session.folder)[0].id
    laptop.forget(session.folder)
    assert desk.statuses(session.folder) == [] and store.get_many([chunk]) == []


@pytest.mark.both_backends
def test_rows_indexed_before_devices_were_told_apart_are_claimed(store, db, desk, session):
    desk.write(session.folder, "plan.md", "# Trip\nVienna\n")
    with db.transaction() as conn:          # as migration 14 leaves them
        for table in ("session_files", "session_file_chunks"):
            conn.execute(f"UPDATE {table} SET device = ''")
    again = FileIndex(store, desk.root, device=Device("d2", "desk, renamed"))
    assert [s.name for s in again.statuses(session.folder)] == ["plan.md"]
    assert db.query("SELECT DISTINCT device FROM session_file_chunks") == [("d2",)]
    assert db.query("SELECT id, name FROM devices ORDER BY id") == [("d1", "desk"), ("d2", "desk, renamed")]


def test_migration_14_keeps_the_files_indexed_before(tmp_path, monkeypatch):
    from engram.core.storage import database as db_module
    from engram.core.storage.database import Database
    from engram.core.storage.migrations import MIGRATIONS

    path = tmp_path / "engram.db"
    monkeypatch.setattr(db_module, "MIGRATIONS", [m for m in MIGRATIONS if m.version < 14])
    old = Database(path)
    with old.transaction() as conn:
        conn.execute("INSERT INTO memories(id, user, kind, text, created_at, updated_at, content_hash)"
                     " VALUES (7, 'alice', 'file', 'plan.md\nVienna', 't', 't', 'h')")
        conn.execute("INSERT INTO session_files(folder, name, status, description, content_hash, size, chunks,"
                     " indexed_at) VALUES ('f', 'plan.md', 'indexed', 'Trip plan', 'b', 14, 1, 't')")
        conn.execute("INSERT INTO session_file_chunks(folder, name, position, line, memory_id)"
                     " VALUES ('f', 'plan.md', 0, 1, 7)")
    old.close()
    monkeypatch.setattr(db_module, "MIGRATIONS", MIGRATIONS)
    db = Database(path)
    assert db.query("SELECT device, folder, name, description, size, chunks FROM session_files") == \
        [("", "f", "plan.md", "Trip plan", 14, 1)]
    assert db.query("SELECT device, folder, name, position, line, memory_id FROM session_file_chunks") == \
        [("", "f", "plan.md", 0, 1, 7)]
    db.close()
