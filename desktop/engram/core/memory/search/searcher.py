"""The searcher: a search is handed what it reads, the database and one embedding space.

An embedding space is a model and the index of its vectors. The store hands over the one it
has when a search begins, so a switch of model meanwhile (``MemoryStore.use_embedder``) cannot
give a search one model's query and another model's vectors. Words are ranked on the searcher's
worker threads while meaning is scanned: SQLite and numpy both release the GIL, so on two cores
the two sides run side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from engram.core.memory.records import Memory
from engram.core.memory.scope import Scope
from engram.core.memory.search.fusion import SearchOptions, SearchResult, hybrid_search
from engram.core.memory.search.words import for_database
from engram.core.memory.search.vectors.index import VectorIndex
from engram.core.models.embeddings import Embedder
from engram.core.models.reranker import Reranker
from engram.core.storage.database import Database


@dataclass(frozen=True)
class EmbeddingSpace:
    """A model and its vectors, searched together; ``pending`` counts the memories it lacks."""
    embedder: Embedder
    vectors: VectorIndex
    pending: Callable[[], int]


class Searcher:
    """Hybrid search over one database and its word index; ``fetch`` reads memories by id inside a scope."""

    def __init__(self, db: Database, fetch: Callable[[Sequence[int], Scope], list[Memory]]):
        self.db = db
        self.words = for_database(db)
        self.fetch = fetch
        self.words_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="engram-words")

    def search(self, query: str, scope: Scope, options: SearchOptions, space: EmbeddingSpace | None,
               reranker: Reranker | None = None) -> SearchResult:
        """``space`` None: by words only; ``reranker``: the best candidates reordered by it."""
        return hybrid_search(self, space, query, scope, options, reranker)
