"""Search ranking: score fusion and conversational context (neighbouring turns, sessions)."""

import numpy as np
import pytest

from engram.core.models.embeddings import ModelTraits, relatedness, traits_of
from engram.core.errors import InvalidInput
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore
from engram.core.memory.search.words.bm25 import words_ranked

pytestmark = pytest.mark.both_backends

ALICE = Scope(user="alice")
PLAIN = dict(neighbour_weight=0.0, session_weight=0.0)


@pytest.fixture
def chat(store):
    """Two sessions of alice's and one of bob's, stored interleaved."""
    s1, s2 = Scope(user="alice", session="s1"), Scope(user="alice", session="s2")
    ids = {}
    ids["question"] = store.add("what did you do on sunday", s1, "message").id
    ids["bob"] = store.add("bob went sailing", Scope(user="bob", session="s1"), "message").id
    ids["reply"] = store.add("went hiking with the kids", s1, "message").id
    ids["cat"] = store.add("my cat likes tuna", s2, "message").id
    return ids


def found(store, query, **options):
    return [h.memory.id for h in store.search(query, ALICE, SearchOptions(k=10, **options)).hits]


def test_a_reply_is_found_through_the_turn_it_answers(store, chat):
    assert chat["reply"] not in found(store, "sunday", mode="words", **PLAIN)
    for mode, fusion in (("words", "scores"), ("hybrid", "scores"), ("hybrid", "rrf")):
        hits = found(store, "sunday", mode=mode, fusion=fusion)
        assert hits[:2] == [chat["question"], chat["reply"]], (mode, fusion)


def test_neighbours_stay_inside_the_session_and_the_scope(store, chat):
    assert set(found(store, "sunday", mode="words", neighbour_weight=1.0)) == {chat["question"], chat["reply"]}
    for mode in ("meaning", "hybrid"):
        hits = found(store, "sunday", mode=mode, neighbour_weight=1.0)
        assert chat["bob"] not in hits and all(store.get(i).scope.user == "alice" for i in hits), mode


def test_context_never_outranks_the_match_itself(store, chat):
    result = store.search("sunday", ALICE, SearchOptions(mode="words", k=3))
    assert result.hits[0].memory.id == chat["question"]
    assert result.hits[0].score > result.hits[1].score > 0
    assert all(0 < h.score <= 1 for h in result.hits)


def test_the_other_partys_answer_to_a_question_rises_to_its_score(store):
    """The assistant asks, the person answers: the answer holds what a later search wants and
    rises to 0.9 of the question's score, right after it. A person's own next message after their
    own question does not answer it (a neighbour's share only)."""
    dinner, cooking = Scope(user="alice", session="dinner"), Scope(user="alice", session="cooking")
    question = store.add("What is your favourite dish?", dinner, "message", source={"role": "assistant"}).id
    answer = store.add("Coconut milk ice cream, so creamy", dinner, "message", source={"role": "user"}).id
    asked = store.add("Which dish is my favourite?", cooking, "message", source={"role": "user"}).id
    follow_up = store.add("Never mind, I remember now", cooking, "message", source={"role": "user"}).id

    def scores(**options):
        hits = store.search("favourite dish", ALICE, SearchOptions(mode="words", k=10, session_weight=0.0, **options))
        return {h.memory.id: h.score for h in hits.hits}

    found = scores()
    assert found[answer] == pytest.approx(0.9 * found[question])
    assert found[follow_up] == pytest.approx(0.3 * found[asked])
    found = scores(threshold=0.5)   # only what a side found joins, and what answers it
    assert answer in found and follow_up not in found
    found = scores(answer_weight=0.3)
    assert found[answer] == pytest.approx(0.3 * found[question])
    assert answer not in scores(answer_weight=0.0, neighbour_weight=0.0)


def test_rank_fusion_is_still_available(store, chat):
    for fusion in ("rrf", "scores"):
        assert found(store, "hiking kids", fusion=fusion, **PLAIN)[0] == chat["reply"]


def test_unknown_fusion_is_refused():
    with pytest.raises(InvalidInput):
        SearchOptions(fusion="max")


def test_the_remembered_pending_count_follows_changes(store):
    store.add("remember the blue door", ALICE, "message", embed=False)
    assert store.search("blue door", ALICE).notes
    store.embed_pending()
    assert store.search("blue door", ALICE).notes == []
    store.add("and the red gate", ALICE, "message", embed=False)
    assert store.search("red gate", ALICE).notes


@pytest.mark.sqlite_only
def test_each_users_words_are_kept_and_searched_in_their_own_index(store):
    from engram.core.memory.search.words import index as word_index
    from engram.core.memory.records import NewMemory

    bobs = store.add_many([NewMemory(f"peanut butter note {n}", Scope(user="bob", session="s"), "fact")
                           for n in range(10)])
    mine = store.add("peanut allergy", Scope(user="alice", session="s"), "fact")
    words = SearchOptions(mode="words", k=20)
    assert [h.memory.id for h in store.search("peanut", Scope(user="alice"), words).hits] == [mine.id]
    assert len(store.search("peanut", Scope(user="bob"), words).hits) == 10
    store.delete(bobs[0].id)
    store.update(bobs[1].id, text="almond butter")
    sizes = {user: word_index.documents(store.db, word_index.searched(store.db, user)) for user in ("alice", "bob")}
    assert sizes == {"alice": 1, "bob": 9}
    assert len(store.search("peanut", Scope(user="bob"), words).hits) == 8
    assert word_index.searched(store.db, "carol") is None   # no memories: no index made


@pytest.mark.sqlite_only
def test_a_users_words_are_weighed_by_their_own_memories_as_fts5_would_alone(db, tmp_path):
    """Among many people's memories a search weighs terms by the searcher's own memories: the
    scores equal FTS5's bm25() in a database that holds only the searcher's (same lengths)."""
    from engram.core.storage.database import Database
    from engram.core.memory.records import NewMemory
    from engram.core.memory.store import MemoryStore

    alice = [f"{a} {b} walk today" for a in ("red", "blue", "green") for b in ("dog", "cat", "bird")]
    others = [f"dog {a} {b} {c}" for a in ("red", "tall", "old", "new") for b in ("cat", "hat", "car") for c in
              ("one", "two")] * 2
    shared = MemoryStore(db, None)
    shared.add_many([NewMemory(t, Scope(user="alice", session="s"), "fact") for t in alice])
    shared.add_many([NewMemory(t, Scope(user=f"user{n % 5}", session="s"), "fact") for n, t in enumerate(others)])
    alone = MemoryStore(Database(tmp_path / "alone.sqlite"), None)
    alone.add_many([NewMemory(t, Scope(user="alice", session="s"), "fact") for t in alice])
    words = SearchOptions(mode="words", k=20, neighbour_weight=0, session_weight=0)
    for query in ("red dog", "blue bird walk", "cat"):
        among = {shared.get(i).text: score for i, score in words_ranked(shared.db, query, Scope(user="alice"), words)}
        only = {alone.get(i).text: score for i, score in words_ranked(alone.db, query, Scope(user="alice"), words)}
        assert among.keys() == only.keys() and all(among[t] == pytest.approx(only[t]) for t in only)


def test_a_search_inside_a_transaction_runs_without_waiting_for_itself(store):
    """Hybrid search hands words to a worker thread, which needs the database: inside a
    transaction this thread holds it, so the search must not hand work over (it would wait forever)."""
    import threading

    store.add("I am allergic to peanuts", Scope(user="alice", session="s"), "fact")
    found = []

    def search_in_transaction():
        with store.db.transaction():
            found.extend(store.search("peanuts", Scope(user="alice")).hits)

    worker = threading.Thread(target=search_in_transaction, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive() and [h.memory.text for h in found] == ["I am allergic to peanuts"]


def test_the_query_is_embedded_as_a_query_and_only_it(store):
    store.add("remember the blue door", ALICE, "message")
    store.search("which door", ALICE, SearchOptions(mode="meaning"))
    assert store.embedder.queries == ["which door"]


def test_similarity_is_measured_from_the_models_unrelated_point(db):
    """A model whose unrelated texts lie at cosine 0.5 (e5's lie near 0.75): a search sees the
    cosine rescaled from there, so thresholds and the fusion with words mean the same for any model."""
    from fakes import FakeEmbedder

    plain, shifted = FakeEmbedder(), FakeEmbedder()
    shifted.unrelated_similarity = 0.5
    similarity = {}
    for name, embedder in (("plain", plain), ("shifted", shifted)):
        store = MemoryStore(db, embedder)
        store.add("the blue door is locked", ALICE, "message")
        hit = store.search("blue door", ALICE, SearchOptions(mode="meaning")).hits[0]
        similarity[name] = hit.similarity
        cosine = float(embedder.embed(["the blue door is locked"])[0] @ embedder.embed_query("blue door"))
        assert similarity[name] == pytest.approx(relatedness(cosine, embedder.unrelated_similarity), abs=1e-3)
    assert similarity["shifted"] == pytest.approx(2 * similarity["plain"] - 1, abs=1e-3)
    above = SearchOptions(mode="meaning", threshold=similarity["shifted"] + 0.01)
    assert not MemoryStore(db, shifted).search("blue door", ALICE, above).hits


def test_models_are_recognised_by_the_name_in_their_header():
    e5 = traits_of("multilingual-e5-small")
    assert (e5.query_prefix, e5.document_prefix) == ("query: ", "passage: ") and 0 < e5.unrelated_similarity < 1
    assert traits_of("Multilingual E5 Base") == e5
    assert traits_of("all-MiniLM-L6-v2") == ModelTraits() == traits_of("multilingual-e5-large-instruct")
    assert relatedness(e5.unrelated_similarity, e5.unrelated_similarity) == 0 and relatedness(1.0, 0.75) == 1


class TableEmbedder:
    """Vectors set by hand: a query and memories at chosen cosine similarities to it."""

    name, fingerprint, dimensions, unrelated_similarity = "table", "table-3", 3, 0.0

    def __init__(self, similarity: dict[str, float]):
        self.similarity = similarity

    def embed(self, texts):
        return np.array([[s, (1 - s * s) ** 0.5, 0.0] for s in map(self.similarity.__getitem__, texts)],
                        dtype=np.float32)

    def embed_query(self, query):
        return np.array([1.0, 0.0, 0.0], dtype=np.float32)


def test_context_shares_only_what_lifts_a_memory_above_the_crowd(db):
    """A multilingual model finds every message of a language somewhat similar (here 0.5); a
    session of such messages must not outrank, by its neighbours' shares, the one clearly closer
    memory that is alone in its session (a fact said once, asked about in another chat)."""
    chat = [f"chat {n}" for n in range(6)]
    store = MemoryStore(db, TableEmbedder({**dict.fromkeys(chat, 0.5), "fact": 0.6}))
    for text in chat:
        store.add(text, Scope(user="alice", session="everyday"), "message")
    fact = store.add("fact", Scope(user="alice", session="once"), "message")
    hits = store.search("question", ALICE, SearchOptions(mode="meaning", k=3)).hits
    assert hits[0].memory.id == fact.id
    assert len({round(h.score, 6) for h in hits[1:]}) == 1   # the crowd shares nothing: all alike
