"""The store with the bundled multilingual-e5-small GGUF: the fake embedder's real twin."""

import json
from pathlib import Path

import numpy as np
import pytest

from engram.core.errors import ModelError
from engram.core.models.embeddings import GGUFEmbedder
from engram.core.paths import MINILM_EMBEDDING_MODEL
from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore

ZERO_OVERLAP_CASES = Path(__file__).resolve().parents[1] / "bench" / "zero_overlap_zh.json"

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
    allergy, train = real_embedder.embed(["I am allergic to peanuts", "The train leaves at noon"])
    question = real_embedder.embed_query("which foods should I avoid?")
    assert allergy @ question > train @ question


def test_a_query_is_embedded_as_a_query_and_a_memory_as_a_passage(real_embedder):
    """e5 was trained with "query: " and "passage: " before the two sides; without them it finds less."""
    assert (real_embedder.query_prefix, real_embedder.document_prefix) == ("query: ", "passage: ")
    as_query, as_memory = real_embedder.embed_query("花生过敏"), real_embedder.embed(["花生过敏"])[0]
    assert np.isclose(np.linalg.norm(as_query), 1.0, atol=1e-4) and as_query @ as_memory < 0.99


def test_batch_equals_one_by_one(real_embedder, monkeypatch):
    """The same vector, up to rounding: llama.cpp's Q4_0 kernels sum in another order for a batch
    (cosine 0.99996 measured); texts of one batch leaking into each other would cost far more."""
    monkeypatch.setattr(real_embedder, "RECENT", 0)   # each text computed anew, not recalled
    texts = ["alpha beta", "a longer sentence about cooking pasta", "花生"]
    batched = real_embedder.embed(texts)
    single = np.vstack([real_embedder.embed([t]) for t in texts])
    assert np.all(np.sum(batched * single, axis=1) > 0.9999)


def test_allergy_found_across_sessions_of_the_same_user(real_store):
    real_store.add("I am allergic to peanuts", Scope(user="u", session="one"), "message")
    for n, text in enumerate(NOISE):
        real_store.add(text, Scope(user="u", session=f"noise{n}"), "message")
    hits = real_store.search("which foods should I avoid?", Scope(user="u"), SearchOptions(k=3)).hits
    assert "I am allergic to peanuts" in [h.memory.text for h in hits]


# Cross-session recall where the question shares no word with the memory (cases of
# tests/bench/zero_overlap_zh.json), the memory among everyday messages of other chats.
ZERO_OVERLAP = [("我家的猫叫团子，是只三岁的橘猫。", "我养的宠物叫啥名字来着？"),
                ("我在市一医院当护士，三班倒，经常上夜班。", "熬夜以后怎么恢复精神？"),
                ("我的护照下个月就到期了。", "出国旅行要提前办哪些证件？")]
CHINESE_CHATS = [["今天加班到十点，地铁上人还是好多。", "帮我把这句话翻译成英文：这个方案我们下周再讨论。",
                  "最近在看《三体》，第二部比第一部好看多了。"],
                 ["我们组下周要做季度汇报，PPT还一页都没写。", "楼下新开了一家奶茶店，排队的人特别多。",
                  "帮我写一封请假邮件，理由是家里有点事。"],
                 ["周末去爬了莫干山，风景真不错，就是腿酸了两天。", "中秋节快到了，公司发了两盒月饼。",
                  "最近睡眠不太好，总是半夜醒过来。"]]


def zero_overlap_found(store, user: str, fact: str, question: str) -> bool:
    """Is the fact, said in one chat among three other chats, in the top 3 for the question?"""
    store.add(fact, Scope(user=user, session="earlier"), "message")
    for number, chat in enumerate(CHINESE_CHATS):
        store.add_many([NewMemory(text, Scope(user=user, session=f"chat{number}"), "message") for text in chat])
    return fact in [h.memory.text for h in store.search(question, Scope(user=user), SearchOptions(k=3)).hits]


@pytest.mark.parametrize("fact, question", ZERO_OVERLAP)
def test_a_chinese_question_finds_a_memory_it_shares_no_word_with(real_store, fact, question):
    assert zero_overlap_found(real_store, "u", fact, question)


def test_the_english_only_model_does_not_find_them(db):
    """The test above is one the previous default, all-MiniLM-L6-v2, fails: it measures the change.
    (It finds one of them, the cat, since search shares context only above the crowd.)"""
    minilm = GGUFEmbedder(MINILM_EMBEDDING_MODEL)
    try:
        store = MemoryStore(db, minilm)
        assert not all(zero_overlap_found(store, f"u{n}", *case) for n, case in enumerate(ZERO_OVERLAP))
    finally:
        minilm.close()


def test_an_english_fact_is_found_by_a_chinese_question_among_a_month_of_chinese_chat(real_store):
    """The meaning side measured from its neighbourhood's middle (search/neighbourhood.py): among
    32 everyday messages (tests/bench/zero_overlap_zh.json), the English facts come first for
    Chinese questions that share no word with them; whole e5 vectors put them near the bottom."""
    everyday = json.loads(ZERO_OVERLAP_CASES.read_text(encoding="utf-8"))["distractors"]
    cases = [("I work as a backend engineer at a fintech startup in Shenzhen.", "我是做什么工作的？"),
             ("I'm allergic to penicillin, found out when I was a kid.", "发烧去看病，要跟大夫交代哪些用药禁忌？")]
    for number, (fact, question) in enumerate(cases):
        user = f"u{number}"
        real_store.add_many([NewMemory(d["text"], Scope(user=user, session=d["session"]), "message") for d in everyday])
        real_store.add(fact, Scope(user=user, session="earlier"), "message")
        for centred, wanted in ((True, True), (False, False)):
            hits = real_store.search(question, Scope(user=user), SearchOptions(k=3, centre_meaning=centred)).hits
            assert (fact in [h.memory.text for h in hits]) is wanted, (question, centred)


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
