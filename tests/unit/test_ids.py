"""Ids a person or a client sees are never given out again (issue 33, defect 1): a client holding
"#3" must not edit a memory made after #3 was forgotten, nor see its history under a new one."""

import pytest

from engram.core.conversation.sessions import Sessions
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore
from engram.core.storage import database as db_module
from engram.core.storage.database import Database
from engram.core.storage.migrations import MIGRATIONS
from fakes import FakeEmbedder

ANN = Scope(user="ann", session="s1")


@pytest.mark.both_backends
def test_a_forgotten_memorys_id_is_not_given_to_the_next_one(store):
    first = store.add("my bank PIN hint is the cat", ANN)
    store.delete(first.id)
    second = store.add("I like green tea", ANN)
    assert second.id > first.id
    assert [c.action for c in store.history(second.id)] == ["add"]
    assert [c.action for c in store.history(first.id)] == ["delete"]


@pytest.mark.both_backends
def test_a_deleted_sessions_message_and_turn_ids_are_not_given_again(db):
    sessions = Sessions(db)
    sessions.get_or_create("s1", "ann")
    said = sessions.add_message("s1", "user", "hello")
    db.execute("INSERT INTO turns(session_id, user_message_id, messages, created_at) VALUES ('s1', ?, '[]', 'now')",
               (said.id,))
    (turn,) = db.query_one("SELECT max(id) FROM turns")
    sessions.delete("s1", lambda session: None)
    sessions.get_or_create("s2", "ann")
    assert sessions.add_message("s2", "user", "hello again").id > said.id
    db.execute("INSERT INTO turns(session_id, messages, created_at) VALUES ('s2', '[]', 'now')")
    assert db.query_one("SELECT max(id) FROM turns")[0] > turn


def test_upgrading_keeps_every_id_and_gives_none_out_again(tmp_path, monkeypatch):
    """A database of the release before: #3 was forgotten and then given out again (its history
    shows the forgetting), #5 was forgotten last, a note names message #2 of a deleted session."""
    path = tmp_path / "engram.db"
    monkeypatch.setattr(db_module, "MIGRATIONS", [m for m in MIGRATIONS if m.version < 16])
    old = MemoryStore(Database(path), FakeEmbedder())
    ids = [old.add(text, ANN).id for text in ("one", "two", "three")]
    old.delete(ids[2])
    reused = old.add("green tea", ANN)
    assert reused.id == ids[2]                                   # the defect, in the old release
    assert [c.action for c in old.history(reused.id)] == ["delete", "add"]
    superseding = old.add("four", ANN)
    old.update(ids[0], superseded_by=superseding.id)
    forgotten = old.add("five", ANN)
    old.delete(forgotten.id)
    sessions = Sessions(old.db)
    sessions.get_or_create("gone", "ann")
    sessions.add_message("gone", "user", "first")
    said = sessions.add_message("gone", "user", "second")
    old.add("a note", ANN, source_ids=[said.id])
    sessions.delete("gone", lambda session: None)
    sessions.get_or_create("s1", "ann")
    kept = sessions.add_message("s1", "user", "kept")
    before = old.db.query("SELECT id, text, superseded_by FROM memories ORDER BY id")
    old.db.close()

    monkeypatch.setattr(db_module, "MIGRATIONS", MIGRATIONS)
    store = MemoryStore(Database(path), FakeEmbedder())
    assert store.db.query("SELECT id, text, superseded_by FROM memories ORDER BY id") == before
    assert [c.action for c in store.history(reused.id)] == ["add"]
    assert store.db.query_one("SELECT count(*) FROM memory_history WHERE action = 'delete'")[0] == 2
    assert store.add("six", ANN).id > forgotten.id + 1           # + 1: the moved line of #3's predecessor
    sessions = Sessions(store.db)
    assert Sessions(store.db).messages("s1")[0].id == kept.id
    assert sessions.add_message("s1", "user", "new").id > said.id
    assert store.db.query_one("PRAGMA foreign_keys")[0] == 1
    assert store.db.query("PRAGMA foreign_key_check") == []
    assert store.db.query_one("PRAGMA integrity_check")[0] == "ok"


def test_a_server_moved_to_by_the_release_before_gives_no_named_id_again(postgres_url, monkeypatch):
    """That release set the sequences just past the ids it copied: #3, forgotten before the move
    (its history says so), was given to a new memory on the server. The upgrade moves the
    sequences past every id a row names and the old "delete" away from #3."""
    from engram.core.storage import open_database, postgres

    monkeypatch.setattr(postgres, "MIGRATIONS", [m for m in postgres.MIGRATIONS if m.version < 11])
    old = MemoryStore(open_database(postgres_url), FakeEmbedder())
    ids = [old.add(text, ANN).id for text in ("one", "two")]
    old.db.execute("INSERT INTO memory_history(memory_id, \"user\", action, actor, at)"
                   " VALUES (3, 'ann', 'delete', 'user', 'then'), (9, 'ann', 'delete', 'user', 'then')")
    old.db.execute("INSERT INTO memories(id, \"user\", session, kind, text, created_at, updated_at, content_hash)"
                   " VALUES (3, 'ann', 's1', 'fact', 'green tea', 'now', 'now', 'h3')")
    old.db.execute("INSERT INTO memory_history(memory_id, \"user\", action, actor, new_text, at)"
                   " VALUES (3, 'ann', 'add', 'user', 'green tea', 'now')")
    old.db.execute("SELECT setval(pg_get_serial_sequence('memories', 'id'), 3)")
    old.db.close()
    monkeypatch.undo()
    store = MemoryStore(open_database(postgres_url), FakeEmbedder())
    try:
        assert [c.action for c in store.history(3)] == ["add"]
        assert store.add("three", ANN).id > 10 > 9 > max(ids)
        assert store.db.query_one("SELECT count(*) FROM memory_history WHERE action = 'delete'")[0] == 2
    finally:
        store.db.close()
