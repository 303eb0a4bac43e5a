"""The store with the bundled all-MiniLM-L6-v2 GGUF: the fake embedder's real twin."""

import numpy as np
import pytest

from engram.core.errors import ModelError
from engram.core.embeddings import GGUFEmbedder
from engram.core.scope import Scope
from engram.core.search import SearchOptions
from engram.core.store import MemoryStore

pytestmark = pytest.mark.real_model

NOISE = [
    "The train to Lyon leaves at noon from platform 4.",
    "My sister's birthday is on the 3rd of May.",
    "I switched my phone plan to the cheaper one last month.",
    "The meeting with the landlord went well.",
    "I finished reading a novel about a lighthouse keeper.",
    "We painted the kitchen a pale green colour.",
]


@pytest.fixture
def real_store(db, real_embedder):
    return MemoryStore(db, real_embedder)


def test_embedder_gives_normalised_vectors_of_384_dimensions(real_embedder):
    vectors = real_embedder.embed(["hello world", "我对花生过敏", ""])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_meaning_beats_unrelated_text(real_embedder):
    allergy, question, train = real_embedder.embed(
        ["I am allergic to peanuts", "which foods should I avoid?", "The train leaves at noon"])
    assert allergy @ question > train @ question


def test_batch_equals_one_by_one(real_embedder):
    texts = ["alpha beta", "a longer sentence about cooking pasta", "花生"]
    batched = real_embedder.embed(texts)
    single = np.vstack([real_embedder.embed([t]) for t in texts])
    assert np.allclose(batched, single, atol=1e-3)


def test_allergy_found_across_sessions_of_the_same_user(real_store):
    real_store.add("I am allergic to peanuts", Scope(user="u", session="one"), "message")
    for n, text in enumerate(NOISE):
        real_store.add(text, Scope(user="u", session=f"noise{n}"), "message")
    hits = real_store.search("which foods should I avoid?", Scope(user="u"), SearchOptions(k=3)).hits
    assert "I am allergic to peanuts" in [h.memory.text for h in hits]


def test_chinese_substring_is_found(real_store):
    real_store.add("我对花生过敏", Scope(user="u", session="one"), "message")
    real_store.add("明天去北京出差", Scope(user="u", session="two"), "message")
    hits = real_store.search("花生", Scope(user="u"), SearchOptions(k=1)).hits
    assert hits[0].memory.text == "我对花生过敏"


def test_other_users_never_see_it(real_store):
    real_store.add("I am allergic to peanuts", Scope(user="a", session="one"), "message")
    real_store.add("I like hiking", Scope(user="b", session="one"), "message")
    for mode in ("hybrid", "words", "meaning"):
        hits = real_store.search("peanuts allergy", Scope(user="b"), SearchOptions(mode=mode, k=10)).hits
        assert all(h.memory.scope.user == "b" for h in hits)


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        GGUFEmbedder(tmp_path / "nope.gguf")


def test_corrupt_model_file_is_a_clear_error(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)
    with pytest.raises(ModelError, match="could not load"):
        GGUFEmbedder(broken)


def test_not_a_gguf_file(tmp_path):
    text = tmp_path / "model.gguf"
    text.write_text("hello")
    with pytest.raises(ModelError, match="not a GGUF"):
        GGUFEmbedder(text)
