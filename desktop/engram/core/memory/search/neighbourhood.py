"""Similarity by meaning, measured from the middle of the query's neighbourhood.

The nearest memories to a query share much with it that does not answer it: the language (e5 puts
any two Chinese chat lines at a cosine of about 0.85), the register (a request to the assistant
looks like every other request), the topic of the whole conversation. Compared whole, that shared
part decides: a Chinese question found Chinese requests before the fact it needed, and an English
fact asked about in Chinese came last. So the meaning side takes its candidates (the nearest
``meaning_candidates``) and measures each one's cosine to the query after taking away their mean:
what is left of a memory is what sets it apart from its neighbours, and the one that differs from
them in the query's direction comes first. It is the centring that makes a multilingual space
language-neutral (Libovický et al., 2020), done per query on the neighbourhood, as hubness
corrections of cross-lingual retrieval do (CSLS, Conneau et al., 2018).

Measured with tests/bench/retrieval.py (docs/benchmarks.md), whole vectors → centred: LoCoMo
recall@10 by meaning alone 0.496 → 0.590, hybrid 0.740 → 0.764 (recall@5 0.648 → 0.675); MemDaily
(Chinese) hybrid recall@5 0.701 → 0.722; the 24 Chinese zero-overlap cases in the top 3, by meaning
8 → 14, hybrid 8 → 12. Tried instead: fixed means per language (Chinese, English) computed from
held-out chat, subtracted from every stored vector: hybrid zero-overlap 10, LoCoMo 0.736; the mean
of the person's whole memory (vectors alone): LoCoMo 0.595 against the neighbourhood's 0.631. A
neighbourhood of fewer than ``NEIGHBOURHOOD_MIN`` has too uncertain a middle: its cosines are
measured from the model's unrelated point as before.

Centred cosines lie around 0 for the neighbourhood's typical member (the mean of their unnormed
dot products with the query is exactly 0), so a similarity threshold keeps what stands out
above the neighbourhood, whatever the model's scale.
"""

from __future__ import annotations

import numpy as np

from engram.core.models.embeddings import normalise_rows, relatedness

NEIGHBOURHOOD_MIN = 20


def similarities(vectors: np.ndarray, query: np.ndarray, unrelated: float, centred: bool = True) -> np.ndarray:
    """Each unit vector's similarity to the unit query: centred on their mean (see above), or,
    when not ``centred`` or too few, the cosine measured from the model's ``unrelated`` point."""
    if centred and len(vectors) >= NEIGHBOURHOOD_MIN:
        centre = vectors.mean(axis=0)
        direction = query - centre
        length = float(np.linalg.norm(direction))
        if length > 0:
            return normalise_rows(vectors - centre) @ (direction / length)
    return relatedness(vectors @ query, unrelated)
