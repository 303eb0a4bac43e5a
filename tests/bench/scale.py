"""Scale, run by hand: synthetic memories (real-looking text, precomputed vectors) for one user
and spread over many users; insert rate, the time to load vectors for search, search p50/p95 by
mode, bytes per memory, resident memory.

    .venv/bin/python tests/bench/scale.py --size 100000 --users 1
    .venv/bin/python tests/bench/scale.py --size 1000000 --users 100 --folder /tmp/engram-scale

The query is embedded by the bundled model (shown apart); the search figures exclude it.
With --folder the database is kept, and a later run with the same folder reuses it.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from metrics import percentile  # noqa: E402
from store_bench import HEADER, REPO, fill, latency, questions, row  # noqa: E402

from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.fusion import MODES, SearchOptions  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402


def resident_mb() -> str:
    """Resident memory now and at its peak (Linux), in MB."""
    now = next((int(line.split()[1]) / 1024 for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith("VmRSS:")), float("nan"))
    return f"{now:,.0f} MB (peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--size", type=int, default=100_000, help="memories in all")
    parser.add_argument("--users", type=int, default=1, help="users they are spread over")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--folder", type=Path, help="keep the database here (default: a temporary folder)")
    args = parser.parse_args(argv)

    folder = args.folder or Path(tempfile.mkdtemp(prefix="engram-scale-"))
    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, n_threads=args.threads)
    db = Database(folder / f"scale-{args.size}-{args.users}.sqlite")
    store = MemoryStore(db, embedder)
    users = [f"user-{n:03d}" for n in range(args.users)]
    started, before = time.perf_counter(), store.count()
    for user in users:
        fill(store, Scope("bench", "", user, "s1"), args.size // args.users)
    inserted = store.count() - before
    elapsed = time.perf_counter() - started
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = sum(p.stat().st_size for p in folder.glob(db.path.name + "*"))
    print(f"{store.count():,} memories over {args.users} user(s): inserted {inserted:,} in {elapsed:.0f} s"
          f" ({inserted / max(elapsed, 1e-9):,.0f}/s); database {size / 2**20:,.0f} MB"
          f" ({size / max(store.count(), 1):,.0f} B/memory); resident {resident_mb()}")
    started = time.perf_counter()
    for user in users:   # what the app does in the background at start, for its one user
        store.warm(user)
    # Loads each user's vectors; after an upgrade from a shared word index, also makes their own.
    print(f"ready to search (MemoryStore.warm): {time.perf_counter() - started:.1f} s for {len(users)} user(s);"
          f" resident {resident_mb()}")
    queries = questions(args.data, args.queries)
    # Caches (SQLite's, the system's) warm up per user: the first search of each is shown apart.
    first = [ms for user in users for ms in latency(store, queries[:1], SearchOptions(k=10), user)["search"]]
    print(f"first search per user: p50 {percentile(first, .5):.1f} ms, p95 {percentile(first, .95):.1f} ms")
    print(HEADER)
    for mode in MODES:
        times: dict[str, list[float]] = {}
        for number, query in enumerate(queries):
            for key, values in latency(store, [query], SearchOptions(mode=mode, k=10), users[number % len(users)]).items():
                times.setdefault(key, []).extend(values)
        print(row(mode, times))
    print(f"  resident memory after searching: {resident_mb()}")
    db.close()
    embedder.close()


if __name__ == "__main__":
    main()
