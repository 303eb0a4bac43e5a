"""Whether a model file's header suits the role it is given, read before llama.cpp runs it: an
embedder must pool its tokens the way its family was trained to, a reranker needs RANK pooling, its
classifier (some community Qwen3-Reranker conversions lack it and score at random) and, for a
family that reads a prompt, its rerank template."""

from __future__ import annotations

import os

from engram.core.models.embeddings import traits_of
from engram.core.models.gguf_info import read_head, read_model_info
from engram.core.models.pooled import POOLING_NAMES, POOLING_RANK
from engram.core.models.reranker import SOFTMAX_ARCHITECTURES


def _pooling(value: int | None) -> str:
    return "not stated" if value is None else POOLING_NAMES.get(value, str(value))


def embedder_problems(path: str | os.PathLike) -> tuple[str, list[str]]:
    """What the file says (pooling) and what is wrong with it as an embedding model."""
    head, name = read_head(path, "embedding"), read_model_info(path, "embedding").name
    expected = traits_of(name).pooling
    said = f"pooling {_pooling(head.pooling)}"
    if head.pooling == POOLING_RANK:
        return said, ["it is a reranker (RANK pooling), not an embedding model"]
    if expected is not None and head.pooling not in (None, expected):
        return said, [f"{name} is trained with {_pooling(expected)} pooling; Engram uses that, not the file's"]
    if expected is None and head.pooling in (None, 0):
        return said, ["the file names no pooling, so llama.cpp gives no sentence vector"]
    return said, []


def reranker_problems(path: str | os.PathLike) -> tuple[str, list[str]]:
    """What the file says (pooling, rank head, rerank template) and what is wrong with it as a reranker."""
    head = read_head(path)
    template = "a rerank template" if head.rerank_template is not None else "no rerank template"
    said = (f"pooling {_pooling(head.pooling)}, rank head {', '.join(head.head_tensors) or 'missing'},"
            f" {template}" + (f", labels {', '.join(head.labels)}" if head.labels else ""))
    problems = []
    if head.pooling != POOLING_RANK:
        problems.append("its pooling is not RANK: llama.cpp puts no classifier on it")
    if "cls.output.weight" not in head.head_tensors and "cls.weight" not in head.head_tensors:
        problems.append("it has no classifier tensor (cls.output.weight): its scores would mean nothing")
    if head.architecture in SOFTMAX_ARCHITECTURES:
        if head.rerank_template is None:
            problems.append(f"a {head.architecture} reranker reads a prompt, and the file has no"
                            " tokenizer.chat_template.rerank to build it from")
        if head.labels[:1] != ("yes",):
            problems.append(f"its first label is {head.labels[:1] or 'missing'}, not 'yes': the score read"
                            " would not be the probability of a match")
    return said, problems
