"""What an embedding model costs on this machine, run by hand: ingest and query speed, size, memory.

    .venv/bin/python tests/bench/embed_bench.py                       # the bundled models
    .venv/bin/python tests/bench/embed_bench.py --models a.gguf b.gguf --messages 400 --threads 2

Per model, in a process of its own (so its memory is its own): file size; load time; ingest with
real embeddings through the app's own path (messages stored without vectors, then
``MemoryStore.embed_pending``, as the outbox's archive job does), English LoCoMo turns and Chinese
MemDaily messages (from --memsim; the zero-overlap set's messages when it is not there), all
distinct, so the embedder's memory of recent texts saves nothing here; query embedding of
30-character queries (distinct LoCoMo questions, the zero-overlap and MemDaily questions cut to 30
characters), one at a time as a search does; resident memory after all that.

Each is given in wall-clock time and in CPU time (``time.process_time``, all the process's
threads): on a machine that other work keeps busy, wall-clock time says how long a person waited
and CPU time what the model costs, which the load hardly changes. Threads: the app's own choice
(``GGUFEmbedder``: half the cores, at most 4, for texts stored; up to two for a query) unless
--threads says otherwise.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see retrieval.py

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import chinese  # noqa: E402
from metrics import percentile  # noqa: E402

from engram.core import paths  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402

QUERY_CHARS = 30


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def distinct(items, count: int) -> list[str]:
    return list(dict.fromkeys(items))[:count]


def texts(data_dir: Path, memsim: Path, count: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(English messages, Chinese messages, English queries, Chinese queries), each text once."""
    samples = json.loads((data_dir / "locomo10.json").read_text())
    english = [f"{turn['speaker']}: {turn['text']}" for sample in samples
               for key, session in sample["conversation"].items()
               if key.startswith("session_") and not key.endswith("date_time") for turn in session]
    english_queries = [qa["question"] for sample in samples for qa in sample["qa"]]
    people = (chinese.memdaily(memsim, count) if memsim.is_dir() else []) + chinese.zero_overlap()
    chinese_messages = [m.text for person in people for m in person.messages]
    chinese_queries = [q.text for person in people for q in person.questions]
    return (distinct(english, count), distinct(chinese_messages, count),
            distinct((q[:QUERY_CHARS] for q in english_queries), 100),
            distinct((q[:QUERY_CHARS] for q in chinese_queries), 100))


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    """(wall, CPU) milliseconds since ``start``."""
    wall, cpu = clocks()
    return (wall - start[0]) * 1000, (cpu - start[1]) * 1000


def measure(model: Path, data_dir: Path, memsim: Path, count: int, threads: int | None) -> dict:
    english, chinese_messages, english_queries, chinese_queries = texts(data_dir, memsim, count)
    before = rss_mb()
    started = time.perf_counter()
    embedder = GGUFEmbedder(model, n_threads=threads)
    figures = {"model": model.name, "threads": embedder.threads, "query_threads": embedder.query_threads,
               "file_mb": round(model.stat().st_size / 2**20, 1),
               "dimensions": embedder.dimensions, "load_s": round(time.perf_counter() - started, 2)}
    embedder.embed(["warm-up"])
    with tempfile.TemporaryDirectory(prefix="engram-embed-bench-") as folder:
        db = Database(Path(folder) / "bench.sqlite")
        store = MemoryStore(db, embedder)
        for language, messages in (("en", english), ("zh", chinese_messages)):
            items = [NewMemory(text, Scope("bench", "", "alice", f"{language}-{n}"), "message")
                     for n, text in enumerate(messages)]
            store.add_many(items, embed=False)
            start = clocks()
            store.embed_pending()
            wall, cpu = since(start)
            figures[f"ingest_{language}_n"] = len(items)
            figures[f"ingest_{language}_per_s"] = round(len(items) / wall * 1000, 1)
            figures[f"ingest_{language}_cpu_ms"] = round(cpu / len(items), 1)
        db.close()
    for language, queries in (("en", english_queries), ("zh", chinese_queries)):
        walls, cpus = [], []
        for query in queries:
            start = clocks()
            embedder.embed_query(query)
            wall, cpu = since(start)
            walls.append(wall)
            cpus.append(cpu)
        figures[f"query_{language}_n"] = len(queries)
        for name, times in (("ms", walls), ("cpu_ms", cpus)):
            figures[f"query_{language}_p50_{name}"] = round(percentile(times, .5), 1)
            figures[f"query_{language}_p95_{name}"] = round(percentile(times, .95), 1)
    figures["rss_mb"] = round(rss_mb() - before, 1)
    embedder.close()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", type=Path,
                        default=[paths.BUNDLED_EMBEDDING_MODEL, paths.MINILM_EMBEDDING_MODEL])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data",
                        help="the bench-data folder (default: ../shared/bench-data beside the repository)")
    parser.add_argument("--memsim", type=Path, default=REPO.parent / "cache" / "memsim",
                        help="the folder of MemDaily's messages_and_QAs/*.json (default: ../cache/memsim)")
    parser.add_argument("--messages", type=int, default=400, help="messages ingested per language")
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: the app's own choice)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: one model, JSON out
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.models[0], args.data, args.memsim, args.messages, args.threads)))
        return
    rows = []
    for model in args.models:
        child = subprocess.run([sys.executable, __file__, "--one", "--models", str(model), "--data", str(args.data),
                                "--memsim", str(args.memsim), "--messages", str(args.messages),
                                *(["--threads", str(args.threads)] if args.threads else [])],
                               check=True, capture_output=True, text=True)
        rows.append(json.loads(child.stdout.splitlines()[-1]))
    print(f"ingest: messages/s (wall clock) and CPU ms a message; query: embedding of one query of at most"
          f" {QUERY_CHARS} characters, wall-clock and CPU ms; rss: resident memory the model added (MB);"
          f" load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for figure in rows[0]:
        print(f"{figure:>22}  " + "  ".join(f"{row[figure]!s:>32}" for row in rows))


if __name__ == "__main__":
    main()
