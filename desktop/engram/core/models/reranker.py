"""A cross-encoder reranker: reads the query and a memory together and says how well one answers
the other, which a vector of each cannot (bge-reranker-v2-m3, Qwen3-Reranker in GGUF).

Run as llama.cpp's server runs one (``format_prompt_rerank``, ``send_rerank``): RANK pooling puts
the model's classifier on the pooled state; the pair is the GGUF's ``tokenizer.chat_template.rerank``
with ``{query}`` and ``{document}`` filled in, tokenised with special tokens parsed, when the file
has one, else ``[BOS] query [EOS] [SEP] document [EOS]``, each by the vocabulary's flags; the score
is the first value of the sequence's output. llama.cpp puts a softmax over Qwen3's labels (yes, no)
in the graph, so that value is already a probability; a BERT-style head (bge) gives a logit, which
the sigmoid maps to 0..1. ``Llama.embed`` cannot do this (it tokenises without special tokens and
reads ``n_embd`` floats, of which only ``n_cls_out`` are set), hence pooled.py.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

from engram.core.errors import ModelError
from engram.core.models.gguf import check_model_file, fingerprint
from engram.core.models.gguf_info import read_head
from engram.core.models.gpu import AUTO, load_offloaded, plan
from engram.core.models.pooled import POOLING_RANK, pooled, tokenize

# Architectures whose graph ends in a softmax over the labels (llama-graph.cpp, build_pooling).
SOFTMAX_ARCHITECTURES = ("qwen3", "qwen3vl")


class Reranker(Protocol):
    """What search needs: a name to say it took part, and scores of documents for a query."""

    name: str

    def score(self, query: str, documents: Sequence[str]) -> np.ndarray:
        """One relevance from 0 to 1 per document, in their order."""
        ...


class GGUFReranker:
    """A rank-pooling GGUF model run by llama-cpp-python on one worker thread."""

    CONTEXT = 512        # tokens of one pair at most (a longer document is cut, the template's end kept)

    def __init__(self, path: str | os.PathLike, n_threads: int | None = None, gpu_layers: int | str = AUTO):
        self.path = check_model_file(path, "reranker")
        self.name = Path(self.path).stem
        self.fingerprint = fingerprint(self.path)
        head = read_head(self.path)
        if head.pooling != POOLING_RANK or not head.head_tensors:
            raise ModelError(f"{self.path} is not a reranker: it has no rank head (pooling type {head.pooling},"
                             f" classifier tensors: {', '.join(head.head_tensors) or 'none'})",
                             hint="choose a reranker GGUF such as bge-reranker-v2-m3 or Qwen3-Reranker")
        self.template = head.rerank_template
        self.probabilities = head.architecture in SOFTMAX_ARCHITECTURES
        # It runs while the person waits, as a query's embedding does: two cores, at most four.
        cores = os.cpu_count() or 2
        self.threads = n_threads or max(1, min(4, cores // 2), min(2, cores))
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-rerank")
        started = time.perf_counter()
        self._llm, self.placement = self._worker.submit(
            load_offloaded, self._load, plan(self.path, gpu_layers, self.CONTEXT, role="reranker")).result()
        self.load_seconds = time.perf_counter() - started

    def _load(self, gpu_layers: int):
        from llama_cpp import Llama

        try:
            llm = Llama(model_path=str(self.path), embedding=True, pooling_type=POOLING_RANK, verbose=False,
                        n_ctx=self.CONTEXT, n_batch=self.CONTEXT, n_ubatch=self.CONTEXT, n_threads=self.threads,
                        n_threads_batch=self.threads, n_gpu_layers=gpu_layers, flash_attn=True)
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp could not load the reranker {self.path}: {e}",
                             hint="the file may be damaged; download it again or choose another") from e
        vocab = llm._model.vocab
        import llama_cpp

        self._bos = llama_cpp.llama_vocab_bos(vocab) if llama_cpp.llama_vocab_get_add_bos(vocab) else None
        eos = llama_cpp.llama_vocab_eos(vocab)
        self._eos = (eos if eos != llama_cpp.LLAMA_TOKEN_NULL else llama_cpp.llama_vocab_sep(vocab)
                     ) if llama_cpp.llama_vocab_get_add_eos(vocab) else None
        self._sep = llama_cpp.llama_vocab_sep(vocab) if llama_cpp.llama_vocab_get_add_sep(vocab) else None
        return llm

    def pair(self, query: str, document: str) -> list[int]:
        """The tokens the model reads for one pair, at most CONTEXT of them."""
        if self.template is not None:
            at = self.template.find("{document}")
            tail = self.template[at + len("{document}"):] if at >= 0 else ""
            tokens = tokenize(self._llm, self.template.replace("{query}", query).replace("{document}", document),
                              add_special=False, parse_special=True)
            if len(tokens) <= self.CONTEXT:
                return tokens
            end = tokenize(self._llm, tail, add_special=False, parse_special=True)
            return tokens[: self.CONTEXT - len(end)] + end
        asked = tokenize(self._llm, query, add_special=False, parse_special=False)[: self.CONTEXT // 2]
        middle = [t for t in (self._eos, self._sep) if t is not None]
        start = [self._bos] if self._bos is not None else []
        end = [self._eos] if self._eos is not None else []
        room = self.CONTEXT - len(start) - len(asked) - len(middle) - len(end)
        return start + asked + middle + tokenize(self._llm, document, add_special=False, parse_special=False)[:room] + end

    def score(self, query: str, documents: Sequence[str]) -> np.ndarray:
        try:
            return self._worker.submit(self._score, query, list(documents)).result()
        except RuntimeError as e:   # closed: replaced by another meanwhile
            raise ModelError(f"the reranker {self.name} was closed", hint="try again") from e

    def _score(self, query: str, documents: list[str]) -> np.ndarray:
        if not documents:
            return np.zeros(0, dtype=np.float32)
        first = pooled(self._llm, [self.pair(query, document) for document in documents], 1)[:, 0]
        return first if self.probabilities else 1.0 / (1.0 + np.exp(-first))

    def close(self) -> None:
        self._worker.submit(self._llm.close).result()
        self._worker.shutdown()
