"""Coverage-weighted fusion: a word match counts by how much of the query it holds, so a memory
that shares one incidental word with the question no longer outranks the one that means it."""

import pytest
from test_search import TableEmbedder

from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.search.coverage import ideal_bm25
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.search.words.okapi import idf
from engram.core.memory.store import MemoryStore

ALICE = Scope(user="alice")
PLAIN = dict(neighbour_weight=0.0, session_weight=0.0, importance_weight=0.0, pinned_weight=0.0,
             recency_weight=0.0, heat_weight=0.0)


@pytest.mark.both_backends
def test_the_ideal_is_what_a_memory_holding_each_query_term_once_scores(db):
    """Memories of one length: the one holding "red" and "dog" once scores the ideal of "red dog"
    exactly (FTS5's own bm25()); a term no memory holds counts as one held once (or not at all, when
    told), and a user without memories has no ideal."""
    store = MemoryStore(db, None)
    store.add_many([NewMemory(f"{a} {b} walk today", Scope(user="alice", session="s"), "fact")
                    for a in ("red", "blue", "green") for b in ("dog", "cat", "bird")])
    store.add("red red red dog", Scope(user="bob", session="s"), "fact")       # another user's words weigh nothing
    words = SearchOptions(mode="words", k=20, **PLAIN)
    best = dict(store.words.ranked(db, "red dog", ALICE, words))
    assert max(best.values()) == pytest.approx(ideal_bm25(store.words, db, "red dog", "alice"))
    documents = 9
    assert ideal_bm25(store.words, db, "red dog zebra", "alice") == pytest.approx(
        ideal_bm25(store.words, db, "red dog", "alice") + idf(documents, 1))
    assert ideal_bm25(store.words, db, "red dog zebra", "alice", absent=0.0) == pytest.approx(
        ideal_bm25(store.words, db, "red dog", "alice"))
    assert 0 < ideal_bm25(store.words, db, "red", "alice") < ideal_bm25(store.words, db, "red dog", "alice")
    assert ideal_bm25(store.words, db, "red dog", "carol") == 0.0



def test_memories_added_between_the_two_counts_do_not_fail_the_search(db, monkeypatch):
    """The index's size is read before its terms are counted; a writer may add memories between."""
    from engram.core.memory.search.words import index as word_index

    store = MemoryStore(db, None)
    store.add_many([NewMemory(f"red dog {n}", Scope(user="alice", session="s"), "fact") for n in range(3)])
    monkeypatch.setattr(word_index, "documents", lambda db, table: 1)
    assert ideal_bm25(store.words, db, "red dog", "alice") == pytest.approx(2e-6)


QUESTION = "what sport does my son play after school"
PIANO = "I play the piano"            # shares "play", means something else
BOXING = "Tom goes to boxing class"   # shares no word, means it


def test_one_incidental_word_no_longer_outranks_the_memory_that_means_it(db):
    similarity = {PIANO: 0.1, "My son is nine": 0.2, "School starts in September": 0.1, BOXING: 0.7}
    store = MemoryStore(db, TableEmbedder(similarity))
    ids = {text: store.add(text, Scope(user="alice", session=f"s{n}"), "message").id
           for n, text in enumerate(similarity)}

    def first(**options) -> int:
        return store.search(QUESTION, ALICE, SearchOptions(k=4, **PLAIN | options)).hits[0].memory.id

    assert first(coverage_weight=0.0) != ids[BOXING]     # the best word match counted in full
    assert first() == ids[BOXING]
    assert first(mode="words") == first(mode="words", coverage_weight=0.0)   # one side alone: order unchanged


def test_a_query_word_no_memory_holds_keeps_the_one_that_is_held_from_speaking_for_the_query(db):
    """"weekend" is held by a note about a hike; the dog and the outing by no memory's words. Counted
    as the query's, those leave the hike's one word a part of the query, and meaning decides."""
    hike, dog = "We hiked Moganshan at the weekend", "Lucky is our golden retriever"
    store = MemoryStore(db, TableEmbedder({hike: 0.2, dog: 0.6, "The printer is out of ink": 0.1}))
    ids = {text: store.add(text, Scope(user="alice", session=f"s{n}"), "message").id
           for n, text in enumerate((hike, dog, "The printer is out of ink"))}

    def first(**options) -> int:
        return store.search("weekend outing puppy park", ALICE, SearchOptions(k=3, **PLAIN | options)).hits[0].memory.id

    assert first(absent_weight=0.0) == ids[hike]
    assert first() == ids[dog]
