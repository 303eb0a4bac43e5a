"""What forgetting one memory costs, run by hand: synthetic memories of one person (real-looking
text, random 384-dimension vectors), then ``forget_memory`` on a few of them: the delete, the
merge of the person's word index (FTS5 'optimize', which rewrites the whole index) and the
checkpoint that empties the write-ahead log.

    .venv/bin/python tests/bench/forget_bench.py --size 10000
    .venv/bin/python tests/bench/forget_bench.py --size 100000 --folder /tmp/engram-forget
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import synthetic  # noqa: E402
from fakes import FakeEmbedder  # noqa: E402

from engram.core.app import Engram  # noqa: E402
from engram.core.forget import forget_memory  # noqa: E402
from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--forgets", type=int, default=3)
    parser.add_argument("--folder", help="keep the data here (reused by a later run)")
    parser.add_argument("--data", type=Path, default=synthetic.DEFAULT_DATA)
    args = parser.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="engram-forget-"))
    engram = Engram(folder, folder / "config", embedder=FakeEmbedder(384))
    scope = Scope(user="ann")
    have = engram.store.count(scope)
    if have < args.size:
        started = time.perf_counter()
        batch: list[NewMemory] = []
        vectors = synthetic.vectors(args.size - have, 384)
        for n, text in enumerate(synthetic.texts(args.size - have, seed=have, data_dir=args.data)):
            batch.append(NewMemory(text, scope, "message"))
            if len(batch) == 10_000 or n == args.size - have - 1:
                engram.store.add_many(batch, vectors=next(vectors)[:len(batch)])
                batch = []
        print(f"stored {args.size - have:,} memories in {time.perf_counter() - started:.1f} s")
    ids = [i for (i,) in engram.db.query("SELECT id FROM memories WHERE user = 'ann' ORDER BY random() LIMIT ?",
                                        (args.forgets,))]
    size = (folder / "engram.db").stat().st_size
    for memory_id in ids:
        started = time.perf_counter()
        done = forget_memory(engram, memory_id)
        print(f"forget #{memory_id} at {args.size:,} memories ({size / 1e6:,.0f} MB): "
              f"{(time.perf_counter() - started) * 1000:,.0f} ms, log emptied: {done.log_released}")
    engram.close()


if __name__ == "__main__":
    main()
