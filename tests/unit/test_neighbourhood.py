"""Similarity measured from the middle of the query's neighbourhood (search/neighbourhood.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engram.core.models.embeddings import normalise_rows, relatedness
from engram.core.memory.search.neighbourhood import NEIGHBOURHOOD_MIN, similarities


def crowd(rows: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Memories that all share one strong direction (a language, a register) plus their own parts;
    the query shares it too, and the last memory's own part; the first memory is made to lie even
    nearer the shared direction (a "hub": close to every query of the language)."""
    rng = np.random.default_rng(seed)
    shared = np.zeros(64, np.float32)
    shared[0] = 1.0
    own = normalise_rows(rng.standard_normal((rows, 64)).astype(np.float32))
    own[:, 0] = 0.0
    memories = normalise_rows(2.0 * shared + own)
    memories[0] = normalise_rows((4.0 * shared + own[0])[None, :])[0]
    query = normalise_rows((2.0 * shared + 0.2 * own[-1])[None, :])[0]
    return memories, query


def test_the_memory_that_answers_beats_the_hub_once_centred():
    memories, query = crowd(NEIGHBOURHOOD_MIN + 10)
    raw = memories @ query
    assert int(np.argmax(raw)) == 0                      # whole vectors: the hub wins
    centred = similarities(memories, query, unrelated=0.0)
    assert int(np.argmax(centred)) == len(memories) - 1  # from the middle: the answer wins
    assert abs(float(np.mean(centred))) < 0.2            # the typical neighbour lies near 0


def test_too_few_neighbours_or_not_centred_keep_the_models_scale():
    memories, query = crowd(NEIGHBOURHOOD_MIN - 1)
    expected = relatedness(memories @ query, 0.75)
    assert similarities(memories, query, unrelated=0.75) == pytest.approx(expected)
    memories, query = crowd(NEIGHBOURHOOD_MIN + 10)
    assert similarities(memories, query, 0.75, centred=False) == pytest.approx(relatedness(memories @ query, 0.75))


def test_a_query_at_the_middle_has_no_direction_and_keeps_the_models_scale():
    memories, _ = crowd(NEIGHBOURHOOD_MIN + 10)
    middle = memories.mean(axis=0)
    assert similarities(memories, middle, 0.0) == pytest.approx(memories @ middle)
