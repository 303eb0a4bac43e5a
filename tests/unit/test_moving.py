"""Moving the store between databases (engram migrate-data): SQLite to PostgreSQL and back gives
the same rows, an interrupted copy goes on where it stopped, and a target with data is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engram.core.porting import moving
from engram.core.errors import DatabaseError, InvalidInput
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore
from engram.core.storage import open_database
from fakes import FakeEmbedder

ALICE = Scope(user="alice")


def call(tool: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def scripted(messages: list[dict]) -> str:
    last = messages[-1]["content"]
    if last.startswith("<tool_response>"):
        return "Saved."
    if "save the plan" in last:
        return call("files_write", name="plan", content="# Plan\n" + "Fly to Lisbon on Friday. " * 200,
                    description="Trip plan")
    return "Noted, enjoy the trip."


@pytest.fixture(params=["vectors"])
def filled(request, make_engram):
    """A SQLite store with a bit of everything: two users' sessions, turns, a session file and its
    chunks, memories updated, superseded and forgotten (history), preferences, outbox jobs, and
    vectors ("vectors") or none ("words only": no embedding model)."""
    engram = make_engram(scripted)
    if request.param == "words only":
        engram.store.use_embedder(None)
        engram.db.execute("DELETE FROM embedding_models")
    engram.sessions.get_or_create("gone", "alice")
    session = engram.sessions.get_or_create("s", "alice", title="Trip")
    engram.sessions.get_or_create("b1", "bob")
    engram.delete_session("gone")
    engram.turn_engine.send("s", "please save the plan")
    engram.files.write(session.folder, "notes.md", "# Notes\n" + "Pack the charger and the passport. " * 300)
    engram.turn_engine.send("s", "I am flying to Lisbon with Bart, my brother 在圣诞节")
    engram.preferences.set("alice", "language", "Portuguese")
    store = engram.store
    old = store.add("Bart likes tea", ALICE)
    new = store.add("Bart likes coffee now", ALICE, Kind.PREFERENCE)
    store.update(old.id, superseded_by=new.id, text="Bart liked tea")
    store.delete(store.add("a passing thought", ALICE).id)
    store.add("Bob's own memory", Scope(user="bob", session="b1"))
    engram.outbox.run_due()
    path = engram.db.path
    engram.close()
    return path


def rows(db) -> dict[str, list[tuple]]:
    """Every copied table's rows, in a stable order, with numbers as the same Python types (columns
    by name: engines may order them differently; without rowids, which only one may have)."""
    out = {}
    for name in (t.name for t in moving.TABLES):
        columns = sorted(c for c in moving._columns(db, name) if c != moving.ROWID)
        order = ", ".join(columns)
        out[name] = [tuple(float(v) if isinstance(v, float) else v for v in row)
                     for row in db.query(f"SELECT {order} FROM {name} ORDER BY {order}")]
    return out


def vectors(db) -> dict[int, bytes]:
    index = moving._vector_index(db, "fake-embedder", "fake-64", 64)
    return {int(i): v.tobytes() for ids, vecs in index.each(100) for i, v in zip(ids, vecs)}


def test_a_copy_to_another_sqlite_file_has_the_same_rows_vectors_and_words(filled, tmp_path):
    target = tmp_path / "elsewhere" / "engram.db"
    seen = []
    counts = moving.migrate_data(filled, target, lambda what, done, total: seen.append((what, done, total)))
    assert all(c.same for c in counts) and {c.what for c in counts} >= {"memories", "vectors (fake-embedder)"}
    memories = next(c.source for c in counts if c.what == "memories")
    assert seen[-1][0] == "word indexes" and ("memories", memories, memories) in seen
    src, dst = open_database(filled), open_database(target)
    try:
        assert rows(dst) == rows(src)
        assert rows(src)["session_file_chunks"] and rows(src)["memory_history"]
        order = "SELECT rowid, id FROM sessions ORDER BY rowid"
        assert dst.query(order) == src.query(order) == [(2, "s"), (3, "b1")]   # the order they were made in
        assert vectors(dst) == vectors(src) and len(vectors(src)) == counts[-1].source > 0
        # The copy works as a store: found by words (its own word index) and by meaning, new ids follow.
        store = MemoryStore(dst, FakeEmbedder())
        assert [h.memory.text for h in store.search("coffee", ALICE, SearchOptions(k=1)).hits] == ["Bart likes coffee now"]
        assert store.add("a new one", ALICE).id > max(r[0] for r in rows(src)["memories"])
    finally:
        src.close()
        dst.close()


@pytest.mark.parametrize("filled", [
    "words only",
    "vectors"],
    indirect=True)
def test_sqlite_to_postgresql_and_back_gives_the_same_rows(filled, postgres_url, tmp_path):
    moving.migrate_data(filled, postgres_url)
    back = tmp_path / "back" / "engram.db"
    moving.migrate_data(postgres_url, back)
    src, server, dst = open_database(filled), open_database(postgres_url), open_database(back)
    try:
        assert rows(server) == rows(src) == rows(dst)
        if rows(src)["embedding_models"]:
            assert vectors(dst) == vectors(src) == vectors(server)
        # The server finds them by its own word index (and meaning, with vectors).
        store = MemoryStore(server, FakeEmbedder() if rows(src)["embedding_models"] else None)
        for mode in ("words", "meaning") if store.embedder else ("words",):
            hits = store.search("coffee", ALICE, SearchOptions(k=1, mode=mode, kinds=("fact", "preference"))).hits
            assert [h.memory.text for h in hits] == ["Bart likes coffee now"]
        # The server's identity sequences were moved past the copied ids.
        with server.transaction() as conn:
            conn.execute("INSERT INTO outbox(kind, next_attempt_at, created_at, updated_at) VALUES ('x', '', '', '')")
            assert conn.last_insert_rowid() > max(r[0] for r in rows(src)["outbox"])
    finally:
        for db in (src, server, dst):
            db.close()


def test_a_forgotten_memorys_id_is_not_given_again_after_moving(make_engram, postgres_url, tmp_path):
    """The newest memory was forgotten: its id, which its history still names, is not given to a
    new memory on the server, nor on a SQLite copy made back from it (issue 33, defect 1)."""
    engram = make_engram()
    engram.store.add("I like green tea", ALICE)
    forgotten = engram.store.add("my bank PIN hint is the cat", ALICE).id
    engram.store.delete(forgotten)
    source = engram.db.path
    engram.close()
    back = tmp_path / "back" / "engram.db"
    moving.migrate_data(source, postgres_url)
    moving.migrate_data(postgres_url, back)
    for location in (postgres_url, back):
        store = MemoryStore(open_database(location), FakeEmbedder())
        try:
            new = store.add("a new memory", ALICE)
            assert new.id > forgotten and [c.action for c in store.history(new.id)] == ["add"]
        finally:
            store.db.close()


def crash_at(step: str, after: int, seen: list | None = None):
    def progress(what, done, total):
        if seen is not None:
            seen.append((what, done))
        if what.startswith(step) and done >= after:
            raise KeyboardInterrupt
    return progress


def test_an_interrupted_copy_goes_on_where_it_stopped(filled, tmp_path, monkeypatch):
    target = tmp_path / "copy.db"
    monkeypatch.setattr(moving, "BATCH", 2)
    monkeypatch.setattr(moving, "VECTOR_BATCH", 2)
    with pytest.raises(KeyboardInterrupt):
        moving.migrate_data(filled, target, crash_at("memories", 4))
    half = open_database(target)
    assert half.query_one("SELECT count(*) FROM memories")[0] == 4
    half.close()
    seen = []
    with pytest.raises(KeyboardInterrupt):   # Ctrl-C again, while vectors are copied
        moving.migrate_data(filled, target, crash_at("vectors", 4, seen))
    assert [done for what, done in seen if what == "memories"][0] == 6   # went on from 4, two at a time

    seen = []
    counts = moving.migrate_data(filled, target, lambda what, done, total: seen.append((what, done)))
    assert all(c.same for c in counts)
    assert [done for what, done in seen if what.startswith("vectors")][0] > 4
    src, dst = open_database(filled), open_database(target)
    try:
        assert rows(dst) == rows(src) and vectors(dst) == vectors(src)
    finally:
        src.close()
        dst.close()
    # Once done, another run finds everything there and says the same counts.
    assert moving.migrate_data(filled, target) == counts


def test_a_target_with_other_data_is_refused_and_left_as_it_was(filled, tmp_path):
    target = tmp_path / "someone-else.db"
    other = open_database(target)
    MemoryStore(other, None).add("someone else's memory", Scope(user="carol"))
    other.close()
    with pytest.raises(DatabaseError, match="already holds data"):
        moving.migrate_data(filled, target)
    other = open_database(target)
    try:
        assert other.query("SELECT user, text FROM memories") == [("carol", "someone else's memory")]
    finally:
        other.close()


def test_a_copy_of_another_store_is_refused(filled, make_engram, tmp_path):
    target = tmp_path / "copy.db"
    moving.migrate_data(filled, target)
    second = tmp_path / "second.db"
    open_database(second).close()
    with pytest.raises(DatabaseError, match="copy of another database"):
        moving.migrate_data(second, target)


def test_copying_onto_itself_is_refused(filled):
    with pytest.raises(InvalidInput, match="Engram uses now"):
        moving.migrate_data(filled, str(filled))


def test_the_current_database_is_the_servers_when_one_is_named(tmp_path, monkeypatch):
    assert moving.current_location(tmp_path / "d") == tmp_path / "d" / "engram.db"
    monkeypatch.setenv("ENGRAM_DATABASE_URL", "postgresql://me:secret@host/db")
    assert moving.current_location(tmp_path / "d") == "postgresql://me:secret@host/db"
    assert moving.described("postgresql://me:secret@host/db") == "postgresql://me:***@host/db"
    assert moving.target_location(str(tmp_path)) == tmp_path.resolve() / "engram.db"


def test_vectors_read_for_the_copy_are_those_vec0_returns(filled):
    db = open_database(filled)
    try:
        table = moving._vector_index(db, "fake-embedder", "fake-64", 64).table
        expected = {i: np.frombuffer(v, np.float32).tobytes()
                    for i, v in db.query(f"SELECT memory_id, embedding FROM {table}")}
        assert vectors(db) == expected and expected
    finally:
        db.close()


@pytest.mark.parametrize("filled", ["words only"], indirect=True)
def test_the_command_copies_to_a_server_and_back_and_prints_the_counts(filled, postgres_url, tmp_path,
                                                                       monkeypatch, capsys):
    from engram.cli import main

    assert main(["migrate-data", "--to", postgres_url]) == 0      # from the data folder's database
    out, err = capsys.readouterr()
    assert "memories: " in err and "all counts match" in out
    memories = next(line for line in out.splitlines() if line.startswith("memories "))
    monkeypatch.setenv("ENGRAM_DATABASE_URL", postgres_url)       # from the server, back to a file
    assert main(["migrate-data", "--to", str(tmp_path / "back")]) == 0
    out, err = capsys.readouterr()
    assert memories in out.splitlines()
    assert main(["migrate-data", "--to", str(filled)]) == 2       # the data folder's store is not empty
    assert "already holds data" in capsys.readouterr().err


@pytest.mark.parametrize("filled", ["words only"], indirect=True)
def test_a_target_is_checked_before_copying(filled, postgres_url):
    fresh = moving.check_target(postgres_url)
    assert fresh.version.startswith("PostgreSQL 18") and fresh.holding == () and fresh.ready
    moving.migrate_data(filled, postgres_url)
    copied = moving.check_target(postgres_url)
    assert copied.copied_from == str(filled) and "memories" in copied.holding and copied.ready
    other = moving.check_target(filled)
    assert other.version.startswith("SQLite 3") and not other.ready


def test_ctrl_c_says_the_command_goes_on_next_time(filled, tmp_path, monkeypatch, capsys):
    from engram.cli import main

    monkeypatch.setattr(moving, "BATCH", 2)
    monkeypatch.setattr("engram.cli.moving.migrate_data",
                        lambda source, target, progress: moving.migrate_data(source, target, crash_at("memories", 2)))
    assert main(["migrate-data", "--to", str(tmp_path / "copy.db")]) == 130
    assert "goes on from there" in capsys.readouterr().err
    assert moving.check_target(tmp_path / "copy.db").copied_from == str(filled)
