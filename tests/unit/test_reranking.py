"""The reranker stage: the best fused candidates reordered by a cross-encoder, said in every result."""

import pytest

from engram.core.errors import InvalidInput
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from fakes import FakeReranker

ALICE = Scope(user="alice")
TEXTS = ("peanuts allergy", "an allergy to peanuts since school", "peanuts peanuts peanuts", "the weather was fine")


@pytest.fixture
def texts(store):
    for text in TEXTS:
        store.add(text, ALICE)
    return TEXTS


def test_the_best_candidates_come_in_the_rerankers_order_with_its_scores(store, texts):
    plain = store.search("peanuts allergy", ALICE, SearchOptions(k=2, mode="words"))
    assert plain.hits[0].memory.text == texts[0] and not plain.reranker
    assert all(h.rerank_score is None for h in plain.hits)
    store.reranker = reranker = FakeReranker({texts[2]: 0.9, texts[1]: 0.4, texts[0]: 0.1})
    result = store.search("peanuts allergy", ALICE, SearchOptions(k=2, mode="words"))
    assert [h.memory.text for h in result.hits] == [texts[2], texts[1]]
    assert [h.rerank_score for h in result.hits] == [h.score for h in result.hits] == pytest.approx([0.9, 0.4])
    assert result.reranker == "fake-reranker" and result.rerank_ms > 0
    (query, documents), = reranker.calls
    assert query == "peanuts allergy" and sorted(documents) == sorted(texts[:3])   # every candidate fusion found


def test_it_reads_at_most_rerank_candidates_but_never_fewer_than_k(store, texts):
    store.reranker = reranker = FakeReranker({})
    store.search("peanuts allergy", ALICE, SearchOptions(k=3, rerank_candidates=1, mode="words"))
    assert len(reranker.calls[-1][1]) == 3
    store.search("peanuts allergy", ALICE, SearchOptions(k=1, rerank_candidates=2, mode="words"))
    assert len(reranker.calls[-1][1]) == 2
    result = store.search("peanuts", ALICE, SearchOptions(k=1, rerank_candidates=0, mode="words"))
    assert len(reranker.calls) == 2 and not result.reranker and result.hits[0].rerank_score is None
    with pytest.raises(InvalidInput):
        SearchOptions(rerank_candidates=-1)


def test_recall_and_the_turn_record_say_the_reranker_took_part(make_engram):
    engram = make_engram(("Noted.",), window_messages=2)
    engram.sessions.get_or_create("one", "u")
    engram.turn_engine.send("one", "I am allergic to peanuts")
    engram.outbox.run_due()
    engram.sessions.get_or_create("two", "u")
    plain = engram.turn_engine.send("two", "any peanuts snack ideas").record
    assert "reranker" not in plain.recall and "rerank_ms" not in plain.timings
    assert plain.recalled[0]["reranked"] is False
    engram.store.reranker = FakeReranker({"I am allergic to peanuts": 0.8})
    record = engram.turn_engine.send("two", "peanuts allergic snack").record
    assert record.recall["reranker"] == "fake-reranker" and record.timings["rerank_ms"] > 0
    assert record.recalled[0]["text"] == "I am allergic to peanuts" and record.recalled[0]["reranked"] is True
    assert record.recalled[0]["score"] == pytest.approx(0.8)
