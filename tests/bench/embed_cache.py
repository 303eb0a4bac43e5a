"""An on-disk embedding cache for benchmarks, keyed by (model fingerprint, content hash).

LongMemEval's haystacks share most of their sessions and every benchmark run re-ingests the
same texts, so vectors are computed once per model and text and kept in
``<repo>/.cache/embeddings.sqlite`` (git-ignored). Single texts (search queries) bypass the
cache by default, so the query embedding time a benchmark reports is the model's real time.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engram.core.models.embeddings import Embedder

DEFAULT_PATH = Path(__file__).resolve().parents[2] / ".cache" / "embeddings.sqlite"
QUERY_KEY = "\0query\0"   # before a query's text in its key; a document's key is its text's alone


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class CachedEmbedder:
    """Wraps an Embedder; same name, fingerprint, dimensions and scale, so the store cannot tell."""

    def __init__(self, inner: Embedder, path: Path = DEFAULT_PATH, batch: int = 256, cache_single: bool = False):
        self.inner = inner
        self.name, self.fingerprint, self.dimensions = inner.name, inner.fingerprint, inner.dimensions
        self.unrelated_similarity = inner.unrelated_similarity
        self.batch = batch
        self.cache_single = cache_single
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key BLOB, vector BLOB,"
                         " PRIMARY KEY (model, key)) WITHOUT ROWID")
        self.hits = self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1 and not self.cache_single:
            return self.inner.embed(texts)
        return self.vectors(texts)

    def embed_query(self, query: str) -> np.ndarray:
        if not self.cache_single:
            return self.inner.embed_query(query)
        # Kept apart from the same text as a document: models with prefixes embed the two differently.
        return self.vectors([query], QUERY_KEY, lambda queries: [self.inner.embed_query(q) for q in queries])[0]

    def vectors(self, texts: Sequence[str], role: str = "", compute=None) -> np.ndarray:
        """Vectors for ``texts``, computing (in batches) and storing only the ones not cached."""
        compute = compute or self.inner.embed
        keys = [text_key(role + t) for t in texts]
        found = self._lookup(set(keys))
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        by_key = {k: t for k, t in zip(keys, texts)}
        for start in range(0, len(missing), self.batch):
            chunk = missing[start:start + self.batch]
            computed = np.asarray(compute([by_key[k] for k in chunk]), dtype=np.float32)
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                     [(self.fingerprint, k, v.tobytes()) for k, v in zip(chunk, computed)])
            found.update(zip(chunk, computed))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = found[key]
        return out

    def _lookup(self, keys: set[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        ordered = list(keys)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start:start + 500]
            rows = self._db.execute(f"SELECT key, vector FROM vectors WHERE model = ? AND key IN"
                                    f" ({','.join('?' * len(chunk))})", (self.fingerprint, *chunk))
            found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        return found

    def close(self) -> None:
        self._db.close()
