import apsw
import pytest

from engram.core.storage.database import Database
from engram.core.errors import DatabaseError, DataDirError
from engram.core.storage.migrations import MIGRATIONS


def test_file_database_uses_wal_and_records_migrations(tmp_path):
    db = Database(tmp_path / "engram.db")
    assert db.query_one("PRAGMA journal_mode")[0] == "wal"
    assert db.query_one("PRAGMA foreign_keys")[0] == 1
    assert db.schema_version() == MIGRATIONS[-1].version
    db.close()
    again = Database(tmp_path / "engram.db")  # reopening applies nothing twice
    assert [v for (v,) in again.query("SELECT version FROM schema_migrations")] == [m.version for m in MIGRATIONS]


def test_a_file_that_is_not_sqlite_is_refused_and_untouched(tmp_path):
    path = tmp_path / "engram.db"
    path.write_bytes(b"my precious notes, not a database")
    with pytest.raises(DatabaseError, match="not an Engram database"):
        Database(path)
    assert path.read_bytes() == b"my precious notes, not a database"


def test_a_newer_schema_is_refused(tmp_path):
    db = Database(tmp_path / "engram.db")
    db.execute("INSERT INTO schema_migrations(version, name) VALUES (999, 'future')")
    db.close()
    with pytest.raises(DatabaseError, match="newer Engram"):
        Database(tmp_path / "engram.db")


def test_unwritable_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(DataDirError):
        Database(blocker / "sub" / "engram.db")


def test_transaction_rolls_back_on_error(db):
    with pytest.raises(apsw.ConstraintError):
        with db.transaction() as conn:
            conn.execute("INSERT INTO embedding_models(name, fingerprint, dimensions, created_at)"
                         " VALUES ('a', 'f', 3, 'now')")
            conn.execute("INSERT INTO embedding_models(name, fingerprint, dimensions, created_at)"
                         " VALUES ('b', 'f', 3, 'now')")
    assert db.query_one("SELECT count(*) FROM embedding_models")[0] == 0


def test_missing_vector_extension_is_a_clear_error(tmp_path, monkeypatch):
    import sqlite_vec

    monkeypatch.setattr(sqlite_vec, "loadable_path", lambda: str(tmp_path / "no-such-vec0"))
    with pytest.raises(DatabaseError, match="sqlite-vec") as caught:
        Database(tmp_path / "engram.db")
    assert "reinstall" in caught.value.hint


def test_each_users_word_index_is_made_from_their_memories_after_upgrading(tmp_path, monkeypatch):
    """A database made before migration 5 (one shared word index) is upgraded in place: each
    user's own word index is made when first needed, so their memories are found by words
    afterwards, only by their own user, Chinese included, and a change after that is indexed once."""
    from engram.core.storage import database as db_module
    from engram.core.memory.scope import Scope
    from engram.core.memory.search.options import SearchOptions
    from engram.core.memory.store import MemoryStore

    path = tmp_path / "old.sqlite"
    monkeypatch.setattr(db_module, "MIGRATIONS", [m for m in MIGRATIONS if m.version < 5])
    old = Database(path)
    with old.transaction() as conn:
        for memory_id, user, text in ((1, "alice", "I am allergic to peanuts"), (2, "bob", "peanuts are my favourite"),
                                      (3, "alice", "我对花生过敏")):
            conn.execute("INSERT INTO memories(id, user, kind, text, created_at, updated_at, valid_from, content_hash)"
                         " VALUES (?, ?, 'fact', ?, '2026-01-01', '2026-01-01', '2026-01-01', ?)",
                         (memory_id, user, text, str(memory_id)))
            conn.execute("INSERT INTO memory_fts(rowid, body) VALUES (?, ?)", (memory_id, text))
    old.close()
    monkeypatch.setattr(db_module, "MIGRATIONS", MIGRATIONS)
    store = MemoryStore(Database(path), None)
    assert store.db.schema_version() == MIGRATIONS[-1].version
    assert store.db.query("SELECT user FROM word_indexes") == []
    words = SearchOptions(mode="words", k=5)
    assert [h.memory.id for h in store.search("peanuts", Scope(user="alice"), words).hits] == [1]
    assert store.db.query("SELECT user FROM word_indexes") == [("alice",)]
    assert [h.memory.id for h in store.search("花生", Scope(user="alice"), words).hits] == [3]
    store.update(2, text="peanuts are still my favourite")   # bob's index is made before the change
    assert [h.memory.id for h in store.search("peanuts", Scope(user="bob"), words).hits] == [2]
    assert [h.memory.id for h in store.search("still", Scope(user="bob"), words).hits] == [2]
    assert store.search("peanuts", Scope(), words).hits == []   # the empty user holds nothing


@pytest.mark.both_backends
def test_a_deleted_memory_is_unlinked_from_those_it_superseded_by_an_index(db):
    """Deleting a memory clears ``superseded_by`` where it names it (ON DELETE SET NULL); without
    the index each delete read every memory (1,000 deletes at a million: minutes)."""
    unlink = "UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?"
    if db.dialect == "sqlite":
        plan = " ".join(str(row[-1]) for row in db.query("EXPLAIN QUERY PLAN " + unlink, (1,)))
    else:
        with db.transaction() as conn:
            conn.execute("SET LOCAL enable_seqscan = off")    # an empty table: the scan would be cheapest
            plan = " ".join(row[0] for row in conn.execute("EXPLAIN " + unlink, (1,)).fetchall())
    assert "memories_superseded_by" in plan, plan


@pytest.mark.both_backends
def test_a_neighbour_probe_reads_the_session_index_alone(db):
    """Search's context looks up a message's previous turn from the session index without the
    table; on PostgreSQL keyed by (user, session, id), the rest filtered from the entry (fewer key
    columns compared on each entry of the page a probe reads: a third of the cost at a million)."""
    probe = ("SELECT max(n.id) FROM memories n WHERE n.session = ? AND n.user = ? AND n.agent = ?"
             " AND n.application = ? AND n.kind = 'message' AND n.id < ?")
    params = ("s1", "alice", "", "", 10)
    if db.dialect == "sqlite":
        plan = " ".join(str(row[-1]) for row in db.query("EXPLAIN QUERY PLAN " + probe, params))
        assert "COVERING INDEX memories_by_session" in plan, plan
    else:   # (an empty table's plan says nothing: the index itself)
        definition = db.query_one("SELECT pg_get_indexdef('memories_by_session'::regclass)")[0]
        assert definition.endswith('("user", session, id) INCLUDE (agent, application, kind)'), definition
