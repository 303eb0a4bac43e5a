"""Each backend's vector index (sqlite-vec with its in-memory copy; pgvector with HNSW) keeps the
same promises: nearest neighbours inside the scope, never another user's, one table per
embedding model, and deleted memories' vectors gone."""

from __future__ import annotations

import numpy as np
import pytest

from engram.core.memory.records import now_iso
from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors import index_type

pytestmark = pytest.mark.both_backends

DIMENSIONS = 32
ALICE, BOB = Scope(user="alice", session="s1"), Scope(user="bob", session="s1")


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def model(db, name: str = "model-a", dimensions: int = DIMENSIONS):
    return index_type(db)(db, name, f"fingerprint of {name}", dimensions)


def remember(db, index, scope: Scope, count: int, seed: int, kind: str = "message",
             vectors: np.ndarray | None = None) -> tuple[list[int], np.ndarray]:
    """``count`` memories of ``scope`` with random unit vectors in ``index``; their ids and vectors."""
    vectors = unit(np.random.default_rng(seed).standard_normal((count, index.dimensions))) if vectors is None else vectors
    ids = []
    with db.transaction() as conn:
        for n in range(count):
            conn.execute("INSERT INTO memories(application, agent, user, session, kind, text, created_at, updated_at,"
                         " content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (*[v for _, v in scope.items()], kind, f"memory {seed}-{n}", now_iso(), now_iso(),
                          f"hash {seed}-{n}"))
            ids.append(conn.last_insert_rowid())
        index.put(conn, [(i, scope, kind) for i in ids], vectors)
    return ids, vectors


def exact(query: np.ndarray, ids: list[int], vectors: np.ndarray) -> dict[int, float]:
    """Cosine distance of each vector from the query (the reference)."""
    return dict(zip(ids, (1.0 - vectors @ (query / np.linalg.norm(query))).tolist()))


def nearest_ten_are_exact(index, user: str, queries: np.ndarray, ids: list[int], rows: np.ndarray) -> bool:
    """Are the user's nearest 10 for every query the exact top 10 of (ids, rows)?"""
    for query in queries:
        reference = exact(query, ids, rows)
        if {i for i, _ in index.nearest(query, Scope(user=user), (), 10)} != set(sorted(reference, key=reference.get)[:10]):
            return False
    return True


def test_nearest_neighbours_are_the_exact_ones_inside_the_scope_and_kinds(db):
    index = model(db)
    alice_ids, alice_rows = remember(db, index, ALICE, 300, seed=1)
    facts, fact_rows = remember(db, index, ALICE.narrowed(session="s2"), 100, seed=2, kind="fact")
    remember(db, index, BOB, 300, seed=3)
    for query in unit(np.random.default_rng(4).standard_normal((10, DIMENSIONS))):
        found = index.nearest(query, Scope(user="alice"), (), 10)
        reference = exact(query, alice_ids + facts, np.concatenate([alice_rows, fact_rows]))
        tenth = sorted(reference.values())[9]
        assert len(found) == 10 and found == sorted(found, key=lambda pair: pair[1])
        for memory_id, distance in found:
            assert distance == pytest.approx(reference[memory_id], abs=0.01)
            assert reference[memory_id] <= tenth + 0.02   # a true top 10, but for near-ties
        assert {i for i, _ in index.nearest(query, ALICE, (), 500)} == set(alice_ids)
        assert {i for i, _ in index.nearest(query, Scope(user="alice"), ("fact",), 500)} == set(facts)
        assert {i for i, _ in index.nearest(query, ALICE, ("fact",), 500)} == set()
    assert index.nearest(np.zeros(DIMENSIONS, np.float32), Scope(user="alice"), (), 5) == []


def test_a_neighbourhood_is_the_nearest_with_their_vectors(db):
    index = model(db)
    alice_ids, alice_rows = remember(db, index, ALICE, 300, seed=11)
    remember(db, index, BOB, 100, seed=12)
    stored = dict(zip(alice_ids, alice_rows))
    for query in unit(np.random.default_rng(13).standard_normal((5, DIMENSIONS))):
        ids, vectors = index.neighbourhood(query, Scope(user="alice"), (), 50)
        assert ids.tolist() == [i for i, _ in index.nearest(query, Scope(user="alice"), (), 50)]
        assert vectors.dtype == np.float32 and vectors.shape == (50, DIMENSIONS)
        for memory_id, vector in zip(ids.tolist(), vectors):
            assert vector == pytest.approx(stored[memory_id], abs=0.02)   # the in-memory copy is int8
    ids, vectors = index.neighbourhood(query, Scope(user="carol"), (), 10)
    assert ids.shape == (0,) and len(vectors) == 0


def test_a_search_never_returns_another_users_vectors(db):
    index = model(db)
    alice_ids, alice_rows = remember(db, index, ALICE, 200, seed=5)
    bob_ids, _ = remember(db, index, BOB.narrowed(application="app"), 50, seed=6)
    for query in alice_rows[:20]:   # bob asks with alice's very vectors
        assert {i for i, _ in index.nearest(query, Scope(user="bob"), (), 200)} == set(bob_ids)
        assert index.nearest(query, Scope(user="carol"), (), 10) == []
        assert index.nearest(query, Scope(), (), 10) == []   # the empty user is a user, who has none
    assert {i for i, _ in index.nearest(alice_rows[0], Scope(user="alice", application="app"), (), 10)} == set()
    assert index.nearest(alice_rows[7], Scope(user="alice"), (), 1)[0][0] == alice_ids[7]


def test_each_model_keeps_its_own_space(db):
    first = model(db, "model-a", DIMENSIONS)
    ids, rows = remember(db, first, ALICE, 40, seed=7)
    second = model(db, "model-b", 48)
    assert second.table != first.table and second.model_id != first.model_id
    assert first.count() == 40 and second.count() == 0
    assert [row[0] for row in second.missing(100)] == ids and first.missing(100) == []
    other = unit(np.random.default_rng(8).standard_normal((40, 48)))
    with db.transaction() as conn:
        second.put(conn, [(i, ALICE, "message") for i in ids[:30]], other[:30])
    assert second.count() == 30 and [row[0] for row in second.missing(100)] == ids[30:]
    assert second.nearest(other[3], Scope(user="alice"), (), 1) == [(ids[3], pytest.approx(0, abs=0.01))]
    assert first.nearest(rows[3], Scope(user="alice"), (), 1) == [(ids[3], pytest.approx(0, abs=0.01))]
    again = model(db, "model-a", DIMENSIONS)   # the same model, later: the same table, its vectors kept
    assert again.table == first.table and again.count() == 40


def test_a_changed_memory_moves_to_its_new_vector_and_kind(db):
    index = model(db)
    ids, rows = remember(db, index, ALICE, 50, seed=9)
    with db.transaction() as conn:   # as MemoryStore.update does
        index_type(db).remove_everywhere(conn, [ids[0]])
        conn.execute("UPDATE memories SET kind = 'fact' WHERE id = ?", (ids[0],))
        index.put(conn, [(ids[0], ALICE, "fact")], rows[1:2])
    assert index.count() == 50
    assert {i for i, _ in index.nearest(rows[1], Scope(user="alice"), (), 2)} == {ids[0], ids[1]}
    assert [i for i, _ in index.nearest(rows[1], Scope(user="alice"), ("fact",), 5)] == [ids[0]]


def test_a_memory_embedded_twice_keeps_the_later_vector(db):
    """Two processes may embed the same new memory: the second one's vector replaces the first's."""
    index = model(db)
    ids, rows = remember(db, index, ALICE, 30, seed=4)
    with db.transaction() as conn:   # as the other process's MemoryStore.embed_pending does, unaware
        index.put(conn, [(ids[0], ALICE, "message")], rows[1:2])
    assert index.count() == 30
    assert {i for i, _ in index.nearest(rows[1], Scope(user="alice"), (), 2)} == {ids[0], ids[1]}


def test_deleted_memories_lose_their_vectors_in_every_model(db):
    first, second = model(db, "model-a"), model(db, "model-b", 16)
    ids, rows = remember(db, first, ALICE, 60, seed=10)
    with db.transaction() as conn:
        second.put(conn, [(i, ALICE, "message") for i in ids], unit(np.random.default_rng(11).standard_normal((60, 16))))
    gone = ids[:20]
    with db.transaction() as conn:
        index_type(db).remove_everywhere(conn, gone)
        conn.execute(f"DELETE FROM memories WHERE id IN ({','.join('?' * len(gone))})", gone)
    assert first.count() == second.count() == 40
    for query in rows[:20]:
        assert not {i for i, _ in first.nearest(query, Scope(user="alice"), (), 100)} & set(gone)
    assert sorted(i for batch, _ in first.each() for i in batch.tolist()) == ids[20:]


def test_each_reads_every_users_vectors_batch_by_batch(db):
    index = model(db)
    alice_ids, alice_rows = remember(db, index, ALICE, 130, seed=12)
    bob_ids, bob_rows = remember(db, index, BOB, 70, seed=13)
    batches = list(index.each(batch=64))
    assert all(len(ids) == len(vectors) for ids, vectors in batches)
    read = {int(i): v for ids, vectors in batches for i, v in zip(ids, vectors)}
    assert all(ids.dtype == np.int64 and vectors.dtype == np.float32 for ids, vectors in batches)
    assert sorted(read) == sorted(alice_ids + bob_ids)
    for memory_id, vector in zip(alice_ids + bob_ids, np.concatenate([alice_rows, bob_rows])):
        np.testing.assert_array_equal(read[memory_id], vector)
