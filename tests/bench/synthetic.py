"""Synthetic memories for speed benchmarks: real-looking text and precomputed unit vectors.

Texts are recombined halves of LoCoMo conversation turns (so word frequencies, lengths and
vocabulary look like real chat), numbered so that each is unique. Vectors are random unit
vectors, or real vectors of the source turns with noise when given: the KNN scan costs the
same either way, and recall is measured on real data by retrieval.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "bench-data"


def locomo_turns(data_dir: Path = DEFAULT_DATA) -> list[str]:
    samples = json.loads((data_dir / "locomo10.json").read_text())
    return [turn["text"] for sample in samples for key, session in sample["conversation"].items()
            if key.startswith("session_") and isinstance(session, list) for turn in session]


def texts(count: int, seed: int = 0, data_dir: Path = DEFAULT_DATA) -> Iterator[str]:
    turns = locomo_turns(data_dir)
    halves = [(t[: len(t) // 2].rsplit(" ", 1)[0], t[len(t) // 2:].split(" ", 1)[-1]) for t in turns]
    rng = np.random.default_rng(seed)
    for number in range(count):
        a, b = rng.integers(0, len(halves), 2)
        yield f"{halves[a][0]} {halves[b][1]} (#{number})"


def vectors(count: int, dimensions: int = 384, seed: int = 0, batch: int = 10_000) -> Iterator[np.ndarray]:
    """Batches of random unit vectors (float32)."""
    rng = np.random.default_rng(seed)
    for start in range(0, count, batch):
        block = rng.standard_normal((min(batch, count - start), dimensions), dtype=np.float32)
        yield block / np.linalg.norm(block, axis=1, keepdims=True)
