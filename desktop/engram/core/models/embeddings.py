"""Sentence embeddings from a local GGUF model, computed on one worker thread.

A llama.cpp context is not thread-safe, so every call goes through a single-thread executor;
callers on any thread may submit and wait (or keep the future).
"""

from __future__ import annotations

import os
import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from engram.core.errors import ModelError
from engram.core.models.gguf import check_model_file, fingerprint
from engram.core.models.gguf_info import read_model_info
from engram.core.models.gpu import AUTO, load_offloaded, plan
from engram.core.models.pooled import POOLING_CLS, POOLING_LAST, POOLING_MEAN, POOLING_UNSPECIFIED, pooled, tokenize


# What it means to have no embedding model (MemoryStore(db, None)), said the same by the window,
# the command line and `engram doctor`.
WORDS_ONLY = ("Until an embedding model loads, memories are found by their words only; nothing you write is"
              " lost, and it is embedded once one loads.")


class Embedder(Protocol):
    """What the store needs: a stable identity for the vector space, a batch embed of the texts it
    keeps, the embedding of a search query, and where unrelated texts lie on its cosine scale.

    A query and a memory are embedded differently by models trained with a prefix on each side
    (e5: "query: " and "passage: "); others embed a query as any text. Models differ in how
    similar unrelated texts look (all-MiniLM-L6-v2: cosine about 0, multilingual-e5-small: about
    0.75), so search measures similarity from that point (``relatedness``): thresholds and the
    fusion with word scores then mean the same with every model."""

    name: str
    fingerprint: str
    dimensions: int
    unrelated_similarity: float

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows of L2-normalised float32 vectors, one per text to be found (a memory, a file chunk)."""
        ...

    def embed_query(self, query: str) -> np.ndarray:
        """The L2-normalised float32 vector of a search query, in the same space."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> int:
        """How many tokens ``embed`` reads of these texts (the API reports it as their usage)."""
        ...


@dataclass(frozen=True)
class ModelTraits:
    """How a family of embedding models is used: its prefixes, where its unrelated texts lie, and
    its pooling (None: as the GGUF file says; named, so that a file without it still works)."""

    query_prefix: str = ""
    document_prefix: str = ""
    unrelated_similarity: float = 0.0
    pooling: int | None = None


# Qwen3-Embedding's instruction, on the query side only, as its authors write it: the task in
# English and no space after "Query:" (their model card's example task).
QWEN3_EMBEDDING_QUERY = ("Instruct: Given a web search query, retrieve relevant passages that answer the query\n"
                         "Query:")

# Families that need more than the plain use, recognised by the name in their GGUF header
# (general.name) or their file's. e5 (not e5-instruct, which wants an instruction instead): its
# model card's prefixes (without them it finds less) and its unrelated point, measured with
# tests/bench/retrieval.py on LoCoMo and the Chinese sets (docs/benchmarks.md). Qwen3-Embedding:
# its instruction and last-token pooling; bge-m3: no prefix, CLS pooling. Their unrelated points
# are not measured (no weights here): 0, plain cosine.
KNOWN_MODELS = {
    re.compile(r"\be5\b(?!.*instruct)", re.IGNORECASE): ModelTraits("query: ", "passage: ", 0.75, POOLING_MEAN),
    re.compile(r"qwen3[\s_-]*embedding", re.IGNORECASE): ModelTraits(QWEN3_EMBEDDING_QUERY, "", 0.0, POOLING_LAST),
    re.compile(r"\bbge[\s_-]*m3\b", re.IGNORECASE): ModelTraits("", "", 0.0, POOLING_CLS),
}


def traits_of(model_name: str) -> ModelTraits:
    return next((traits for pattern, traits in KNOWN_MODELS.items() if pattern.search(model_name)), ModelTraits())


def relatedness(cosine: np.ndarray, unrelated: float) -> np.ndarray:
    """Cosine similarity measured from the model's unrelated point: 0 there, 1 for the same text."""
    return (cosine - unrelated) / (1.0 - unrelated)


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class GGUFEmbedder:
    """An embedding model (e.g. the bundled multilingual-e5-small) run by llama-cpp-python."""

    # Texts per llama.cpp call. With flash attention the masked pairs of two texts in one call are
    # skipped, so a group costs what its texts cost alone, less the per-call overhead; without it
    # they were computed, and 4 texts cost 25% more CPU per text than one (resources/models/README.md).
    GROUP = 4
    # Vectors of the texts embedded last, by their prefixed text: a question asked again, or "ok" and
    # "好的" said in many chats, is not computed again (384 floats a text: 1.5 MB for 1024).
    RECENT = 1024

    CONTEXT = 512        # tokens of one text at most (less where the model was trained on less)

    def __init__(self, path: str | os.PathLike, n_threads: int | None = None, gpu_layers: int | str = AUTO):
        self.path = check_model_file(path, "embedding")
        self.name = Path(self.path).stem
        self.fingerprint = fingerprint(self.path)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-embed")
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()   # used on the worker thread only
        # Half the cores (at most 4): llama.cpp's threads spin while waiting, and on a busy machine
        # more threads than free cores made embedding five times slower, not faster.
        cores = os.cpu_count() or 2
        self.threads = n_threads or max(1, min(4, cores // 2))
        # A query is embedded while the person waits and the chat model is idle (the turn embeds,
        # searches, then generates), so it may take two cores where the background work takes one:
        # on 2 idle cores a Chinese query's p95 is 21 ms instead of 34 (tests/bench/embed_bench.py).
        self.query_threads = n_threads or max(self.threads, min(2, cores))
        self._threads_now = self.threads                               # the context's, on the worker
        try:
            named = read_model_info(self.path, "embedding").name
        except ModelError:          # a damaged header: loading it below says what llama.cpp makes of it
            named = self.name
        traits = traits_of(named)
        self.query_prefix, self.document_prefix = traits.query_prefix, traits.document_prefix
        self.unrelated_similarity = traits.unrelated_similarity
        self._pooling = traits.pooling
        started = time.perf_counter()
        self._llm, self.placement = self._worker.submit(
            load_offloaded, self._load, plan(self.path, gpu_layers, self.CONTEXT, role="embedding")).result()
        self.load_seconds = time.perf_counter() - started
        self.dimensions = self._llm.n_embd()
        self.context_tokens = self._llm.n_ctx()
        # A last-token embedder (Qwen3-Embedding) reads the state at EOS: the input must end with it,
        # which older conversions did not add (their add_eos_token flag is missing).
        self._end = self._llm.token_eos() if self._llm.pooling_type() == POOLING_LAST else None

    def _load(self, gpu_layers: int):
        from llama_cpp import Llama  # imported here: loading the library costs time at start-up

        threads = self.threads
        try:
            # The batch must not exceed the trained context: llama-cpp-python truncates texts to
            # n_batch tokens, and positions past the trained context abort the process in ggml.
            context = self.CONTEXT
            while True:
                llm = Llama(model_path=str(self.path), embedding=True, verbose=False, n_ctx=context,
                            n_batch=context, n_ubatch=context, n_threads=threads, n_threads_batch=threads,
                            n_gpu_layers=gpu_layers, flash_attn=True, pooling_type=POOLING_UNSPECIFIED if self._pooling is None
                            else self._pooling)
                trained = llm._model.n_ctx_train()
                if 0 < trained < context:
                    llm.close()
                    context = trained
                    continue
                return llm
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp could not load the embedding model {self.path}: {e}",
                             hint="the file may be damaged or not an embedding model; choose another .gguf") from e

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Handed to the model's thread one group at a time: a query, or a file the person just
        edited, asked for meanwhile waits for one group (a fraction of a second), not for the rest
        of a book's hundreds of chunks (a minute on busy cores)."""
        prefixed = [self.document_prefix + t for t in texts]
        groups = [self._submit(prefixed[n:n + self.GROUP], self.threads).result()
                  for n in range(0, len(prefixed), self.GROUP)]
        return np.concatenate(groups) if groups else np.zeros((0, self.dimensions), dtype=np.float32)

    def embed_query(self, query: str) -> np.ndarray:
        return self._submit([self.query_prefix + query], self.query_threads).result()[0]

    def count_tokens(self, texts: Sequence[str]) -> int:
        return self._worker.submit(lambda: sum(
            min(len(self._llm.tokenize((self.document_prefix + t).encode("utf-8"))), self.context_tokens)
            for t in texts)).result()

    def _submit(self, texts: Sequence[str], threads: int) -> Future:
        """Embed texts as they are (prefixes already added) on the model's thread, with ``threads``."""
        try:
            return self._worker.submit(self._embed, list(texts), threads)
        except RuntimeError as e:   # closed: a caller that took this model just before another replaced it
            raise ModelError(f"the embedding model {self.name} was closed: another one is in use now",
                             hint="try again") from e

    def _embed(self, texts: list[str], threads: int) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        known = {text: self._recent[text] for text in texts if text in self._recent}
        fresh = [text for text in dict.fromkeys(texts) if text not in known]   # each distinct text once
        if fresh and threads != self._threads_now:
            self._llm._ctx.set_n_threads(threads, threads)
            self._threads_now = threads
        for start in range(0, len(fresh), self.GROUP):
            group = fresh[start:start + self.GROUP]
            known.update(zip(group, normalise_rows(pooled(self._llm, [self._tokens(t) for t in group],
                                                          self.dimensions))))
        for text in texts:
            self._recent[text] = known[text]
            self._recent.move_to_end(text)
        while len(self._recent) > self.RECENT:
            self._recent.popitem(last=False)
        return np.stack([known[text] for text in texts])

    def _tokens(self, text: str) -> list[int]:
        """The text's tokens as the model was trained on them, cut to the context (``Llama.embed``'s
        tokens, and EOS at the end for a last-token model)."""
        tokens = tokenize(self._llm, text, add_special=True, parse_special=False)[: self.context_tokens]
        if self._end is not None and tokens[-1:] != [self._end]:
            tokens = tokens[: self.context_tokens - 1] + [self._end]
        return tokens

    def close(self) -> None:
        self._worker.submit(self._llm.close).result()
        self._worker.shutdown()
