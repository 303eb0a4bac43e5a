"""Fast stand-ins for the models, for unit tests only. Each has a real-model test beside it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from engram.core.embeddings import normalise_rows
from engram.core.words import _terms


class FakeEmbedder:
    """Deterministic bag-of-words hashing: texts that share words get similar vectors."""

    name = "fake-embedder"

    def __init__(self, dimensions: int = 64):
        self.dimensions = dimensions
        self.fingerprint = f"fake-{dimensions}"
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in _terms(text) or ["<empty>"]:
                digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dimensions
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
        return normalise_rows(out)


class BrokenEmbedder(FakeEmbedder):
    """An embedder whose model fails mid-way, to prove that nothing is half-written."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("embedding model crashed")
