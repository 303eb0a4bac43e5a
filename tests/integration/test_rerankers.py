"""Rerankers run through llama.cpp end to end, on tiny rank-pooling GGUF files with real tokenizers
(tests/tiny_models.py): the pair each family reads, the score read from its head, search's use."""

from __future__ import annotations

import json

import gguf
import numpy as np
import pytest
from llama_cpp import Llama

from engram.core import paths
from engram.core.errors import ModelError
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore
from engram.core.models.pooled import POOLING_CLS, POOLING_LAST, pooled, tokenize
from engram.core.models.reranker import GGUFReranker
from engram.core.models.role_check import reranker_problems
from engram.core.storage.database import Database
from fakes import FakeEmbedder
from tiny_models import bert_model, qwen3_model, read_tensors

RANK = gguf.PoolingType.RANK
QUERY, DOCUMENTS = "花生过敏", ["我对花生过敏", "The cat sat on the mat", "明天下雨"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rerankers")
    return {"bge": bert_model(folder / "tiny-bge-reranker-v2-m3.gguf", pooling=RANK),
            "qwen3": qwen3_model(folder / "tiny-qwen3-reranker.gguf", pooling=RANK),
            "qwen3-bare": qwen3_model(folder / "tiny-qwen3-bare.gguf", pooling=RANK, rerank_template=None),
            "headless": bert_model(folder / "tiny-headless.gguf", pooling=RANK, head=False)}


@pytest.fixture(scope="module")
def bge(files):
    reranker = GGUFReranker(files["bge"])
    yield reranker
    reranker.close()


@pytest.fixture(scope="module")
def qwen3(files):
    reranker = GGUFReranker(files["qwen3"])
    yield reranker
    reranker.close()


def hidden_states(path, pooling: int, pairs: list[list[int]]) -> np.ndarray:
    """The same model's pooled state without its head (CLS or last token), for the head in numpy."""
    llm = Llama(model_path=str(path), embedding=True, pooling_type=pooling, verbose=False, n_ctx=512, n_batch=512,
                n_ubatch=512)
    try:
        return pooled(llm, pairs, llm.n_embd())
    finally:
        llm.close()


def test_a_bge_pair_is_bos_query_eos_sep_document_eos_in_xlm_roberta_pieces(bge):
    pieces = lambda text: tokenize(bge._llm, text, add_special=False, parse_special=False)  # noqa: E731
    assert bge.pair(QUERY, DOCUMENTS[0]) == [0, *pieces(QUERY), 2, 2, *pieces(DOCUMENTS[0]), 2]
    assert bge._llm.detokenize(pieces(DOCUMENTS[0])).decode().strip() == DOCUMENTS[0]
    assert bge.template is None and not bge.probabilities


def test_a_qwen3_pair_is_the_files_rerank_template_with_its_control_tokens(qwen3):
    tokens = qwen3.pair(QUERY, DOCUMENTS[0])
    im_start, im_end = (tokenize(qwen3._llm, mark, add_special=False, parse_special=True)
                        for mark in ("<|im_start|>", "<|im_end|>"))
    assert im_start == [151644] and im_end == [151645]
    assert tokens[0] == 151644 and tokens.count(151644) == 3 and tokens.count(151645) == 2
    text = qwen3._llm.detokenize(tokens).decode()
    assert f"<Query>: {QUERY}\n<Document>: {DOCUMENTS[0]}" in text and text.endswith("<think>\n\n</think>\n\n")


def test_a_long_document_is_cut_and_the_template_keeps_its_end(qwen3, bge):
    long = "很长的一段话。" * 400
    tokens = qwen3.pair(QUERY, long)
    end = tokenize(qwen3._llm, "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n", add_special=False,
                   parse_special=True)
    assert len(tokens) == GGUFReranker.CONTEXT and tokens[-len(end):] == end
    pair = bge.pair(QUERY, long)
    assert len(pair) == GGUFReranker.CONTEXT and pair[-1] == 2
    assert len(qwen3.score(QUERY, [long])) == len(bge.score(QUERY, [long])) == 1


def test_bge_scores_are_the_sigmoid_of_its_heads_logit(bge, files):
    scores = bge.score(QUERY, DOCUMENTS)
    weights = read_tensors(files["bge"])
    cls = hidden_states(files["bge"], POOLING_CLS, [bge.pair(QUERY, d) for d in DOCUMENTS])
    logit = (np.tanh(cls @ weights["cls.weight"].T + weights["cls.bias"]) @ weights["cls.output.weight"].T
             + weights["cls.output.bias"])[:, 0]
    assert scores == pytest.approx(1 / (1 + np.exp(-logit)), abs=1e-3)
    assert len(set(np.round(scores, 4))) == 3             # the pair, not the query alone, decides


def test_qwen3_scores_are_the_probability_of_yes(qwen3, files):
    scores = qwen3.score(QUERY, DOCUMENTS)
    last = hidden_states(files["qwen3"], POOLING_LAST, [qwen3.pair(QUERY, d) for d in DOCUMENTS])
    logits = last @ read_tensors(files["qwen3"])["cls.output.weight"].T              # rows: yes, no
    yes = np.exp(logits[:, 0]) / np.exp(logits).sum(axis=1)
    assert qwen3.probabilities and scores == pytest.approx(yes, abs=1e-3)
    assert scores == pytest.approx([qwen3.score(QUERY, [d])[0] for d in DOCUMENTS], abs=1e-5)   # batched = alone


def test_search_reranks_its_candidates_with_a_real_reranker(bge):
    store = MemoryStore(Database(":memory:"), FakeEmbedder())
    scope = Scope(user="alice")
    for text in DOCUMENTS + ["花生酱很好吃", "过敏的季节"]:
        store.add(text, scope)
    store.reranker = bge
    result = store.search(QUERY, scope, SearchOptions(k=5))
    texts = [h.memory.text for h in result.hits]
    expected = bge.score(QUERY, texts)
    assert result.reranker == "tiny-bge-reranker-v2-m3" and result.rerank_ms > 0
    assert [h.rerank_score for h in result.hits] == pytest.approx(sorted(expected, reverse=True), abs=1e-5)
    store.db.close()


def test_a_file_without_a_rank_head_is_refused_and_doctor_says_why(files):
    with pytest.raises(ModelError, match="not a reranker"):
        GGUFReranker(paths.BUNDLED_EMBEDDING_MODEL)
    with pytest.raises(ModelError, match="no rank head"):
        GGUFReranker(files["headless"])
    said, problems = reranker_problems(files["qwen3"])
    assert said == "pooling rank, rank head cls.output.weight, a rerank template, labels yes, no" and not problems
    assert reranker_problems(files["bge"])[1] == []
    assert any("tokenizer.chat_template.rerank" in p for p in reranker_problems(files["qwen3-bare"])[1])
    assert any("no classifier tensor" in p for p in reranker_problems(files["headless"])[1])
    assert any("not RANK" in p for p in reranker_problems(paths.BUNDLED_EMBEDDING_MODEL)[1])


def test_the_setting_puts_a_reranker_into_every_search_the_cli_says_so(files, capsys, tmp_path):
    from engram.cli import main
    from engram.core.app import Engram
    from engram.core.settings import Settings

    settings = Settings.load()
    settings.rerank_model = str(files["headless"])
    settings.save()
    with Engram(embedder=FakeEmbedder()) as engram:
        assert engram.store.reranker is None and "not a reranker" in str(engram.rerank_problem)
    settings.rerank_model = str(files["bge"])
    settings.save()
    data = str(tmp_path / "d")
    with Engram(data, embedder=FakeEmbedder()) as engram:
        assert engram.store.reranker.name == "tiny-bge-reranker-v2-m3"
        for text in DOCUMENTS:
            engram.store.add(text, Scope(user="ann"))
    assert main(["memory", "search", "--data-dir", data, "--user", "ann", "--mode", "words", "--json", QUERY]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert found and all(hit["reranked"] for hit in found)
    assert [hit["score"] for hit in found] == sorted((hit["score"] for hit in found), reverse=True)
    main(["memory", "search", "--data-dir", data, "--user", "ann", "--mode", "words", QUERY])
    assert "reordered by the reranker tiny-bge-reranker-v2-m3" in capsys.readouterr().out


def test_doctor_reads_the_headers_of_the_models_in_use(files):
    from engram.core.doctor import _model_metadata
    from engram.core.settings import Settings

    settings = Settings.load()
    check = _model_metadata({"settings": settings})
    assert check.ok and "multilingual-e5-small.Q4_0.gguf (embedding, in use): pooling mean" in check.detail
    settings.rerank_model = str(files["qwen3-bare"])
    check = _model_metadata({"settings": settings})
    assert not check.ok and "tiny-qwen3-bare.gguf (reranker, in use): pooling rank, rank head cls.output.weight," \
                            " no rerank template" in check.detail and "chat_template.rerank" in check.detail


def test_new_embedding_gpu_layers_reload_the_reranker_and_one_that_fails_keeps_the_old(files, make_engram,
                                                                                      monkeypatch, tmp_path):
    import shutil

    import engram.core.app as app

    loaded = []

    def recorded(path, gpu_layers):
        loaded.append(gpu_layers)
        return GGUFReranker(path, gpu_layers=gpu_layers)

    monkeypatch.setattr(app, "GGUFReranker", recorded)
    model = shutil.copy(files["bge"], tmp_path / "bge.gguf")
    engram = make_engram(rerank_model=str(model))
    engram.use_rerank_model(engram.settings.rerank_model)
    first = engram.store.reranker
    engram.settings.embedding_gpu_layers = 0
    engram.apply_settings({"embedding_gpu_layers"})
    assert loaded == ["auto", 0] and engram.store.reranker is not first and engram.rerank_problem is None
    second = engram.store.reranker
    model.unlink()
    engram.settings.embedding_gpu_layers = "auto"
    engram.apply_settings({"embedding_gpu_layers"})
    assert engram.store.reranker is second and "bge.gguf" in str(engram.rerank_problem)
