"""Storage: the one SQLite database (apsw, sqlite-vec, FTS5), its numbered migrations, and
files written all-or-nothing. The lowest layer: it imports nothing else of Engram but errors."""
