"""The meaning side of search: one sqlite-vec table per embedding model (table.py) and the
compact in-memory copy of a user's vectors that nearest-neighbour search scans (mirror.py)."""
