"""A plain character-bigram BM25: the baseline that Chinese search is measured against.

No segmentation, no stopwords, no script rules: every run of letters, digits or CJK characters,
lower-cased, becomes its overlapping character pairs (a one-character run stays itself). This is
the retriever of the Chinese IR literature's "bigram baseline"; issue 11 compares the product with
it, so it is kept this plain on purpose. Lucene's BM25 (k1 1.2, b 0.75, idf never below zero).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_RUN = re.compile(r"[^\W_]+")


def bigrams(text: str) -> list[str]:
    """The character bigrams of ``text``'s letter/digit runs, in order, repeats kept."""
    grams: list[str] = []
    for run in _RUN.findall(text.lower()):
        grams.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
    return grams


class BigramBM25:
    """One corpus (one person's memories), ranked by BM25 over character bigrams."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.counts = [Counter(bigrams(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = (sum(self.lengths) / len(self.lengths) if self.lengths else 0.0) or 1.0
        holding = Counter(gram for counts in self.counts for gram in counts)
        n = len(self.counts)
        self.idf = {gram: math.log(1 + (n - f + 0.5) / (f + 0.5)) for gram, f in holding.items()}

    def score(self, query: str, document: int) -> float:
        counts, length = self.counts[document], self.lengths[document]
        norm = self.k1 * (1 - self.b + self.b * length / self.average)
        return sum(self.idf[g] * counts[g] * (self.k1 + 1) / (counts[g] + norm)
                   for g in bigrams(query) if g in counts)

    def ranking(self, query: str, k: int) -> list[int]:
        """Indices of the best ``k`` documents sharing a bigram with ``query``, best first (ties:
        the earlier document first)."""
        scored = [(s, i) for i in range(len(self.counts)) if (s := self.score(query, i)) > 0]
        return [i for _, i in sorted(scored, key=lambda pair: (-pair[0], pair[1]))[:k]]
