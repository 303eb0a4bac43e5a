"""The embedder computes each distinct text once: within a call, and again while it is among the
texts it embedded last (with the bundled multilingual-e5-small, counting what reaches llama.cpp)."""

import numpy as np
import pytest

pytestmark = pytest.mark.real_model


@pytest.fixture
def computed(real_embedder, monkeypatch):
    """The prefixed texts that reach llama.cpp (as tokens), in order."""
    texts: list[str] = []
    tokens = real_embedder._tokens

    def counting(text):
        texts.append(text)
        return tokens(text)

    monkeypatch.setattr(real_embedder, "_tokens", counting)
    return texts


def test_a_text_said_twice_is_computed_once(real_embedder, computed):
    first = real_embedder.embed(["今天又下雨了 (recent-1)", "ok (recent-1)", "今天又下雨了 (recent-1)"])
    again = real_embedder.embed(["ok (recent-1)"])
    assert computed == ["passage: 今天又下雨了 (recent-1)", "passage: ok (recent-1)"]
    assert np.array_equal(first[0], first[2]) and np.array_equal(first[1], again[0])
    assert not np.array_equal(first[0], first[1])


def test_a_query_is_not_taken_for_the_memory_of_the_same_words(real_embedder, computed):
    as_memory = real_embedder.embed(["花生过敏 (recent-2)"])[0]
    as_query = real_embedder.embed_query("花生过敏 (recent-2)")
    assert real_embedder.embed_query("花生过敏 (recent-2)") is not as_query   # a copy: callers cannot spoil it
    assert computed == ["passage: 花生过敏 (recent-2)", "query: 花生过敏 (recent-2)"]
    assert as_memory @ as_query < 0.99


def test_only_the_last_texts_are_kept_and_a_long_call_still_gets_all_its_vectors(real_embedder, computed,
                                                                                monkeypatch):
    monkeypatch.setattr(real_embedder, "RECENT", 2)
    texts = [f"message number {n} (recent-3)" for n in range(5)]
    vectors = real_embedder.embed(texts)        # more new texts than are kept
    assert len(computed) == 5
    real_embedder.embed(texts[3:])              # the last two are kept
    assert len(computed) == 5
    assert real_embedder.embed(texts[:1])[0] @ vectors[0] > 0.9999   # the first is computed again (alone: rounding)
    assert len(computed) == 6
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert min(vectors[i] @ vectors[j] for i in range(5) for j in range(5) if i != j) < 0.999
