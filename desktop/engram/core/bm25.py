"""BM25 with one user's own word statistics, as an FTS5 auxiliary function.

FTS5's bm25() weighs each query term by how many documents of the whole index hold it, and to
know that it reads the term's entire posting list, every user's, on every query (4–11 ms of a
search among a million memories of 100 people). When a search reads only one user's postings
(search.words_ranked), the weights come from that user's own counts instead, counted in the
same read, and ``engram_bm25`` applies them: the ranking of one person's memories no longer
depends on what other people wrote. Same formula and constants as FTS5's bm25().
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

K1 = 1.2
B = 0.75
FUNCTION = "engram_bm25"


def weights(counts: Sequence[int | None], documents: int) -> bytes:
    """Each phrase's weight (inverse document frequency) from how many of ``documents`` hold it;
    None weighs a phrase 0 (e.g. the owner token that only selects the user's memories)."""
    return array("d", [0.0 if n is None else max(1e-6, math.log((documents - n + 0.5) / (n + 0.5)))
                       for n in counts]).tobytes()


def score(api, weights_blob: bytes) -> float:
    """The BM25 score (higher is better) of the current row in the first column, with the
    phrases weighed by ``weights_blob`` (from ``weights``, one per phrase of the MATCH)."""
    if api.aux_data is None:  # once per query: the weighed phrases and the average length
        weighed = tuple((phrase, weight) for phrase, weight in enumerate(array("d", weights_blob)) if weight)
        api.aux_data = (weighed, K1 * B / max(api.column_total_size(0) / max(api.row_count, 1), 1e-9))
    weighed, per_token = api.aux_data
    norm = K1 * (1 - B) + per_token * api.column_size(0)
    total = 0.0
    for phrase, weight in weighed:
        hits = len(api.phrase_locations(phrase)[0])
        if hits:
            total += weight * hits * (K1 + 1) / (hits + norm)
    return total
