"""How much of a query the best word match covers: the BM25 score a memory holding every term of
the query would earn.

Score fusion divides BM25 by the best score found, so the best word match always counts in full,
whether it holds the query's rare, telling words or one incidental word ("play" of "what sport
does my son play?"). Divided instead by the larger of the best score and the query's ideal
score, a word match counts by how much of the query it holds: the words side speaks loudly only
when it found the query's words, and meaning decides the rest.

The ideal is the sum of the query's terms' IDF as FTS5's bm25() computes it, which is the score
of a memory of average length holding each term once. Terms no memory holds are left out: they
cannot be matched by anything (a Chinese bigram across two words, "住在" of "我住在哪"), so they say
nothing about how well the best match did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram.core.memory.search.words.okapi import idf
from engram.core.memory.search.words.tokens import COMMON_AT_LEAST, COMMON_SHARE, MAX_QUERY_TERMS, query_terms

if TYPE_CHECKING:
    from engram.core.memory.search.words import WordIndex


def ideal_bm25(words: "WordIndex", db: Any, query: str, user: str) -> float:
    """The BM25 score of a memory of average length holding each of the query's terms once, in the
    user's word index. A term held by more memories than words counts as common (tokens.py) is
    counted no further, so its IDF is at most that of a common term: cheap, and small either way."""
    documents, held = words.holding(db, user, query_terms(query)[:MAX_QUERY_TERMS],
                                    lambda documents: max(COMMON_AT_LEAST, int(documents * COMMON_SHARE)) + 1)
    return sum(idf(documents, count) for count in held if count)
