"""How much of a query the best word match covers: the BM25 score a memory holding every term of
the query would earn.

Score fusion divides BM25 by the best score found, so the best word match always counts in full,
whether it holds the query's rare, telling words or one incidental word ("play" of "what sport
does my son play?"). Divided instead by the larger of the best score and the query's ideal
score, a word match counts by how much of the query it holds: the words side speaks loudly only
when it found the query's words, and meaning decides the rest.

The ideal is the sum of the query's terms' IDF as FTS5's bm25() computes it, which is the score
of a memory of average length holding each term once. A term no memory holds counts as a rare
one, as if one memory held it (``absent``: the share of that IDF it counts). Left out, as they
were at first, the one incidental term that a young or small memory holds stood for the whole
query: in 周末带狗狗去哪儿玩 ("where to take the dog at the weekend"), 周末 held by a note about a
weekend hike matched in full, as much as the closest meaning, while the dog was in no memory's
words. Counted, the words side speaks by how much of the whole query it found. Chinese bigrams
across two words (带狗, 狗去) count too, which leaves Chinese queries to meaning a little more.
tests/bench/retrieval.py, left out → counted, recall@5/@10: LoCoMo .675/.764 → .676/.770, MemDaily
(Chinese) .722/.856 → .731/.857; LongMemEval_S (418 questions) session recall_any/all@5
.931/.816 → .938/.825. Half the IDF instead of all of it: .676/.766 and .733/.861.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram.core.memory.search.words.okapi import idf
from engram.core.memory.search.words.tokens import COMMON_AT_LEAST, COMMON_SHARE, MAX_QUERY_TERMS, query_terms

if TYPE_CHECKING:
    from engram.core.memory.search.words import WordIndex


def ideal_bm25(words: "WordIndex", db: Any, query: str, user: str, absent: float = 1.0) -> float:
    """The BM25 score of a memory of average length holding each of the query's terms once, in the
    user's word index (a term no memory holds: ``absent`` of a term one memory holds; none for a
    user without memories). A term held by more memories than words counts as common (tokens.py)
    is counted no further, so its IDF is at most that of a common term: cheap, and small either way."""
    documents, held = words.holding(db, user, query_terms(query)[:MAX_QUERY_TERMS],
                                    lambda documents: max(COMMON_AT_LEAST, int(documents * COMMON_SHARE)) + 1)
    if not documents:
        return 0.0
    return sum(idf(documents, count) if count else absent * idf(documents, 1) for count in held)
