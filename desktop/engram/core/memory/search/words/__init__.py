"""The words side of search: text cut into terms by script (tokens.py), one FTS5 index per user
(index.py), and the BM25 matches of a query inside a search scope (bm25.py)."""
