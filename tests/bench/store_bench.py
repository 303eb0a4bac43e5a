"""Store speed, run by hand: batch inserts and search latency for one user at 10k and 100k memories.

    .venv/bin/python tests/bench/store_bench.py [--sizes 10000 100000] [--real 2000] [--threads 2]

Prints: insert rate with real embeddings (the bundled model) beside bare llama-cpp-python
embedding calls on the same texts and batches; insert rate with precomputed vectors; then,
per size, search latency p50/p95 for hybrid, words and meaning (search only) and the query
embedding time apart. Texts: LoCoMo turns and synthetic recombinations (tests/bench/synthetic.py).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see retrieval.py

import argparse
import json
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from metrics import percentile  # noqa: E402

from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.options import MODES, SearchOptions  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402

USER = Scope("bench", "", "alice", "s1")


def questions(data_dir: Path, count: int) -> list[str]:
    samples = json.loads((data_dir / "locomo10.json").read_text())
    return [qa["question"] for sample in samples for qa in sample["qa"]][:count]


def real_insert(store: MemoryStore, embedder: GGUFEmbedder, threads: int, texts: list[str], batch: int,
                rounds: int) -> None:
    """Bare llama-cpp-python embedding calls and store inserts (embedding included) on the same texts."""
    from llama_cpp import Llama

    context = embedder.context_tokens  # the same settings GGUFEmbedder uses, and the same texts per call
    bare = Llama(model_path=str(embedder.path), embedding=True, verbose=False, n_ctx=context, n_batch=context,
                 n_ubatch=context, n_threads=threads, n_threads_batch=threads)
    group = getattr(embedder, "GROUP", batch)
    bare_seconds = store_seconds = 0.0
    for round_number in range(rounds):  # batch by batch, alternating, so both see the same machine load
        scope = USER.narrowed(session=f"real-{round_number}")
        for start in range(0, len(texts), batch):
            chunk = texts[start:start + batch]
            started = time.perf_counter()
            for first in range(0, len(chunk), group):
                bare.embed(chunk[first:first + group], normalize=False, truncate=True)
            bare_seconds += time.perf_counter() - started
            started = time.perf_counter()
            store.add_many([NewMemory(t, scope, "message") for t in chunk])
            store_seconds += time.perf_counter() - started
    bare.close()
    bare_rate, store_rate = rounds * len(texts) / bare_seconds, rounds * len(texts) / store_seconds
    print(f"insert, real embeddings ({len(texts)} LoCoMo turns x {rounds}; add_many of {batch}, {group} texts per"
          f" llama.cpp call, alternating batch by batch):")
    print(f"  bare llama-cpp-python embed   {bare_rate:8.1f} messages/s")
    print(f"  MemoryStore.add_many          {store_rate:8.1f} messages/s   ratio {store_rate / bare_rate:.2f}")


def fill(store: MemoryStore, scope: Scope, target: int, batch: int = 2000, vectors=synthetic.vectors) -> float:
    """Add synthetic memories with precomputed vectors (``vectors``: synthetic.vectors or
    turn_vectors) until ``scope`` holds ``target``; returns memories/s."""
    have = store.count(Scope(user=scope.user))
    need = target - have
    if need <= 0:
        return float("nan")
    seed = zlib.crc32(f"{scope.user}:{have}".encode())
    texts = synthetic.texts(need, seed=seed)
    started = time.perf_counter()
    for block in vectors(need, store.vectors.dimensions, seed=seed, batch=batch):
        items = [NewMemory(next(texts), scope, "message") for _ in range(len(block))]
        store.add_many(items, vectors=block)
    return need / (time.perf_counter() - started)


def latency(store: MemoryStore, queries: list[str], options: SearchOptions, user: str = USER.user
            ) -> dict[str, list[float]]:
    """Per query: search wall time, the search thread's CPU time (what a busy, shared CPU inflates
    least) and the query embedding time, in ms."""
    times: dict[str, list[float]] = {"search": [], "cpu": [], "embed": []}
    for query in queries:
        cpu = time.thread_time()
        result = store.search(query, Scope(user=user), options)
        times["cpu"].append((time.thread_time() - cpu) * 1000)
        times["search"].append(result.search_ms)
        times["embed"].append(result.embed_ms)
    return times


HEADER = f"  {'mode':<10}{'search p50':>12}{'search p95':>12}{'cpu p50':>10}{'cpu p95':>10}{'embed p50':>11}{'embed p95':>11}   ms"


def row(mode: str, times: dict[str, list[float]]) -> str:
    return f"  {mode:<10}" + "".join(f"{percentile(times[key], share):>{width}.2f}" for key, width in
                                     (("search", 12), ("cpu", 10), ("embed", 11)) for share in (.5, .95))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--real", type=int, default=2000, help="texts for the real-embedding insert test (0 skips)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64, help="messages per add_many call with real embeddings")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)

    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, n_threads=args.threads)
    with tempfile.TemporaryDirectory(prefix="engram-store-bench-") as folder:
        db = Database(Path(folder) / "bench.sqlite")
        store = MemoryStore(db, embedder)
        if args.real:
            real_insert(store, embedder, args.threads, synthetic.locomo_turns(args.data)[: args.real], args.batch, args.rounds)
        queries = questions(args.data, args.queries)
        for size in args.sizes:
            rate = fill(store, USER, size)
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size_mb = sum(p.stat().st_size for p in Path(folder).glob("bench.sqlite*")) / 2**20
            print(f"\n{size:,} memories of one user (precomputed vectors inserted at {rate:,.0f}/s;"
                  f" database {size_mb:.0f} MB)")
            print(HEADER)
            for mode in MODES:
                options = SearchOptions(mode=mode, k=10)
                latency(store, queries[:10], options)  # warm the page cache
                print(row(mode, latency(store, queries, options)))
        db.close()
    embedder.close()


if __name__ == "__main__":
    main()
