"""Search: hybrid recall, the best BM25 matches over words and nearest neighbours over meaning,
fused (fusion.py). words/ cuts text into index and query terms and keeps each user's FTS5 index;
vectors/ keeps each embedding model's vec0 table and the compact in-memory copy searched."""
