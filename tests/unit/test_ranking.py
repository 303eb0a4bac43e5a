"""Ranking by standing (importance, pinning, recency, heat, validity) and notes as keys of the
messages they came from. Twin memories say the same words in two sessions, so relevance ties and
only the feature under test can order them."""

import re

import pytest

from engram.core.errors import InvalidInput
from engram.core.memory.scope import Scope
from engram.core.memory.records import DISTILLED_KINDS
from engram.core.memory.search.fusion import NOTE_KINDS, days_between, standing, with_keys
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore
from engram.core.storage import open_database
from fakes import FakeEmbedder

ALICE = Scope(user="alice")
PLAIN = dict(neighbour_weight=0.0, session_weight=0.0, importance_weight=0.0, pinned_weight=0.0,
             recency_weight=0.0, heat_weight=0.0)
TEA = "I drink green tea every morning"


def twins(store, first: dict | None = None, second: dict | None = None, text: str = TEA) -> tuple[int, int]:
    """The same words in sessions a and b (a stored first), with the given fields."""
    a = store.add(text, Scope(user="alice", session="a"), "fact", **(first or {})).id
    b = store.add(text, Scope(user="alice", session="b"), "fact", **(second or {})).id
    return a, b


def order(store, query: str = "green tea", mode: str = "hybrid", **weights) -> list[int]:
    return [h.memory.id for h in store.search(query, ALICE, SearchOptions(k=10, mode=mode, **PLAIN | weights)).hits]


@pytest.mark.parametrize("mode", ["hybrid", "words", "meaning"])
def test_the_more_important_and_the_pinned_memory_come_first(store, mode):
    plain, important = twins(store, {"importance": 0.2}, {"importance": 0.9})
    assert order(store, mode=mode) == [plain, important]                  # a tie: the older id first
    assert order(store, mode=mode, importance_weight=0.2) == [important, plain]
    store.update(plain, pinned=True)
    assert order(store, mode=mode, importance_weight=0.2, pinned_weight=0.5) == [plain, important]


def test_the_newer_memory_comes_first_as_seen_from_the_moment_asked(store):
    older, newer = twins(store, {"created_at": "2024-01-01T09:00:00.000Z"}, {"created_at": "2024-06-01T09:00:00.000Z"})
    default = SearchOptions().recency_weight
    assert order(store, recency_weight=default, now="2024-07-01T00:00:00Z") == [newer, older]
    # before the newer one was said, it is not yet valid: the older one is all there is
    assert order(store, recency_weight=default, now="2024-03-01T00:00:00+00:00") == [older]
    with pytest.raises(InvalidInput):
        SearchOptions(now="last tuesday")
    with pytest.raises(InvalidInput):
        SearchOptions(recency_half_life_days=0)


def test_recency_halves_every_half_life():
    features = standing(0.5, False, "2024-01-01T00:00:00.000Z", 0, None, "2024-01-31T00:00:00.000Z", 30)
    assert features == {"importance": 0.0, "pinned": 0.0, "recency": pytest.approx(0.5), "heat": 0.0}
    assert days_between("2024-01-01T00:00:00.000Z", "2024-01-02T12:00:00.000Z") == 1.5


def test_a_memory_recalled_often_and_lately_comes_first(store):
    cold, hot = twins(store)
    store.mark_accessed([hot])
    store.mark_accessed([hot])
    assert order(store, heat_weight=0.2) == [hot, cold]
    cooled = standing(0.5, False, "2024-01-01T00:00:00.000Z", 2, "2024-01-01T00:00:00.000Z",
                      "2024-03-01T00:00:00.000Z", 30)["heat"]
    assert 0 < cooled < 0.75 / 2                                          # two recalls, two months ago


def test_standing_never_lifts_a_memory_that_does_not_match(store):
    matching = store.add(TEA, ALICE, "fact").id
    store.add("The car needs new tyres before winter", ALICE, "fact", importance=1.0, pinned=True)
    weights = dict(importance_weight=1.0, pinned_weight=1.0, recency_weight=1.0, heat_weight=1.0)
    assert order(store, **weights)[0] == matching


def test_an_expired_or_superseded_memory_is_only_history_and_the_current_one_wins(store):
    old, current = twins(store, {"created_at": "2024-01-01T09:00:00.000Z"}, {"created_at": "2024-02-01T09:00:00.000Z"})
    store.update(old, valid_to="2024-02-01T09:00:00.000Z")
    assert order(store) == [current]
    assert order(store, include_superseded=True) == [current, old]
    # as it was then: the newer one was not said yet
    assert order(store, include_superseded=True, now="2024-01-15T00:00:00.000Z") == [old, current]
    store.update(old, valid_to="2099-01-01T00:00:00.000Z", superseded_by=current)
    assert order(store) == [current]
    hits = store.search("green tea", ALICE, SearchOptions(include_superseded=True, k=5, **PLAIN)).hits
    assert [h.memory.id for h in hits] == [current, old] and hits[1].score == pytest.approx(hits[0].score / 2)


@pytest.mark.both_backends
def test_a_note_finds_the_message_it_came_from(store):
    said = store.add("yes, we finally did it last weekend", Scope(user="alice", session="a"), "message",
                     source_ids=(41,)).id
    for number, text in enumerate(["something else entirely", "the weather was lovely", "see you on monday"]):
        store.add(text, Scope(user="alice", session="b"), "message", source_ids=(50 + number,))
    note = store.add("Adopted a dog named Biscuit.", ALICE, "fact", source_ids=(41,)).id
    for mode in ("hybrid", "words", "meaning"):
        assert set(order(store, "dog Biscuit", mode=mode)[:2]) == {note, said}, mode
    assert said not in order(store, "dog Biscuit", mode="words", key_weight=0.0)
    # only when messages may be returned; a superseded note is no key
    assert order(store, "dog Biscuit", kinds=("fact",)) == [note]
    store.update(note, superseded_by=store.add("Gave Biscuit to a friend.", ALICE, "fact").id)
    assert said not in order(store, "dog Biscuit")


def test_postgresql_can_look_candidates_up_among_the_notes_alone(postgres_url):
    """``with_keys`` writes the notes' kinds as the index of notes (migration 9) holds them, so
    the server may look the candidates up there, not in every memory's row (which plan it takes
    depends on the table's size: tests/bench/scale.py at a million)."""
    db = open_database(postgres_url)
    store = MemoryStore(db, FakeEmbedder())
    said = store.add("message", ALICE, "message", source_ids=(7,)).id
    note = store.add("a note", ALICE, "fact", source_ids=(7,)).id
    statements = []
    query = db.query
    db.query = lambda sql, params=(): statements.append(sql) or query(sql, params)
    assert with_keys(db, {note: 1.0}, SearchOptions()) == {note: 1.0, said: 1.0}
    predicate = db.query_one("SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i"
                             " WHERE i.indexrelid = 'memories_notes'::regclass")[0]
    assert set(re.findall(r"'(\w+)'", predicate)) == {kind.value for kind in DISTILLED_KINDS}
    assert f"n.kind IN {NOTE_KINDS}" in statements[0]
    db.close()


def test_a_message_a_note_lifts_into_the_best_shares_with_its_neighbours(store):
    """Neighbours count for the best ``context_candidates`` after the notes lifted their messages,
    so a message that only a note found, once among the best, lifts its next turn too."""
    session = Scope(user="alice", session="a")
    said = store.add("yes, we finally did it last weekend", session, "message", source_ids=(41,)).id
    reply = store.add("that is wonderful news", session, "message", source_ids=(42,)).id
    store.add("dogs need a walk every day", Scope(user="alice", session="b"), "message", source_ids=(43,))
    note = store.add("Adopted a dog named Biscuit.", ALICE, "fact", source_ids=(41,)).id
    lifted = dict(mode="words", key_weight=2.0, context_candidates=1, neighbour_weight=0.3)
    assert order(store, "dog Biscuit", **lifted)[:3] == [said, note, reply]
    assert reply not in order(store, "dog Biscuit", **lifted | {"key_weight": 0.5})
