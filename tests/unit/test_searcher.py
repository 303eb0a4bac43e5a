"""The searcher reads only what it is handed: the database and one embedding space."""

from fakes import FakeEmbedder

from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.search.searcher import EmbeddingSpace, Searcher
from engram.core.memory.store import MemoryStore

ALICE = Scope(user="alice")


def test_a_search_uses_the_space_it_is_given_and_words_without_one(db):
    store = MemoryStore(db, FakeEmbedder())
    cat = store.add("the cat is called Mimi", ALICE)
    store.add("peanuts make me ill", ALICE)
    searcher = Searcher(db, store.get_many)
    space = EmbeddingSpace(store.embedder, store.vectors, lambda: 0)

    by_meaning = searcher.search("the cat is called Mimi", ALICE, SearchOptions(mode="meaning", k=1), space)
    assert [h.memory.id for h in by_meaning.hits] == [cat.id] and by_meaning.hits[0].similarity > 0.99

    by_words = searcher.search("Mimi", ALICE, SearchOptions(k=1), None)
    assert [h.memory.id for h in by_words.hits] == [cat.id] and by_words.hits[0].similarity is None
    assert by_words.notes == ["no embedding model: searched by words only"]


def test_memories_the_space_lacks_are_found_by_words_meanwhile(db):
    store = MemoryStore(db, FakeEmbedder())
    store.add("the cat is called Mimi", ALICE)
    space = EmbeddingSpace(store.embedder, store.vectors, lambda: 3)
    result = Searcher(db, store.get_many).search("Mimi", ALICE, SearchOptions(mode="meaning"), space)
    assert result.notes == ["3 memories are not embedded yet; they are found by words only"]
    assert [h.memory.text for h in result.hits][:1] == ["the cat is called Mimi"]
