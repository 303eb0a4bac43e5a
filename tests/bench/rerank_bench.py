"""What the reranker stage adds to a search, run by hand, with the tiny test rerankers (or a real one):

    .venv/bin/python tests/bench/rerank_bench.py                        # tiny bge and Qwen3 rerankers
    .venv/bin/python tests/bench/rerank_bench.py --model bge-reranker-v2-m3-Q8_0.gguf --queries 5

A store holds the first LoCoMo conversation's turns (each "speaker: text", as retrieval.py stores
them; vectors from the fake embedder, so only the reranker's cost differs); its questions are asked
through ``MemoryStore.search`` (hybrid, k 5) without a reranker and with one reading the best 20,
50 and 100 candidates. Per size: the added time per search (median and p95 of the difference to
the same question without a reranker, wall clock; CPU time of the whole process beside it), the
tokens the reranker read (its pairs, template included) and its cost per 1,000 tokens.

The tiny models (tests/tiny_models.py: one layer, 16 wide, real XLM-RoBERTa and Qwen2 tokenizers)
have random weights: their time is the path's own (tokenising, packing pairs into batches, the graph
llama.cpp builds, reading the scores), a floor under any real reranker; a 0.6B model's cost per token is
its own and is not measured here.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see retrieval.py

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gguf  # noqa: E402
from metrics import percentile  # noqa: E402

from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.options import SearchOptions  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402
from engram.core.models.reranker import GGUFReranker  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from fakes import FakeEmbedder  # noqa: E402
from tiny_models import bert_model, qwen3_model  # noqa: E402

SIZES = (20, 50, 100)


def locomo(data: Path) -> tuple[list[str], list[str]]:
    """The first conversation's turns and its questions."""
    conversation = json.loads((data / "locomo10.json").read_text(encoding="utf-8"))[0]
    turns = [f"{turn['speaker']}: {turn['text']}" for key, session in sorted(conversation["conversation"].items())
             if key.startswith("session_") and isinstance(session, list) for turn in session]
    return turns, [qa["question"] for qa in conversation["qa"]]


def timed(store: MemoryStore, query: str, options: SearchOptions) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    store.search(query, Scope(user="bench"), options)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def bench(reranker: GGUFReranker, store: MemoryStore, questions: list[str]) -> dict:
    figures = {}
    for size in SIZES:
        options = SearchOptions(k=5, rerank_candidates=size)
        added, added_cpu, tokens = [], [], []
        for query in questions:
            store.reranker = None
            timed(store, query, options)                       # words and vectors warm for this question
            plain = timed(store, query, options)
            store.reranker = reranker
            memories = [h.memory.text for h in store.search(query, Scope(user="bench"),
                                                             SearchOptions(k=size, rerank_candidates=0)).hits]
            tokens.append(sum(len(reranker.pair(query, text)) for text in memories))
            reranked = timed(store, query, options)
            added.append(reranked[0] - plain[0])
            added_cpu.append(reranked[1] - plain[1])
        median = statistics.median(added)
        figures[size] = {"added_ms_median": round(median, 1), "added_ms_p95": round(percentile(added, 0.95), 1),
                         "added_cpu_ms_median": round(statistics.median(added_cpu), 1),
                         "tokens_median": int(statistics.median(tokens)),
                         "ms_per_1k_tokens": round(1000 * median / statistics.median(tokens), 2)}
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--model", type=Path, nargs="*", help="reranker GGUFs (default: the tiny test ones)")
    parser.add_argument("--queries", type=int, default=20, help="questions asked per size")
    parser.add_argument("--threads", type=int, default=None, help="default: the app's choice")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    turns, questions = locomo(args.data)
    store = MemoryStore(Database(":memory:"), FakeEmbedder())
    store.add_many([NewMemory(text, Scope(user="bench", session="s"), "message") for text in turns])
    with tempfile.TemporaryDirectory() as folder:
        models = args.model or [bert_model(Path(folder) / "tiny-bge-reranker-v2-m3.gguf", pooling=gguf.PoolingType.RANK),
                                qwen3_model(Path(folder) / "tiny-qwen3-reranker.gguf", pooling=gguf.PoolingType.RANK)]
        results = {}
        for path in models:
            reranker = GGUFReranker(path, n_threads=args.threads)
            reranker.score("warm-up", ["the first call allocates llama.cpp's buffers"] * 8)
            print(f"{path.name}: {reranker.threads} threads, {len(turns)} memories, {args.queries} questions a size")
            results[path.name] = figures = bench(reranker, store, questions[: args.queries])
            reranker.close()
            print(f"{'candidates':>10} {'added ms (median / p95)':>24} {'CPU ms':>8} {'tokens':>7} {'ms / 1k tokens':>15}")
            for size, row in figures.items():
                print(f"{size:>10} {row['added_ms_median']:>12} / {row['added_ms_p95']:<9} {row['added_cpu_ms_median']:>8}"
                      f" {row['tokens_median']:>7} {row['ms_per_1k_tokens']:>15}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
