"""Sentence embeddings from a local GGUF model, computed on one worker thread.

A llama.cpp context is not thread-safe, so every call goes through a single-thread executor;
callers on any thread may submit and wait (or keep the future).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

from engram.core.errors import ModelError
from engram.core.gguf import check_model_file, fingerprint


class Embedder(Protocol):
    """What the store needs: a stable identity for the vector space and a batch embed."""

    name: str
    fingerprint: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows of L2-normalised float32 vectors, one per text."""
        ...


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class GGUFEmbedder:
    """An embedding model (e.g. the bundled all-MiniLM-L6-v2 q8_0) run by llama-cpp-python."""

    def __init__(self, path: str | os.PathLike, n_threads: int | None = None, batch_tokens: int = 2048):
        self.path = check_model_file(path, "embedding")
        self.name = Path(self.path).stem
        self.fingerprint = fingerprint(self.path)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-embed")
        started = time.perf_counter()
        self._llm = self._worker.submit(self._load, n_threads, batch_tokens).result()
        self.load_seconds = time.perf_counter() - started
        self.dimensions = self._llm.n_embd()
        self.context_tokens = self._llm.n_ctx()

    def _load(self, n_threads: int | None, batch_tokens: int):
        from llama_cpp import Llama  # imported here: loading the library costs time at start-up

        try:
            return Llama(model_path=str(self.path), embedding=True, verbose=False,
                         n_ctx=0, n_batch=batch_tokens, n_ubatch=batch_tokens,
                         n_threads=n_threads or max(1, (os.cpu_count() or 2)), n_seq_max=64)
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp could not load the embedding model {self.path}: {e}",
                             hint="the file may be damaged or not an embedding model; choose another .gguf") from e

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_async(texts).result()

    def embed_async(self, texts: Sequence[str]) -> Future:
        return self._worker.submit(self._embed, list(texts))

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return normalise_rows(np.array(self._llm.embed(texts, normalize=False, truncate=True)))

    def close(self) -> None:
        self._worker.submit(self._llm.close).result()
        self._worker.shutdown()
