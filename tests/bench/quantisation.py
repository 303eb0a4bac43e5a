"""What the compact vector copy used for search costs in recall, on real vectors (run by hand).

    .venv/bin/python tests/bench/quantisation.py [--model e5|minilm|PATH] [--documents 100000] [--queries 300]
        [--k 200] [--shortlist-min 1000] [--data /work/shared/bench-data]

Documents: real vectors of the model (default: the bundled one) from the benchmark embedding cache
(<repo>/.cache/embeddings.sqlite, filled by retrieval.py: LoCoMo and LongMemEval turns). Queries:
LoCoMo questions, embedded by the model as queries. For each query the search copy's (Hamming shortlist,
int8 rescoring; engram.core.memory.search.vectors.mirror) top k is compared with the exact float cosine top k,
for several oversampling factors; prints the share of the exact top k found and the scan time.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from embed_cache import DEFAULT_PATH  # noqa: E402
from metrics import percentile  # noqa: E402
from store_bench import REPO  # noqa: E402

from engram.core.memory.search.vectors import mirror as vector_mirror  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL, MINILM_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402


MODELS = {"e5": BUNDLED_EMBEDDING_MODEL, "minilm": MINILM_EMBEDDING_MODEL}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="e5", help="e5, minilm or the path of a GGUF embedding model")
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data",
                        help="the folder holding locomo10.json")
    parser.add_argument("--oversample", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--k", type=int, default=200, help="results asked of the copy per query")
    parser.add_argument("--shortlist-min", type=int, default=vector_mirror.SHORTLIST_MIN,
                        help="candidates rescored at least (lower it to see the bits' own quality)")
    args = parser.parse_args(argv)

    embedder = GGUFEmbedder(MODELS.get(args.model, args.model))
    cache = sqlite3.connect(f"file:{DEFAULT_PATH}?mode=ro", uri=True)
    rows = cache.execute("SELECT vector FROM vectors WHERE model = ? LIMIT ?",
                         (embedder.fingerprint, args.documents)).fetchall()
    documents = np.frombuffer(b"".join(r[0] for r in rows), np.float32).reshape(len(rows), embedder.dimensions)
    copy = vector_mirror.UserVectors(embedder.dimensions)
    copy.append(np.arange(len(documents), dtype=np.int64), documents, [("message", "", "", "")] * len(documents))
    samples = json.loads((args.data / "locomo10.json").read_text())
    questions = [qa["question"] for sample in samples for qa in sample["qa"]][: args.queries]
    queries = np.array([embedder.embed_query(q) for q in questions])
    unit = documents / np.maximum(np.linalg.norm(documents, axis=1, keepdims=True), 1e-12)
    exact = [np.argsort(-(unit @ (q / np.linalg.norm(q))))[:200] for q in queries]
    print(f"{embedder.name}: {len(documents):,} real document vectors, {len(queries)} queries")
    depths = [depth for depth in (10, 50, 200) if depth <= args.k]
    print(f"{'oversample':>10}" + "".join(f"{f'found@{depth}':>11}" for depth in depths) + f"{'p50 ms':>9}{'p95 ms':>9}")
    for factor in args.oversample:
        vector_mirror.OVERSAMPLE, vector_mirror.SHORTLIST_MIN = factor, args.shortlist_min
        found = {depth: [] for depth in depths}
        times = []
        for query, truth in zip(queries, exact):
            started = time.perf_counter()
            got = [i for i, _ in copy.nearest(query, Scope(), (), args.k)]
            times.append((time.perf_counter() - started) * 1000)
            for k in found:
                found[k].append(len(set(got[:k]) & set(truth[:k].tolist())) / k)
        print(f"{factor:>10}" + "".join(f"{np.mean(found[depth]):>11.4f}" for depth in depths)
              + f"{percentile(times, .5):>9.2f}{percentile(times, .95):>9.2f}")
    embedder.close()


if __name__ == "__main__":
    main()
