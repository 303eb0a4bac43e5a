"""Storage: the one SQLite database (apsw, sqlite-vec, FTS5) or a PostgreSQL server (psycopg,
pgvector), their numbered migrations, files written all-or-nothing, and the data folder moved
whole (relocate.py). The lowest layer: it imports nothing else of Engram but errors."""

from __future__ import annotations

from pathlib import Path

from engram.core.storage.database import Database
from engram.core.storage.postgres import PostgresDatabase, is_server_url


def open_database(location: str | Path) -> Database | PostgresDatabase:
    """The database at ``location``: a ``postgresql://`` URL names a server, anything else a SQLite file."""
    if isinstance(location, str) and is_server_url(location):
        return PostgresDatabase(location)
    return Database(location)
