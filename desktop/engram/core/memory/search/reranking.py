"""The optional last stage of search: a cross-encoder reorders the best fused candidates.

Fusion ranks each side's evidence; a cross-encoder reads the query and each memory together, so it
sees what the words and the vectors of each alone miss (published: reranking an embedder's top 100
raises C-MTEB retrieval, docs/models.md). It costs a model call per candidate, so only the best
``rerank_candidates`` (never fewer than the results wanted) are read; they come first, in its
order, with its score; the others follow as fusion left them.
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.core.memory.records import Memory
from engram.core.models.reranker import Reranker


def reranked(reranker: Reranker, query: str, memories: Sequence[Memory],
             candidates: int) -> tuple[list[Memory], dict[int, float]]:
    """The memories with the first ``candidates`` in the reranker's order (ties: as they were), and
    its score of each of those, by memory id."""
    top = list(memories[:candidates])
    scores = reranker.score(query, [memory.text for memory in top])
    order = sorted(range(len(top)), key=lambda at: -scores[at])
    return [top[at] for at in order] + list(memories[candidates:]), {top[at].id: float(scores[at]) for at in order}
