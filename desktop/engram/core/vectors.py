"""Vectors in sqlite-vec, one vec0 table per embedding model so that spaces never mix.

The user is the partition key (a user's search reads only that user's vectors); kind, session,
agent and application are metadata columns that vec0 filters during the KNN scan.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram.core.db import Database
from engram.core.records import now_iso
from engram.core.scope import Scope


class VectorIndex:
    def __init__(self, db: Database, model_name: str, fingerprint: str, dimensions: int):
        self.db = db
        self.dimensions = dimensions
        with db.transaction() as conn:
            row = conn.execute("SELECT id, dimensions FROM embedding_models WHERE fingerprint = ?",
                               (fingerprint,)).fetchone()
            if row is None:
                conn.execute("INSERT INTO embedding_models(name, fingerprint, dimensions, created_at)"
                             " VALUES (?, ?, ?, ?)", (model_name, fingerprint, dimensions, now_iso()))
                row = (conn.last_insert_rowid(), dimensions)
            self.model_id = row[0]
            self.table = f"memory_vec_{self.model_id}"
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.table} USING vec0("
                " memory_id INTEGER PRIMARY KEY,"
                " user TEXT PARTITION KEY,"
                f" embedding FLOAT[{dimensions}] distance_metric=cosine,"
                " kind TEXT, session TEXT, agent TEXT, application TEXT)")

    def put(self, conn, rows: Sequence[tuple[int, Scope, str]], vectors: np.ndarray) -> None:
        """Store vectors for (memory id, scope, kind) rows, inside the caller's transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        conn.executemany(
            f"INSERT OR REPLACE INTO {self.table}(memory_id, user, embedding, kind, session, agent, application)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(mid, scope.user, vec.tobytes(), kind, scope.session, scope.agent, scope.application)
             for (mid, scope, kind), vec in zip(rows, vectors)])

    def remove(self, conn, memory_ids: Sequence[int]) -> None:
        conn.executemany(f"DELETE FROM {self.table} WHERE memory_id = ?", [(i,) for i in memory_ids])

    def nearest(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Up to k (memory id, cosine distance) pairs inside the scope, nearest first."""
        conditions, params = ["embedding MATCH ?", "k = ?"], [np.asarray(vector, np.float32).tobytes(), k]
        for name, value in scope.items():
            if value:
                conditions.append(f"{name} = ?")
                params.append(value)
        if kinds:
            conditions.append(f"kind IN ({','.join('?' * len(kinds))})")
            params.extend(kinds)
        return self.db.query(f"SELECT memory_id, distance FROM {self.table} WHERE {' AND '.join(conditions)}"
                             " ORDER BY distance", params)

    def count(self) -> int:
        # vec0's own count(*) reads every vector chunk; its rowids shadow table has one row per vector.
        return self.db.query_one(f"SELECT count(*) FROM {self.table}_rowids")[0]

    def missing(self, limit: int) -> list[tuple]:
        """Memories that have no vector in this model's space yet (new, or made by another model)."""
        return self.db.query(
            "SELECT m.id, m.text, m.kind, m.application, m.agent, m.user, m.session FROM memories m"
            f" WHERE NOT EXISTS (SELECT 1 FROM {self.table} v WHERE v.memory_id = m.id)"
            " ORDER BY m.id LIMIT ?", (limit,))

    def all_tables(self) -> list[str]:
        return [f"memory_vec_{mid}" for (mid,) in self.db.query("SELECT id FROM embedding_models")]
