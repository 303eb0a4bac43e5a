"""FTS5's BM25 as its bm25() computes it (fts5_aux.c): the constants and the inverse document
frequency, for what computes it outside FTS5 (the PostgreSQL word index, coverage.py)."""

from __future__ import annotations

import math

K1, B = 1.2, 0.75
LEAST_IDF = 1e-6   # the idf FTS5 gives a term held by half the documents or more


def idf(documents: int, holding: int) -> float:
    """The inverse document frequency of a term that ``holding`` of ``documents`` memories hold
    (counts read at two moments may have ``holding`` above ``documents``: the least idf then)."""
    share = (documents - holding + 0.5) / (holding + 0.5)
    return math.log(share) if share > 1 else LEAST_IDF


def idf_sql(documents: str, holding: str) -> str:
    """``idf`` as a PostgreSQL expression of two integer expressions, computed in the same double
    precision as Python's (a bare 0.5 would make it numeric, and its logarithm differ)."""
    share = f"(({documents}) - ({holding}) + 0.5::float8) / (({holding}) + 0.5::float8)"
    return f"CASE WHEN {share} > 1 THEN ln({share}) ELSE {LEAST_IDF!r}::float8 END"
