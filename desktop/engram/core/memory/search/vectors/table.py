"""Vectors in sqlite-vec, one vec0 table per embedding model so that spaces never mix.

The user is the partition key; kind, session, agent and application are metadata columns.
vec0 is the durable copy; searches run on an in-memory copy of the user's vectors
(core/memory/search/vectors/mirror.py), which follows every change through ``vector_log``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from engram.core.storage.database import Database
from engram.core.memory.records import now_iso
from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors.mirror import VectorMirror

LOG_KEPT = 20_000   # newest vector_log entries kept; older copies reload


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
        self.mirror = VectorMirror(db, self.model_id, self.table, dimensions)

    def put(self, conn, rows: Sequence[tuple[int, Scope, str]], vectors: np.ndarray) -> None:
        """Store vectors for (memory id, scope, kind) rows, inside the caller's transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        conn.executemany(
            f"INSERT OR REPLACE INTO {self.table}(memory_id, user, embedding, kind, session, agent, application)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(mid, scope.user, vec.tobytes(), kind, scope.session, scope.agent, scope.application)
             for (mid, scope, kind), vec in zip(rows, vectors)])
        log(conn, [(self.model_id, scope.user, mid) for mid, scope, _ in rows])

    def nearest(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Up to k (memory id, cosine distance) pairs inside the scope, nearest first."""
        return self.mirror.nearest(vector, scope, kinds, k)

    def count(self) -> int:
        # vec0's own count(*) reads every vector chunk; its rowids shadow table has one row per vector.
        return self.db.query_one(f"SELECT count(*) FROM {self.table}_rowids")[0]

    def missing(self, limit: int) -> list[tuple]:
        """Memories that have no vector in this model's space yet (new, or made by another model)."""
        return self.db.query(
            "SELECT m.id, m.text, m.kind, m.application, m.agent, m.user, m.session FROM memories m"
            f" WHERE NOT EXISTS (SELECT 1 FROM {self.table} v WHERE v.memory_id = m.id)"
            " ORDER BY m.id LIMIT ?", (limit,))


def remove_everywhere(conn, memory_ids: Sequence[int]) -> None:
    """Remove memories' vectors from every model's table, inside the caller's transaction (before
    the memories themselves are deleted: the log needs their user)."""
    users = dict(conn.execute("SELECT id, user FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                              (json.dumps(list(memory_ids)),)).fetchall())
    for (model_id,) in conn.execute("SELECT id FROM embedding_models").fetchall():
        conn.executemany(f"DELETE FROM memory_vec_{model_id} WHERE memory_id = ?", [(i,) for i in memory_ids])
        log(conn, [(model_id, users.get(i, ""), i) for i in memory_ids])


def log(conn, changes: Sequence[tuple[int, str, int]]) -> None:
    """Record (model id, user, memory id) vector changes and forget all but the newest entries."""
    conn.executemany("INSERT INTO vector_log(model_id, user, memory_id) VALUES (?, ?, ?)", changes)
    conn.execute("DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - ?", (LOG_KEPT,))
