"""What every backend's vector index offers the store and the search: one embedding model's vectors.

Each embedding model has a table of its own (``memory_vec_<model id>``, the id from
``embedding_models``), so that vectors of two models' spaces never mix. A backend stores the
user and the rest of the scope beside each vector and searches with the user in the SQL (or in
the SQL that loads its in-memory copy): another user's vectors are never read. The backends are
sqlite-vec (table.py) and pgvector (pgvector_table.py); ``vectors.index_type`` picks one by the
database's dialect.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence

import numpy as np

from engram.core.memory.records import now_iso
from engram.core.memory.scope import Scope

EACH_BATCH = 8192   # vectors read at a time by ``each`` (memory stays bounded)


class VectorIndex(ABC):
    """One embedding model's vectors in one database."""

    # Its upkeep, as the window's status shows it: an index built again in the background (pgvector's
    # graph after an upgrade, ``regraph_later``) is being rebuilt, or the last try stopped and why.
    rebuilding: bool = False
    rebuild_failed: str = ""

    def upkeep(self) -> tuple[bool, str]:
        """Whether the index is being rebuilt, and why the last try stopped (empty: it did not);
        read on the window's disk thread."""
        return self.rebuilding, self.rebuild_failed

    def __init__(self, db, model_name: str, fingerprint: str, dimensions: int):
        self.db = db
        self.dimensions = dimensions
        with db.transaction() as conn:
            self.model_id = registered(conn, model_name, fingerprint, dimensions)
            self.table = f"memory_vec_{self.model_id}"
            self._create(conn)

    @abstractmethod
    def _create(self, conn) -> None:
        """Make the model's table (and its indexes) if it does not exist yet."""

    @abstractmethod
    def put(self, conn, rows: Sequence[tuple[int, Scope, str]], vectors: np.ndarray) -> None:
        """Store vectors for (memory id, scope, kind) rows, inside the caller's transaction (a changed
        memory's old vector is removed first, with ``remove_everywhere``)."""

    @abstractmethod
    def neighbourhood(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """The memory ids (int64) and unit vectors (float32 rows) of up to k of the scope's user,
        inside the scope and kinds, nearest first."""

    def nearest(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The neighbourhood as (memory id, cosine distance) pairs, nearest first."""
        ids, vectors = self.neighbourhood(vector, scope, kinds, k)
        if not len(ids):
            return []
        query = np.asarray(vector, np.float32).reshape(-1)
        distances = 1.0 - vectors @ (query / np.linalg.norm(query))
        return [(int(memory_id), float(distance)) for memory_id, distance in zip(ids, distances)]

    @abstractmethod
    def count(self) -> int:
        """How many vectors the model has, all users together."""

    @abstractmethod
    def warm(self, user: str) -> None:
        """Make a user's first search as fast as the next ones (e.g. in the background at start)."""

    @abstractmethod
    def each(self, batch: int = EACH_BATCH) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every vector of the model, all users: (memory ids int64, float32 vectors) about ``batch``
        at a time (for moving data between databases)."""

    @staticmethod
    @abstractmethod
    def remove_everywhere(conn, memory_ids: Sequence[int]) -> None:
        """Remove memories' vectors from every model's table, inside the caller's transaction
        (before the memories themselves are deleted)."""

    def missing(self, limit: int) -> list[tuple]:
        """Memories that have no vector in this model's space yet (new, or made by another model):
        (id, text, kind, application, agent, user, session)."""
        return self.db.query(
            "SELECT m.id, m.text, m.kind, m.application, m.agent, m.user, m.session FROM memories m"
            f" WHERE NOT EXISTS (SELECT 1 FROM {self.table} v WHERE v.memory_id = m.id)"
            " ORDER BY m.id LIMIT ?", (limit,))


def registered(conn, model_name: str, fingerprint: str, dimensions: int) -> int:
    """The id of the embedding model with this fingerprint, registered now if it is new (by this
    process or, at the same moment, by another: the fingerprint is unique). A known model is only
    read: a database opened to read (a full disk) can still be searched by meaning."""
    known = "SELECT id FROM embedding_models WHERE fingerprint = ?"
    if (found := conn.execute(known, (fingerprint,)).fetchone()) is not None:
        return found[0]
    conn.execute("INSERT INTO embedding_models(name, fingerprint, dimensions, created_at) VALUES (?, ?, ?, ?)"
                 " ON CONFLICT (fingerprint) DO NOTHING", (model_name, fingerprint, dimensions, now_iso()))
    return conn.execute(known, (fingerprint,)).fetchone()[0]


def model_ids(conn) -> list[int]:
    """Every embedding model's id: each has a table of vectors."""
    return [model_id for (model_id,) in conn.execute("SELECT id FROM embedding_models").fetchall()]
