"""Imports, by hand: python tests/bench/import_bench.py [--conversations 300] [--turns 8]

Writes a ChatGPT export (tests/chat_exports.py) of N conversations of T messages each, imports it
into a fresh data folder with the bundled embedding model, and prints the time to store the chats
(reading the .zip), the time until the outbox has archived and embedded every message (search
works), messages per second, the peak memory of the process, and the time of a second import
(which adds nothing).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chat_exports import chatgpt_conversation, write_chatgpt_zip  # noqa: E402
from engram.core.app import Engram  # noqa: E402
from engram.core.porting import importer  # noqa: E402

TOPICS = ["sourdough", "marathon", "taxes", "Japanese", "tomatoes", "routers", "gifts", "Rust", "moving", "piano"]


def write_export(path: Path, conversations: int, turns: int) -> Path:
    """A ChatGPT export of ``conversations`` chats of ``turns`` messages each, of a realistic length."""
    return write_chatgpt_zip(path, [chatgpt_conversation(f"c-{n}", f"{TOPICS[n % 10]} {n}", [
        ("user" if t % 2 == 0 else "assistant",
         f"Message {t} of chat {n} about {TOPICS[(n + t) % 10]}: some plans, a question and a few details"
         f" that make it a realistic length for a chat message, number {n * 100 + t}.")
        for t in range(turns)], start=1_700_000_000 + 3600 * n) for n in range(conversations)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=300)
    parser.add_argument("--turns", type=int, default=8)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="engram-import-bench-"))
    export = write_export(home / "export.zip", args.conversations, args.turns)
    engram = Engram(home / "data", home / "config")
    try:
        started = time.perf_counter()
        report = importer.import_file(engram, "chatgpt", export, "bench")
        stored = time.perf_counter() - started
        engram.outbox.start()
        importer.wait_archived(engram, report, poll=0.05)
        archived = time.perf_counter() - started
        engram.outbox.stop()
        started = time.perf_counter()
        again = importer.import_file(engram, "chatgpt", export, "bench")
        second = time.perf_counter() - started
    finally:
        engram.close()
    messages = report.messages
    print(f"export: {export.stat().st_size / 1e6:.1f} MB zip, {len(report.imported)} conversations,"
          f" {messages} messages")
    print(f"stored (sessions + messages + queued): {stored:.2f} s ({messages / stored:.0f} messages/s)")
    print(f"archived and embedded (searchable):    {archived:.2f} s ({messages / archived:.0f} messages/s)")
    print(f"second import (adds {len(again.imported)}):          {second:.2f} s")
    print(f"peak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
