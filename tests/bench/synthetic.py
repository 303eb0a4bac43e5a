"""Synthetic memories for speed benchmarks: real-looking text and precomputed unit vectors.

Texts are recombined halves of LoCoMo conversation turns (so word frequencies, lengths and
vocabulary look like real chat), numbered so that each is unique. Vectors are either random unit
vectors or made from real embeddings of each text's two source turns (``turn_vectors``). An exact
scan costs the same either way; an approximate index does not: random 384-dimension vectors are
all about equally far apart, the worst case for a graph like HNSW and unlike any embedding
model's space, so its speed and recall are measured on the second kind too. Retrieval quality is
measured on real data by retrieval.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "bench-data"


def locomo_turn_records(data_dir: Path = DEFAULT_DATA) -> list[dict]:
    """Every turn of LoCoMo's conversations (speaker, text, ...), in one fixed order."""
    samples = json.loads((data_dir / "locomo10.json").read_text())
    return [turn for sample in samples for key, session in sample["conversation"].items()
            if key.startswith("session_") and isinstance(session, list) for turn in session]


def locomo_turns(data_dir: Path = DEFAULT_DATA) -> list[str]:
    return [turn["text"] for turn in locomo_turn_records(data_dir)]


def sources(count: int, turns: int, seed: int) -> Iterator[tuple[int, int]]:
    """The two turns each synthetic memory is made of: the first half of one, the second of the other."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        a, b = rng.integers(0, turns, 2)
        yield int(a), int(b)


def texts(count: int, seed: int = 0, data_dir: Path = DEFAULT_DATA) -> Iterator[str]:
    turns = locomo_turns(data_dir)
    halves = [(t[: len(t) // 2].rsplit(" ", 1)[0], t[len(t) // 2:].split(" ", 1)[-1]) for t in turns]
    for number, (a, b) in enumerate(sources(count, len(halves), seed)):
        yield f"{halves[a][0]} {halves[b][1]} (#{number})"


def vectors(count: int, dimensions: int = 384, seed: int = 0, batch: int = 10_000) -> Iterator[np.ndarray]:
    """Batches of random unit vectors (float32)."""
    rng = np.random.default_rng(seed)
    for start in range(0, count, batch):
        block = rng.standard_normal((min(batch, count - start), dimensions), dtype=np.float32)
        yield block / np.linalg.norm(block, axis=1, keepdims=True)


def turn_vectors(count: int, dimensions: int = 384, seed: int = 0, batch: int = 10_000, *,
                 embeddings: np.ndarray, noise: float = 0.2) -> Iterator[np.ndarray]:
    """Batches of unit vectors for the memories ``texts(count, seed)`` makes: the mean of their two
    source turns' real embeddings (``embeddings``, one row per turn of ``locomo_turn_records``),
    moved by random noise of ``noise`` times its length so that no two are alike."""
    assert embeddings.shape[1] == dimensions
    pairs = sources(count, len(embeddings), seed)
    rng = np.random.default_rng(seed + 1)
    for start in range(0, count, batch):
        a, b = np.array([next(pairs) for _ in range(min(batch, count - start))]).T
        block = (embeddings[a] + embeddings[b]) / 2
        shake = rng.standard_normal(block.shape, dtype=np.float32)
        block += shake * (noise * np.linalg.norm(block, axis=1, keepdims=True) / np.linalg.norm(shake, axis=1, keepdims=True))
        yield (block / np.linalg.norm(block, axis=1, keepdims=True)).astype(np.float32)
