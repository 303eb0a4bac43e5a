"""Each embedding family's prompt and pooling, applied with its own tokenizer: e5's prefixes,
Qwen3-Embedding's instruction on the query side and EOS at the end, bge-m3's CLS and no prefix; and
the path that applies them gives the bundled e5 exactly the vectors ``Llama.embed`` gave."""

from __future__ import annotations

import gguf
import numpy as np
import pytest
from llama_cpp import Llama

from engram.core import paths
from engram.core.models.embeddings import QWEN3_EMBEDDING_QUERY, GGUFEmbedder, normalise_rows
from engram.core.models.pooled import POOLING_CLS, POOLING_LAST, pooled, tokenize
from engram.core.models.role_check import embedder_problems
from tiny_models import bert_model, qwen3_model

ENDOFTEXT = 151643      # Qwen's EOS, <|endoftext|>


def run(path, pooling: int, texts: list[list[int]]) -> np.ndarray:
    """The file's pooled, normalised outputs for exactly these tokens."""
    llm = Llama(model_path=str(path), embedding=True, pooling_type=pooling, verbose=False, n_ctx=512, n_batch=512,
                n_ubatch=512, flash_attn=True)
    try:
        return normalise_rows(pooled(llm, texts, llm.n_embd()))
    finally:
        llm.close()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("embedders")


def test_qwen3_embedding_instructs_the_query_only_and_ends_every_text_with_eos(folder):
    # Written without add_eos_token, as conversions before gguf-py's fix were.
    path = qwen3_model(folder / "tiny-qwen3-embedding.gguf", pooling=gguf.PoolingType.LAST,
                       name="Qwen3-Embedding-0.6B", rerank_template=None)
    embedder = GGUFEmbedder(path)
    try:
        query, memory = "我对什么过敏？", "我对花生过敏"
        assert embedder.query_prefix == QWEN3_EMBEDDING_QUERY and embedder.document_prefix == ""
        assert QWEN3_EMBEDDING_QUERY.endswith("\nQuery:")            # no space after it, as its authors write it
        words = lambda text: tokenize(embedder._llm, text, add_special=True, parse_special=False)  # noqa: E731
        assert ENDOFTEXT not in words(memory)                          # the file does not add it...
        expected = run(path, POOLING_LAST, [words(QWEN3_EMBEDDING_QUERY + query) + [ENDOFTEXT],
                                            words(memory) + [ENDOFTEXT]])
        assert embedder.embed_query(query) == pytest.approx(expected[0], abs=2e-3)   # ...Engram does
        assert embedder.embed([memory])[0] == pytest.approx(expected[1], abs=2e-3)
        without = run(path, POOLING_LAST, [words(memory)])[0]
        assert not np.allclose(without, expected[1], atol=0.05)
        assert embedder_problems(path) == ("pooling last", [])
    finally:
        embedder.close()


def test_bge_m3_pools_cls_without_a_prefix_even_when_its_file_says_mean(folder):
    path = bert_model(folder / "bge-m3-tiny.gguf", pooling=gguf.PoolingType.MEAN, name="bge-m3", head=False)
    embedder = GGUFEmbedder(path)
    try:
        text = "我对花生过敏"
        assert embedder.query_prefix == embedder.document_prefix == ""
        tokens = tokenize(embedder._llm, text, add_special=True, parse_special=False)
        assert tokens[0] == 0 and tokens[-1] == 2                      # XLM-RoBERTa's <s> ... </s>
        cls = run(path, POOLING_CLS, [tokens])[0]
        assert embedder.embed_query(text) == pytest.approx(cls, abs=2e-3)
        assert embedder.embed([text])[0] == pytest.approx(cls, abs=2e-3)
        said, problems = embedder_problems(path)
        assert said == "pooling mean" and "cls pooling" in problems[0]
    finally:
        embedder.close()


def test_the_bundled_e5_gets_its_prefixes_and_the_vectors_llama_embed_gave(real_embedder):
    texts = ["我对花生过敏", "The allergies were listed", "long " * 700, "ok", "好的"]
    assert (real_embedder.query_prefix, real_embedder.document_prefix) == ("query: ", "passage: ")
    mine = real_embedder.embed(texts)
    theirs = real_embedder._worker.submit(
        lambda: [real_embedder._llm.embed(["passage: " + t for t in texts[i:i + 4]], normalize=False, truncate=True)
                 for i in range(0, len(texts), 4)]).result()
    # The same vectors, to float rounding: llama.cpp's sums depend on how a batch is laid out.
    assert np.allclose(mine, normalise_rows(np.array(theirs[0] + theirs[1])), rtol=0, atol=1e-5)
    assert embedder_problems(paths.BUNDLED_EMBEDDING_MODEL) == ("pooling mean", [])
