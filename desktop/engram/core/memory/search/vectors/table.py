"""Vectors in sqlite-vec, one vec0 table per embedding model so that spaces never mix.

The user is the partition key; kind, session, agent and application are metadata columns.
vec0 is the durable copy; searches run on an in-memory copy of the user's vectors
(core/memory/search/vectors/mirror.py), which follows every change through ``vector_log``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import numpy as np

from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors.index import EACH_BATCH, VectorIndex, model_ids
from engram.core.memory.search.vectors.mirror import VectorMirror, stored

LOG_KEPT = 20_000   # newest vector_log entries kept; older copies reload


class Vec0Index(VectorIndex):
    """One model's vectors in a vec0 table, searched through per-user in-memory copies."""

    def __init__(self, db, model_name: str, fingerprint: str, dimensions: int):
        super().__init__(db, model_name, fingerprint, dimensions)
        self.mirror = VectorMirror(db, self.model_id, self.table, dimensions)

    def _create(self, conn) -> None:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.table} USING vec0("
            " memory_id INTEGER PRIMARY KEY,"
            " user TEXT PARTITION KEY,"
            f" embedding FLOAT[{self.dimensions}] distance_metric=cosine,"
            " kind TEXT, session TEXT, agent TEXT, application TEXT)")

    def put(self, conn, rows: Sequence[tuple[int, Scope, str]], vectors: np.ndarray) -> None:
        """A vector already there is replaced: vec0 does not honour OR REPLACE, and two processes may
        embed the same new memory (an import and a window archiving its reply): the second failed
        with "UNIQUE constraint failed" and its job was retried."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        conn.executemany(f"DELETE FROM {self.table} WHERE memory_id = ?", [(mid,) for mid, _, _ in rows])
        conn.executemany(
            f"INSERT INTO {self.table}(memory_id, user, embedding, kind, session, agent, application)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(mid, scope.user, vec.tobytes(), kind, scope.session, scope.agent, scope.application)
             for (mid, scope, kind), vec in zip(rows, vectors)])
        log(conn, [(self.model_id, scope.user, mid) for mid, scope, _ in rows])

    def neighbourhood(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        return self.mirror.neighbourhood(vector, scope, kinds, k)

    def count(self) -> int:
        # vec0's own count(*) reads every vector chunk; its rowids shadow table has one row per vector.
        return self.db.query_one(f"SELECT count(*) FROM {self.table}_rowids")[0]

    def warm(self, user: str) -> None:
        """Load the user's in-memory copy now rather than at the first search (seconds at 100k)."""
        self.mirror.warm(user)

    def each(self, batch: int = EACH_BATCH) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        with self.db.snapshot() as conn:   # one state throughout, while writes go on
            yield from stored(conn, self.table, self.dimensions, None, batch)

    @staticmethod
    def remove_everywhere(conn, memory_ids: Sequence[int]) -> None:
        # Before the memories are deleted: the log needs their user.
        users = dict(conn.execute("SELECT id, user FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                                  (json.dumps(list(memory_ids)),)).fetchall())
        for model_id in model_ids(conn):
            conn.executemany(f"DELETE FROM memory_vec_{model_id} WHERE memory_id = ?", [(i,) for i in memory_ids])
            log(conn, [(model_id, users.get(i, ""), i) for i in memory_ids])


def log(conn, changes: Sequence[tuple[int, str, int]]) -> None:
    """Record (model id, user, memory id) vector changes and forget all but the newest entries."""
    conn.executemany("INSERT INTO vector_log(model_id, user, memory_id) VALUES (?, ?, ?)", changes)
    conn.execute("DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - ?", (LOG_KEPT,))
