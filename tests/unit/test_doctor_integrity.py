"""A database file damaged on disk (a failing drive, a bad copy) is found by ``engram doctor``."""

import pytest

from engram.core import paths
from engram.core.errors import DatabaseError
from engram.core.storage.database import Database
from engram.core.doctor import run_checks
from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore


def test_a_damaged_page_is_found_and_the_fix_says_how_to_save_what_reads(tmp_path):
    data = tmp_path / "data"
    db = Database(data / paths.DATABASE_FILE)
    MemoryStore(db, None).add_many([NewMemory(f"memory number {n} about the trip " * 8, Scope(user="u"), "fact")
                                    for n in range(400)])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    healthy = {c.name: c for c in run_checks(str(data), str(tmp_path / "config"))}
    assert healthy["database integrity"].ok

    path = data / paths.DATABASE_FILE
    size = path.stat().st_size
    with path.open("r+b") as f:          # scribble over pages in the middle of the file
        f.seek(size // 2 // 4096 * 4096)
        f.write(b"\xa5" * 4096 * 4)
    checks = {c.name: c for c in run_checks(str(data), str(tmp_path / "config"))}
    found = [c for c in (checks.get("database"), checks.get("database integrity")) if c is not None and not c.ok]
    assert found and "damaged" in found[0].detail and "engram sessions export" in found[0].fix


def test_once_damage_is_known_the_file_is_only_read_until_it_is_moved_away(tmp_path):
    """Doctor found the damage: every Engram opening the file from then on reads what still reads
    and refuses changes, which could spread it (issue 33, defect 12); a new file is written again."""
    data = tmp_path / "data"
    path = data / paths.DATABASE_FILE
    db = Database(path)
    MemoryStore(db, None).add_many([NewMemory(f"memory number {n} about the trip " * 8, Scope(user="u"), "fact")
                                    for n in range(400)])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with path.open("r+b") as f:
        f.seek(path.stat().st_size // 2 // 4096 * 4096)
        f.write(b"\xa5" * 4096 * 4)
    store = MemoryStore(Database(path), None)
    store.add("written before anyone knew", Scope(user="u"))      # the damage is not known yet
    store.db.close()
    checks = {c.name: c for c in run_checks(str(data), str(tmp_path / "config"))}
    assert not checks["database integrity"].ok and "only reads it" in checks["database integrity"].detail

    store = MemoryStore(Database(path), None)
    assert store.list(Scope(user="u"), limit=1)[0].text == "written before anyone knew"
    with pytest.raises(DatabaseError, match="damaged .*nothing was changed") as refused:
        store.add("my cat is Tom", Scope(user="u"))
    assert "engram sessions export" in refused.value.hint
    store.db.close()

    path.rename(tmp_path / "damaged.db")
    fresh = MemoryStore(Database(path), None)
    assert fresh.add("a new start", Scope(user="u")).text == "a new start"
    fresh.db.close()


def test_a_file_whose_list_of_tables_is_damaged_still_gives_what_reads(tmp_path):
    """One table's definition is damaged (flipped bits in the schema): the file is opened to read
    the other tables, so that `engram memory list --json` can save them, and doctor says what is
    wrong with each part instead of stopping."""
    data = tmp_path / "data"
    path = data / paths.DATABASE_FILE
    db = Database(path)
    MemoryStore(db, None).add("I like green tea", Scope(user="u"))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    damaged = path.read_bytes().replace(b"'pending' CHECK (state IN", b"'pending' GHECK (state IN", 1)
    assert damaged != path.read_bytes()
    path.write_bytes(damaged)

    store = MemoryStore(Database(path), None)
    assert [m.text for m in store.list(Scope(user="u"))] == ["I like green tea"]
    with pytest.raises(DatabaseError, match="damaged"):
        store.add("my cat is Tom", Scope(user="u"))
    store.db.close()
    checks = {c.name: c for c in run_checks(str(data), str(tmp_path / "config"))}
    assert checks["database"].ok and not checks["outbox"].ok and "damaged" in checks["outbox"].detail
