"""Search: the searcher (searcher.py) is handed the database and one embedding space; hybrid
recall fuses the best BM25 matches over words with nearest neighbours over meaning (fusion.py).
options.py names what a search is asked and what it answers, for every part of search to share.
words/ cuts text into index and query terms and keeps each user's FTS5 index; vectors/ keeps each
embedding model's table of vectors (vec0 with a compact in-memory copy searched, or pgvector)."""
