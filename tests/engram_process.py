"""One Engram process of several on one database (two devices, or the concurrency bench): run as
``python tests/engram_process.py ROLE DATA_DIR ...`` with ENGRAM_DATABASE_URL naming the server
(or none: the SQLite file in DATA_DIR). It prints what it did, one line each, for the parent.

- ``recall TEXT``: says ``ready``, then after each commit another process makes (``db.on_change``,
  no polling) searches by meaning for TEXT; on finding it says ``found <unix time>``.
- ``add TEXT``: remembers TEXT and says ``added <unix time>`` once it is committed.
- ``write N``: remembers N texts of its own one by one, searching by words for every 10th just
  after writing it; says ``wrote <added> <failures> <first write's unix time> <last's end>``. A failure is an error raised or
  a search that does not find the memory just written.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from engram.core.app import Engram  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.options import SearchOptions  # noqa: E402
from fakes import FakeEmbedder  # noqa: E402

USER = "ann"
WAIT_S = 30


def say(*words) -> None:
    print(*words, flush=True)


def opened(data_dir: str) -> Engram:
    engram = Engram(data_dir, embedder=FakeEmbedder())
    wanted = "postgresql" if os.environ.get("ENGRAM_DATABASE_URL") else "sqlite"
    if engram.db.dialect != wanted:
        raise SystemExit(f"Engram opened {engram.db.dialect}, not {wanted}: ENGRAM_DATABASE_URL is not read here")
    return engram


def recall(engram: Engram, text: str) -> None:
    changed = threading.Event()
    engram.db.on_change(changed.set)
    meaning = SearchOptions(mode="meaning", k=3)
    assert not engram.store.search(text, Scope(user=USER), meaning).hits   # caches filled before the change
    say("ready")
    while changed.wait(WAIT_S):
        changed.clear()
        if any(hit.memory.text == text for hit in engram.store.search(text, Scope(user=USER), meaning).hits):
            say("found", time.time())
            return
    raise SystemExit(f"{text!r} was not found within {WAIT_S} s")


def write(engram: Engram, count: int, name: str) -> None:
    words = SearchOptions(mode="words", k=5)
    added = failures = 0
    started = time.time()
    for n in range(count):
        text = f"note {n} of {name}: w{name}x{n} lives at number {n}"
        try:
            memory = engram.store.add(text, Scope(user=USER), "fact")
            added += 1
            if n % 10 == 0 and memory.id not in {h.memory.id for h in
                                                 engram.store.search(f"w{name}x{n}", Scope(user=USER), words).hits}:
                failures += 1
                say("missed", text)
        except Exception:
            failures += 1
            traceback.print_exc()
    say("wrote", added, failures, started, time.time())


def main() -> None:
    role, data_dir, argument = sys.argv[1], sys.argv[2], sys.argv[3]
    with opened(data_dir) as engram:
        if role == "recall":
            recall(engram, argument)
        elif role == "add":
            engram.store.add(argument, Scope(user=USER), "fact")
            say("added", time.time())
        elif role == "write":
            write(engram, int(argument), sys.argv[4])
        else:
            raise SystemExit(f"unknown role {role!r}")


if __name__ == "__main__":
    main()
