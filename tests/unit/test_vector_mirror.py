"""The in-memory copy of a user's vectors: same answers as vec0, and in step with every change."""

import numpy as np
import pytest

from engram.core.memory.search.vectors import table as vectors
from engram.core.memory.search.vectors.mirror import SHORTLIST_MIN, UserVectors, bits_of, stored
from engram.core.storage.database import Database
from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore
from fakes import FakeEmbedder

DIMENSIONS = 64
ALICE = Scope(user="alice", session="s1")


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def fill(store: MemoryStore, scope: Scope, count: int, seed: int, kind: str = "message") -> tuple[list[int], np.ndarray]:
    rows = unit(np.random.default_rng(seed).standard_normal((count, DIMENSIONS)))
    stored = store.add_many([NewMemory(f"memory {seed}-{n}", scope, kind) for n in range(count)], vectors=rows)
    return [m.id for m in stored], rows


def vec0_nearest(store: MemoryStore, query: np.ndarray, user: str, k: int) -> list[tuple[int, float]]:
    """vec0's own exact KNN, the reference the mirror must agree with."""
    return store.db.query(f"SELECT memory_id, distance FROM {store.vectors.table} WHERE embedding MATCH ?"
                          " AND k = ? AND user = ? ORDER BY distance", (query.tobytes(), k, user))


@pytest.fixture
def store(db):
    return MemoryStore(db, FakeEmbedder(DIMENSIONS))


def test_small_collections_get_vec0s_ranking_up_to_int8_rounding(store):
    fill(store, ALICE, 200, seed=1)
    for query in unit(np.random.default_rng(2).standard_normal((20, DIMENSIONS))):
        mine = store.vectors.nearest(query, Scope(user="alice"), (), 10)
        exact = dict(vec0_nearest(store, query, "alice", 200))
        assert len(mine) == 10 and mine == sorted(mine, key=lambda pair: pair[1])
        for memory_id, distance in mine:
            assert distance == pytest.approx(exact[memory_id], abs=0.01)
            assert exact[memory_id] <= sorted(exact.values())[9] + 0.02   # a true top 10, but for near-ties


def test_large_collections_find_near_neighbours_through_the_bits(store):
    ids, rows = fill(store, ALICE, 3000, seed=3)  # more than the shortlist: the Hamming distance decides
    noise = np.random.default_rng(4).standard_normal((50, DIMENSIONS)) * 0.02
    targets = np.random.default_rng(5).choice(3000, 50, replace=False)
    for target, query in zip(targets, unit(rows[targets] + noise)):
        assert store.vectors.nearest(query, Scope(user="alice"), (), 3)[0][0] == ids[target]


def sharing_a_direction(rng: np.random.Generator, topics: np.ndarray, count: int) -> np.ndarray:
    """Unit vectors around topics, all along one strong common direction (unrelated ones have
    cosine ~0.74, as with multilingual-e5-small): nearly every sign bit is that direction's."""
    common = np.where(np.arange(DIMENSIONS) % 3, 1.0, -1.0) / np.sqrt(DIMENSIONS)
    rows = 2 * common + topics[rng.integers(0, len(topics), count)] + 0.7 * rng.standard_normal((count, DIMENSIONS)) / 8
    return unit(rows)


@pytest.mark.parametrize("block", [20_000, 700], ids=["loaded at once", "grown change by change"])
def test_the_shortlist_of_vectors_sharing_a_direction_holds_their_neighbours(block):
    """The bits are signs around the copy's centre: plain sign bits of such vectors shortlist
    fewer than half of the exact top 10 (checked here, so the set is a hard one); centred, the
    copy finds nearly all, whether it was loaded at once or grew (recentring as it doubles)."""
    rng = np.random.default_rng(30)
    topics = rng.standard_normal((200, DIMENSIONS)) / 8
    documents, queries = sharing_a_direction(rng, topics, 20_000), sharing_a_direction(rng, topics, 50)
    exact = np.argsort(-(queries @ documents.T), axis=1)[:, :10]
    copy = UserVectors(DIMENSIONS)
    for start in range(0, len(documents), block):
        rows = documents[start:start + block]
        copy.append(np.arange(start, start + len(rows)), rows, [("message", "", "", "")] * len(rows))

    def share_found(shortlists) -> float:
        return np.mean([len(set(found) & set(truth.tolist())) / 10 for found, truth in zip(shortlists, exact)])

    plain = [np.argpartition(np.bitwise_count(bits_of(documents) ^ bits_of(query[None, :])).sum(axis=1),
                             SHORTLIST_MIN)[:SHORTLIST_MIN] for query in queries]
    assert share_found(plain) < 0.5
    assert share_found([[i for i, _ in copy.nearest(query, Scope(), (), 10)] for query in queries]) > 0.9
    assert copy.centre @ documents.mean(axis=0) > 0.99 * np.linalg.norm(documents.mean(axis=0)) ** 2


def test_scope_and_kinds_filter_and_users_never_mix(store):
    alice_ids, rows = fill(store, ALICE, 50, seed=6)
    other_session, _ = fill(store, ALICE.narrowed(session="s2"), 50, seed=7, kind="fact")
    bob_ids, bob_rows = fill(store, Scope(user="bob", session="s1"), 50, seed=8)
    query = rows[0]
    assert set(i for i, _ in store.vectors.nearest(query, Scope(user="alice"), (), 200)) == set(alice_ids + other_session)
    assert set(i for i, _ in store.vectors.nearest(query, ALICE, (), 200)) == set(alice_ids)
    assert set(i for i, _ in store.vectors.nearest(query, Scope(user="alice"), ("fact",), 200)) == set(other_session)
    assert store.vectors.nearest(query, Scope(user="alice", session="nowhere"), (), 10) == []
    assert set(i for i, _ in store.vectors.nearest(bob_rows[0], Scope(user="bob"), (), 200)) == set(bob_ids)
    assert store.vectors.nearest(query, Scope(user="carol"), (), 10) == []
    assert store.vectors.nearest(query, Scope(), (), 500) == []   # the empty user is a user, who has none


def test_a_zero_query_vector_finds_nothing(store):
    fill(store, ALICE, 10, seed=9)
    assert store.vectors.nearest(np.zeros(DIMENSIONS, np.float32), Scope(user="alice"), (), 5) == []


def test_changes_by_another_connection_are_followed(tmp_path):
    path = tmp_path / "engram.sqlite"
    mine, theirs = MemoryStore(Database(path), FakeEmbedder(DIMENSIONS)), MemoryStore(Database(path), FakeEmbedder(DIMENSIONS))
    ids, rows = fill(mine, ALICE, 20, seed=10)
    assert mine.vectors.nearest(rows[3], Scope(user="alice"), (), 1)[0][0] == ids[3]   # loaded now
    added, added_rows = fill(theirs, ALICE, 5, seed=11)
    assert mine.vectors.nearest(added_rows[2], Scope(user="alice"), (), 1)[0][0] == added[2]
    theirs.delete(ids[3])
    assert ids[3] not in [i for i, _ in mine.vectors.nearest(rows[3], Scope(user="alice"), (), 30)]
    theirs.update(ids[4], text="a completely different text")   # re-embedded by their model
    moved = theirs.embedder.embed(["a completely different text"])[0]
    assert mine.vectors.nearest(moved, Scope(user="alice"), (), 1)[0] == (ids[4], pytest.approx(0.0, abs=0.02))


def test_a_copy_older_than_the_log_reloads(store, monkeypatch):
    ids, rows = fill(store, ALICE, 10, seed=12)
    store.vectors.nearest(rows[0], Scope(user="alice"), (), 1)
    monkeypatch.setattr(vectors, "LOG_KEPT", 3)
    added, added_rows = fill(store, ALICE, 10, seed=13)    # the log now starts after the copy's position
    assert store.vectors.nearest(added_rows[9], Scope(user="alice"), (), 1)[0][0] == added[9]
    assert len(store.vectors.nearest(rows[0], Scope(user="alice"), (), 100)) == 20


def test_many_deletions_compact_the_copy_and_keep_answers_right(store):
    ids, rows = fill(store, ALICE, 1200, seed=14)
    store.vectors.nearest(rows[0], Scope(user="alice"), (), 1)
    for memory_id in ids[:600]:   # fewer than RELOAD_AFTER: the copy follows the log
        store.delete(memory_id)
    copy = store.vectors.mirror._users["alice"]
    found = store.vectors.nearest(rows[700], Scope(user="alice"), (), 1000)
    assert copy.size == 600 and found[0][0] == ids[700]
    assert set(i for i, _ in found) == set(ids[600:])


def test_reading_vec0s_storage_gives_what_its_select_gives(store):
    """The mirror reads a user's chunks from vec0's storage tables (fast, partition by partition);
    vec0's own SELECT is the reference, here with holes left by deletions in several users' chunks."""
    users = [Scope(user=name, session="s") for name in ("alice", "bob", "carol")]
    ids = [fill(store, scope, 1500, seed=20 + n)[0] for n, scope in enumerate(users)]
    for memory_id in np.random.default_rng(23).choice(np.concatenate(ids), 400, replace=False):
        store.delete(int(memory_id))
    table, dimensions = store.vectors.table, store.vectors.dimensions
    assert list(stored(store.db.conn, table, dimensions, "")) == []   # nobody's memories are stored under the empty user
    for user in ("alice", "bob", "carol"):
        blocks = list(stored(store.db.conn, table, dimensions, user, block=1000))
        read_ids, read_vectors = np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks])
        reference = dict(store.db.query(f"SELECT memory_id, embedding FROM {store.vectors.table} WHERE user = ?",
                                        (user,)))
        assert sorted(read_ids.tolist()) == sorted(reference)
        for memory_id, vector in zip(read_ids, read_vectors):
            assert vector.tobytes() == reference[int(memory_id)]


def test_loading_a_copy_does_not_hold_up_writes(tmp_path, monkeypatch):
    """A user's vectors load on the database's second connection: a memory added meanwhile is
    stored at once (not after the load), and the copy takes it in before answering."""
    import threading

    from engram.core.memory.search.vectors import mirror as vector_mirror

    store = MemoryStore(Database(tmp_path / "engram.sqlite"), FakeEmbedder(DIMENSIONS))
    ids, rows = fill(store, ALICE, 30, seed=12)
    reading, written, gave_up = threading.Event(), threading.Event(), threading.Event()
    read_all = vector_mirror.stored

    def paused(*args, **kwargs):
        reading.set()
        if not written.wait(5):
            gave_up.set()
        yield from read_all(*args, **kwargs)

    monkeypatch.setattr(vector_mirror, "stored", paused)
    loading = threading.Thread(target=store.warm, args=("alice",))
    loading.start()
    assert reading.wait(10)
    new_ids, new_rows = fill(store, ALICE, 1, seed=13)   # while the load holds its snapshot
    assert not gave_up.is_set(), "the write waited for the load"
    written.set()
    loading.join(10)
    assert not loading.is_alive()
    assert store.vectors.nearest(new_rows[0], Scope(user="alice"), (), 1)[0][0] == new_ids[0]
    assert store.vectors.nearest(rows[5], Scope(user="alice"), (), 1)[0][0] == ids[5]
