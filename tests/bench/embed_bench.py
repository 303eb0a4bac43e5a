"""What an embedding model costs on this machine, run by hand: ingest and query speed, size, memory.

    .venv/bin/python tests/bench/embed_bench.py                       # the bundled models
    .venv/bin/python tests/bench/embed_bench.py --models a.gguf b.gguf --messages 400 --threads 2

Per model, in a process of its own (so its memory is its own): file size; load time; ingest rate
with real embeddings through the app's own path (messages stored without vectors, then
``MemoryStore.embed_pending``, as the outbox's archive job does), English LoCoMo turns and
Chinese everyday messages (tests/bench/zero_overlap_zh.json when present) alike; query embedding
time p50/p95 for 30-character queries (LoCoMo questions and Chinese questions cut to 30
characters), one at a time as a search does; resident memory after all that.
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

from metrics import percentile  # noqa: E402

from engram.core import paths  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402

QUERY_CHARS = 30
CHINESE = Path(__file__).resolve().parent / "zero_overlap_zh.json"
# Used when zero_overlap_zh.json is not there: everyday Chinese messages and questions.
CHINESE_FALLBACK = (
    ["今天加班到十点，地铁上人还是好多。", "最近在看《三体》，第二部比第一部好看多了。", "我对花生过敏，吃了会起疹子。",
     "周末去爬了莫干山，风景真不错，就是腿酸了两天。", "我们组下周要做季度汇报，PPT还一页都没写。",
     "楼下新开了一家奶茶店，排队的人特别多。", "最近睡眠不太好，总是半夜醒过来。", "我用Python写代码，最近在学Rust。"],
    ["给我推荐点零食吧", "周末有什么好玩的地方可以去？", "我最近为什么总是睡不好，有什么办法吗？",
     "帮我想想季度汇报应该怎么准备"])


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def texts(data_dir: Path, count: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(English messages, Chinese messages, English queries, Chinese queries)."""
    samples = json.loads((data_dir / "locomo10.json").read_text())
    english = [f"{turn['speaker']}: {turn['text']}" for sample in samples
               for key, session in sample["conversation"].items()
               if key.startswith("session_") and not key.endswith("date_time") for turn in session]
    english_queries = [qa["question"] for sample in samples for qa in sample["qa"]]
    if CHINESE.exists():
        cases = json.loads(CHINESE.read_text(encoding="utf-8"))
        chinese = [d["text"] for d in cases["distractors"]] + [c["fact"] for c in cases["cases"]]
        chinese_queries = [c["question"] for c in cases["cases"]]
    else:
        chinese, chinese_queries = CHINESE_FALLBACK
    repeat = lambda items, n: [items[i % len(items)] for i in range(n)]  # noqa: E731
    return english[:count], repeat(chinese, count), english_queries[:100], repeat(chinese_queries, 100)


def measure(model: Path, data_dir: Path, count: int, threads: int) -> dict:
    before = rss_mb()
    started = time.perf_counter()
    embedder = GGUFEmbedder(model, n_threads=threads)
    figures = {"model": model.name, "file_mb": round(model.stat().st_size / 2**20, 1),
               "dimensions": embedder.dimensions, "load_s": round(time.perf_counter() - started, 2)}
    english, chinese, english_queries, chinese_queries = texts(data_dir, count)
    embedder.embed(["warm-up"])
    with tempfile.TemporaryDirectory(prefix="engram-embed-bench-") as folder:
        db = Database(Path(folder) / "bench.sqlite")
        store = MemoryStore(db, embedder)
        for language, messages in (("en", english), ("zh", chinese)):
            # Distinct sessions: a repeated Chinese text is a new memory, as the same words said in another chat are.
            items = [NewMemory(text, Scope("bench", "", "alice", f"{language}-{n}"), "message")
                     for n, text in enumerate(messages)]
            store.add_many(items, embed=False)
            started = time.perf_counter()
            store.embed_pending()
            figures[f"ingest_{language}_per_s"] = round(len(items) / (time.perf_counter() - started), 1)
        db.close()
    for language, queries in (("en", english_queries), ("zh", chinese_queries)):
        times = []
        for query in queries:
            started = time.perf_counter()
            embedder.embed_query(query[:QUERY_CHARS])
            times.append((time.perf_counter() - started) * 1000)
        figures[f"query_{language}_p50_ms"] = round(percentile(times, .5), 2)
        figures[f"query_{language}_p95_ms"] = round(percentile(times, .95), 2)
    figures["rss_mb"] = round(rss_mb() - before, 1)
    embedder.close()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", type=Path,
                        default=[paths.BUNDLED_EMBEDDING_MODEL, paths.MINILM_EMBEDDING_MODEL])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data",
                        help="the bench-data folder (default: ../shared/bench-data beside the repository)")
    parser.add_argument("--messages", type=int, default=400, help="messages ingested per language")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: one model, JSON out
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.models[0], args.data, args.messages, args.threads)))
        return
    rows = []
    for model in args.models:
        child = subprocess.run([sys.executable, __file__, "--one", "--models", str(model), "--data", str(args.data),
                                "--messages", str(args.messages), "--threads", str(args.threads)],
                               check=True, capture_output=True, text=True)
        rows.append(json.loads(child.stdout.splitlines()[-1]))
    columns = list(rows[0])
    print(f"{args.messages} messages per language, {args.threads} threads; ingest in messages/s, query embedding"
          f" of a {QUERY_CHARS}-character query in ms, rss = resident memory the model added (MB)")
    print("  ".join(f"{c:>{max(len(c), 10)}}" for c in columns))
    for row in rows:
        print("  ".join(f"{str(row[c]):>{max(len(c), 10)}}" for c in columns))


if __name__ == "__main__":
    main()
