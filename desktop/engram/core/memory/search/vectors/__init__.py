"""The meaning side of search: one table of vectors per embedding model, on SQLite in sqlite-vec
(table.py, searched through the compact in-memory copy of a user's vectors, mirror.py) or on a
PostgreSQL server in pgvector (pgvector_table.py); index.py says what both offer."""

from __future__ import annotations

from engram.core.memory.search.vectors.index import VectorIndex
from engram.core.memory.search.vectors.pgvector_table import PgVectorIndex
from engram.core.memory.search.vectors.table import Vec0Index

BACKENDS: dict[str, type[VectorIndex]] = {"sqlite": Vec0Index, "postgresql": PgVectorIndex}


def index_type(db) -> type[VectorIndex]:
    """The vector index of the database's engine."""
    return BACKENDS[db.dialect]
