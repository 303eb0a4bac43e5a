"""The memory store with the fake embedder (the real model's twin tests are in integration/)."""

import numpy as np
import pytest

from engram.core.errors import InvalidInput, NotFound
from engram.core.memory.records import MAX_TEXT_CHARS, NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore
from fakes import BrokenEmbedder

pytestmark = pytest.mark.both_backends

ALICE = Scope(user="alice", session="s1")
BOB = Scope(user="bob", session="s1")


def test_add_and_get(store):
    memory = store.add("I am allergic to peanuts", ALICE, "fact", importance=0.9, source_ids=(3, 4))
    again = store.get(memory.id)
    assert again.text == "I am allergic to peanuts"
    assert again.kind == "fact" and again.importance == 0.9 and again.source_ids == (3, 4)
    assert again.scope == ALICE and again.created_at.endswith("Z") and not again.pinned


def test_identical_text_in_same_scope_is_one_memory(store):
    first = store.add("I live in Lyon", ALICE)
    second = store.add("  I live in Lyon ", ALICE)
    assert first.id == second.id
    assert store.count(Scope(user="alice")) == 1
    assert store.add("I live in Lyon", BOB).id != first.id


def test_add_many_is_batched_and_ordered(store):
    items = [NewMemory(f"note number {i}", ALICE) for i in range(10)]
    memories = store.add_many(items)
    assert [m.text for m in memories] == [f"note number {i}" for i in range(10)]
    assert store.embedder.calls == 1
    assert store.pending_embeddings() == 0


@pytest.mark.parametrize("text", ["", "   \n\t", "x" * (MAX_TEXT_CHARS + 1)])
def test_bad_text_is_refused_and_changes_nothing(store, text):
    with pytest.raises(InvalidInput):
        store.add(text, ALICE)
    assert store.count() == 0


def test_unknown_kind_is_refused(store):
    with pytest.raises(InvalidInput, match="unknown memory kind"):
        store.add("hello", ALICE, "gossip")
    assert store.count() == 0


def test_bad_importance_is_refused(store):
    with pytest.raises(InvalidInput):
        store.add("hello", ALICE, importance=3)


def test_broken_embedder_leaves_store_unchanged(db):
    store = MemoryStore(db, BrokenEmbedder())
    with pytest.raises(RuntimeError):
        store.add("I am allergic to peanuts", ALICE)
    assert store.count() == 0
    if db.dialect == "sqlite":
        assert db.query("SELECT count(*) FROM word_indexes")[0][0] == 0   # not even an empty word index


def test_update_reindexes_words_and_vectors(store):
    memory = store.add("I drive a red car", ALICE)
    store.update(memory.id, text="I ride a blue bicycle", actor="user")
    assert store.search("car", ALICE, SearchOptions(mode="words")).hits == []
    assert store.search("bicycle", ALICE, SearchOptions(mode="words")).hits[0].memory.id == memory.id
    hit = store.search("I ride a blue bicycle", ALICE, SearchOptions(mode="meaning")).hits[0]
    assert hit.memory.id == memory.id and hit.similarity > 0.99


def test_update_fields_and_history(store):
    memory = store.add("I drive a red car", ALICE, actor="model")
    store.update(memory.id, importance=0.8, pinned=True, actor="user")
    store.update(memory.id, text="I drive a green car", actor="user")
    history = store.history(memory.id)
    assert [(c.action, c.actor) for c in history] == [("add", "model"), ("update", "user"), ("update", "user")]
    assert history[2].old_text == "I drive a red car" and history[2].new_text == "I drive a green car"
    again = store.get(memory.id)
    assert again.pinned and again.importance == 0.8


def test_update_to_the_text_of_another_memory_is_refused_and_changes_nothing(store):
    lyon = store.add("I live in Lyon", ALICE)
    paris = store.add("I live in Paris", ALICE)
    with pytest.raises(InvalidInput, match="an identical memory already exists") as caught:
        store.update(paris.id, text="I live in Lyon", importance=0.9)
    assert caught.value.hint
    assert store.get(paris.id).text == "I live in Paris" and store.get(paris.id).importance == paris.importance
    assert [c.action for c in store.history(paris.id)] == ["add"]
    assert store.update(lyon.id, text="I live in Lyon", importance=0.9).importance == 0.9   # its own text: fine


def test_delete_forgets_everywhere(store, db):
    memory = store.add("my bank PIN is 4321", ALICE)
    store.update(memory.id, text="my bank PIN is 9876")
    store.delete(memory.id)
    with pytest.raises(NotFound):
        store.get(memory.id)
    assert store.search("PIN", ALICE, SearchOptions(mode="words")).hits == []
    assert store.search("bank PIN", ALICE, SearchOptions(mode="meaning")).hits == []
    history = store.history(memory.id)
    assert [(c.action, c.old_text, c.new_text) for c in history] == [("delete", None, None)]
    assert store.vectors.count() == 0


def test_get_with_scope_hides_other_users(store):
    memory = store.add("secret of alice", ALICE)
    with pytest.raises(NotFound):
        store.get(memory.id, Scope(user="bob"))
    assert store.get_many([memory.id], Scope(user="bob")) == []


def test_list_filters(store):
    store.add("likes tea", ALICE, "preference")
    store.add("buy milk", ALICE, "task")
    store.add("buy bread", Scope(user="alice", session="s2"), "task")
    assert {m.text for m in store.list(Scope(user="alice"), kinds=["task"])} == {"buy milk", "buy bread"}
    assert [m.text for m in store.list(Scope(user="alice", session="s2"))] == ["buy bread"]
    assert [m.text for m in store.list(Scope(user="alice"), contains="MILK")] == ["buy milk"]


def test_search_modes_and_scores(store):
    store.add("I am allergic to peanuts", ALICE)
    store.add("The train leaves at noon", ALICE)
    for mode in ("hybrid", "words", "meaning"):
        hits = store.search("peanuts allergic", Scope(user="alice"), SearchOptions(mode=mode, k=1)).hits
        assert hits[0].memory.text == "I am allergic to peanuts", mode
        assert 0 < hits[0].score <= 1


def test_search_never_crosses_users(store):
    store.add("peanuts are dangerous for me", ALICE)
    for mode in ("hybrid", "words", "meaning"):
        assert store.search("peanuts", Scope(user="bob"), SearchOptions(mode=mode)).hits == []


def test_superseded_memories_are_not_recalled(store):
    old = store.add("I live in Paris", ALICE)
    new = store.add("I live in Berlin", ALICE)
    store.update(old.id, superseded_by=new.id)
    texts = [h.memory.text for h in store.search("live", ALICE, SearchOptions(k=5)).hits]
    assert texts == ["I live in Berlin"]


def test_threshold_drops_unrelated_meaning(store):
    store.add("The train leaves at noon", ALICE)
    options = SearchOptions(mode="meaning", threshold=0.5)
    assert store.search("peanut allergy", ALICE, options).hits == []


def test_kind_filter_in_search(store):
    store.add("peanut butter recipe", ALICE, "fact")
    store.add("buy peanut butter", ALICE, "task")
    for mode in ("words", "meaning", "hybrid"):
        hits = store.search("peanut butter", ALICE, SearchOptions(mode=mode, kinds=("task",), k=5)).hits
        assert [h.memory.kind for h in hits] == ["task"], mode


def test_empty_query_is_refused(store):
    with pytest.raises(InvalidInput):
        store.search("  ", ALICE)


def test_deferred_embedding_is_found_by_words_then_embedded(store):
    memory = store.add("remember the blue door", ALICE, embed=False)
    assert store.pending_embeddings() == 1
    result = store.search("blue door", ALICE)
    assert [h.memory.id for h in result.hits] == [memory.id] and result.notes
    progress = []
    assert store.embed_pending(progress=lambda done, total: progress.append((done, total))) == 1
    assert progress == [(1, 1)] and store.pending_embeddings() == 0
    assert store.search("blue door", ALICE, SearchOptions(mode="meaning")).hits[0].memory.id == memory.id


def test_mark_accessed(store):
    memory = store.add("likes jazz", ALICE)
    store.mark_accessed([memory.id, memory.id])
    again = store.get(memory.id)
    assert again.access_count == 2 and again.last_accessed_at is not None


def test_new_embedding_model_never_mixes_vector_spaces(db):
    from fakes import FakeEmbedder

    old = MemoryStore(db, FakeEmbedder(64))
    old.add_many([NewMemory(f"fact {i} about peanuts", ALICE) for i in range(5)])
    new = MemoryStore(db, FakeEmbedder(32))
    assert new.vectors.table != old.vectors.table
    assert new.pending_embeddings() == 5
    result = new.search("peanuts", ALICE, SearchOptions(mode="meaning", k=5))
    assert result.hits  # found by words meanwhile, with a note that says so
    assert all(h.meaning_rank is None for h in result.hits) and result.notes
    assert new.embed_pending(batch=2) == 5 and new.pending_embeddings() == 0
    assert new.search("peanuts", ALICE, SearchOptions(mode="meaning", k=5)).hits[0].similarity is not None


def test_a_switch_of_embedding_model_while_the_store_is_in_use_never_mixes_spaces(db):
    """The switch arrives while a model is embedding (as from another thread): what that model
    embedded goes to its own table, the next work is the new model's, and a search in flight
    keeps one model's query and vectors."""
    from fakes import FakeEmbedder

    new = FakeEmbedder(32)

    class SwitchedMidway(FakeEmbedder):
        def embed(self, texts):
            vectors = super().embed(texts)
            if self.calls == switch_at_call:
                store.use_embedder(new)
            return vectors

    def stored(index) -> dict[int, np.ndarray]:
        rows = db.query(f"SELECT memory_id, embedding FROM {index.table}")
        # vec0 gives the vector's bytes, pgvector a Vector
        return {i: v.to_numpy() if hasattr(v, "to_numpy") else np.frombuffer(v, np.float32) for i, v in rows}

    store = MemoryStore(db, None)
    ids = [m.id for m in store.add_many([NewMemory(f"fact {i} about peanuts", ALICE) for i in range(5)])]
    old, switch_at_call = SwitchedMidway(64), 1
    store.use_embedder(old)
    old_index = store.vectors
    assert store.embed_pending(batch=2) == 2 + 5          # one batch with the old model, then all with the new
    assert stored(old_index).keys() == set(ids[:2]) and store.vectors.dimensions == 32
    assert stored(store.vectors).keys() == set(ids) and store.pending_embeddings() == 0
    for memory_id, vector in stored(store.vectors).items():
        assert np.allclose(vector, new.embed([store.get(memory_id).text])[0], atol=1e-6)

    old, switch_at_call = SwitchedMidway(64), 1            # a memory added while the switch happens
    store.use_embedder(old)
    added = store.add("the cat is called Mimi", ALICE)
    assert added.id in stored(old_index) and store.vectors.dimensions == 32 and store.pending_embeddings() == 1

    old, switch_at_call = SwitchedMidway(64), 1            # a search while the switch happens
    store.use_embedder(old)
    hits = store.search("Mimi the cat", ALICE, SearchOptions(mode="meaning")).hits
    assert hits[0].memory.id == added.id and hits[0].similarity > 0.5


def test_a_full_disk_is_a_clear_error_and_changes_nothing(tmp_path):
    """SQLite's own "database or disk is full" (here: the file may not grow, as on a full disk)."""
    from engram.core.storage.database import Database
    from engram.core.errors import DataDirError
    from fakes import FakeEmbedder

    db = Database(tmp_path / "engram.sqlite")
    store = MemoryStore(db, FakeEmbedder())
    kept = store.add("I am allergic to peanuts", ALICE, "fact")
    pages = db.query_one("PRAGMA page_count")[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(DataDirError, match="is full") as caught:
        store.add_many([NewMemory(f"a long note number {n} " * 40, ALICE, "fact") for n in range(200)])
    assert "free some space" in caught.value.hint
    assert [m.id for m in store.list(Scope(user="alice"), limit=None)] == [kept.id]
    db.execute(f"PRAGMA max_page_count = {pages * 100}")
    store.add("and now there is room", ALICE, "fact")
    assert store.count(Scope(user="alice")) == 2
    assert [h.memory.id for h in store.search("peanuts", Scope(user="alice"), SearchOptions(mode="words")).hits] \
        == [kept.id]


def test_a_full_disk_inside_a_transaction_inside_another_is_said_once(tmp_path):
    from engram.core.storage.database import Database
    from engram.core.errors import DataDirError

    db = Database(tmp_path / "engram.sqlite")
    store = MemoryStore(db, None)
    store.add("kept", ALICE, "fact")
    db.execute(f"PRAGMA max_page_count = {db.query_one('PRAGMA page_count')[0]}")
    with pytest.raises(DataDirError, match="is full"):
        with db.transaction():
            store.add_many([NewMemory(f"note {n} " * 60, ALICE, "fact") for n in range(100)])
    assert [m.text for m in store.list(Scope(user="alice"))] == ["kept"]
    assert db.query_one("SELECT 1")   # the connection is usable afterwards


@pytest.mark.sqlite_only
def test_listing_the_newest_memories_reads_them_in_order_without_sorting_them_all(store, monkeypatch):
    """At a million memories, sorting every one of a user's memories took 3-4 s per listing; the
    plan must read the newest first from an index (checked on the statement list() runs)."""
    store.add_many([NewMemory(f"note {n}", ALICE, kind) for n, kind in enumerate(["fact", "message"] * 20)])
    ran = []
    query = store.db.query
    monkeypatch.setattr(store.db, "query", lambda sql, params=(): ran.append((sql, params)) or query(sql, params))
    newest = store.list(Scope(user="alice"), limit=5)
    assert [m.text for m in newest] == [f"note {n}" for n in range(39, 34, -1)]
    plan = " ".join(str(row) for row in query(f"EXPLAIN QUERY PLAN {ran[-1][0]}", ran[-1][1]))
    assert "memories_by_user_time" in plan and "TEMP B-TREE" not in plan
