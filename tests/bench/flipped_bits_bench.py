"""Flipped bits in the database, by hand: python tests/bench/flipped_bits_bench.py [--seeds 14] [--bits 200]

Makes one data folder (400 memories, a chat of 100 messages), then for each seed flips ``--bits``
random bits of a copy of its database and runs, as a person would, `engram memory list`, `memory
list --json`, `sessions list`, `sessions export`, `memory search`, `doctor` and `memory add`.
Prints each command's exit status, how many lines it printed and its last line on stderr, and
counts what must never happen (issue 33, defect 12): a traceback, a Python warning on the terminal,
a command that hangs (60 s), and a write that succeeded on a file known to be damaged.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "desktop"))

from engram.core import paths  # noqa: E402
from engram.core.conversation.sessions import Sessions  # noqa: E402
from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402
from engram.core.settings import DEFAULT_PROFILE  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402

COMMANDS = [["memory", "list"], ["memory", "list", "--json"], ["sessions", "list"], ["sessions", "export", "trip"],
            ["memory", "search", "--mode", "words", "green tea"], ["doctor"], ["memory", "add", "a new memory"]]


def make(data: Path) -> None:
    db = Database(data / paths.DATABASE_FILE)
    MemoryStore(db, None).add_many([NewMemory(f"memory number {n}: I like green tea and trains {n * 7}",
                                              Scope(user=DEFAULT_PROFILE), "fact") for n in range(400)])
    sessions = Sessions(db)
    sessions.get_or_create("trip", DEFAULT_PROFILE, title="Trip")
    for n in range(100):
        sessions.add_message("trip", "user" if n % 2 == 0 else "assistant", f"message {n} about the night train")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=14)
    parser.add_argument("--bits", type=int, default=200)
    args = parser.parse_args()
    bad = {"traceback": 0, "warning": 0, "hang": 0, "written when damaged": 0}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        make(base / "data")
        for seed in range(args.seeds):
            work = Path(tmp) / f"seed{seed}"
            shutil.copytree(base, work)
            path = work / "data" / paths.DATABASE_FILE
            data = bytearray(path.read_bytes())
            rnd = random.Random(seed)
            for _ in range(args.bits):
                data[rnd.randrange(100, len(data))] ^= 1 << rnd.randrange(8)
            path.write_bytes(bytes(data))
            env = dict(os.environ, PYTHONPATH=str(ROOT / "desktop"), ENGRAM_DATA_DIR=str(work / "data"),
                       ENGRAM_CONFIG_DIR=str(work / "config"))
            for command in COMMANDS:
                try:
                    run = subprocess.run([sys.executable, "-m", "engram", *command], capture_output=True, text=True,
                                         env=env, timeout=60)
                except subprocess.TimeoutExpired:
                    bad["hang"] += 1
                    print(seed, " ".join(command), "HANG")
                    continue
                bad["traceback"] += "Traceback" in run.stderr
                bad["warning"] += "Warning" in run.stderr
                bad["written when damaged"] += command[1:2] == ["add"] and run.returncode == 0 \
                    and Path(f"{path}-damaged").exists()
                last = run.stderr.strip().splitlines()[-1][:120] if run.stderr.strip() else ""
                print(f"seed {seed:2} {' '.join(command[:2]):16} exit {run.returncode}"
                      f" lines {len(run.stdout.splitlines()):3}  {last}", flush=True)
            shutil.rmtree(work)
    print(f"\n{args.seeds} seeds x {len(COMMANDS)} commands, {args.bits} bits flipped each:",
          ", ".join(f"{what}: {n}" for what, n in bad.items()))


if __name__ == "__main__":
    main()
