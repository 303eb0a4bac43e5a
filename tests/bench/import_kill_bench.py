"""Imports killed, by hand: python tests/bench/import_kill_bench.py [--conversations 625] [--turns 8] [--kills 3] [--at S ...]

For each of ``--kills`` fresh data folders: ``engram import chatgpt`` of a 5,000-message export
(import_bench.write_export) is killed with SIGKILL at a random moment of an import left alone
(or at ``--at`` seconds: while storing, say), ``engram doctor`` is run, then the same import again to its end. Prints when each was
killed, what doctor said of the database and the background work, the re-run's time, and the
counts after it: sessions, messages and archived memories (each exactly once) and pending jobs.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engram.core.storage.database import Database  # noqa: E402
from import_bench import write_export  # noqa: E402

ENGRAM = [sys.executable, "-m", "engram"]


def engram(data: Path, *args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "desktop")}
    return subprocess.Popen([*ENGRAM, *args, "--data-dir", str(data)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kwargs)


def counts(path: Path) -> dict[str, int]:
    db = Database(path)
    try:
        one = lambda sql: db.query_one(sql)[0]  # noqa: E731
        return {
            "sessions": one("SELECT count(*) FROM sessions"),
            "import keys": one("SELECT count(DISTINCT import_key) FROM sessions"),
            "messages": one("SELECT count(*) FROM messages"),
            "distinct messages": one("SELECT count(*) FROM (SELECT DISTINCT session_id, content FROM messages)"),
            "archived": one("SELECT count(*) FROM memories WHERE kind = 'message'"),
            "pending jobs": one("SELECT count(*) FROM outbox WHERE state != 'done'"),
        }
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=625)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--at", type=float, nargs="*", help="kill at these seconds instead (no timing run first)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    home = Path(tempfile.mkdtemp(prefix="engram-kill-bench-"))
    export = write_export(home / "export.zip", args.conversations, args.turns)
    moments = args.at
    if not moments:
        started = time.perf_counter()
        engram(home / "whole", "import", "chatgpt", str(export)).communicate()
        full = time.perf_counter() - started
        print(f"{args.conversations * args.turns} messages; an import left alone takes {full:.1f} s", flush=True)
        moments = [rng.uniform(0.1, 1.0) * full for _ in range(args.kills)]
    for trial, at in enumerate(moments):
        data = home / f"killed-{trial}"
        process = engram(data, "import", "chatgpt", str(export))
        time.sleep(at)
        process.send_signal(signal.SIGKILL)
        process.communicate()
        before = counts(data / "engram.db")
        doctor = engram(data, "doctor")
        said = doctor.communicate()[0].splitlines()
        shown = [line for line in said if "database" in line or "background work" in line]
        started = time.perf_counter()
        again = engram(data, "import", "chatgpt", str(export))
        out = again.communicate()[0].strip().splitlines()
        took = time.perf_counter() - started
        after = counts(data / "engram.db")
        print(f"killed at {at:.1f} s: {before}")
        print(f"  doctor (exit {doctor.returncode}): " + " | ".join(shown))
        print(f"  re-run (exit {again.returncode}, {took:.1f} s): " + " | ".join(out[-3:]))
        print(f"  after: {after}", flush=True)


if __name__ == "__main__":
    main()
