"""What forgetting is checked against: every byte and every name under a data folder, and a
second process that holds the database open meanwhile (as the window does while the CLI runs)."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

READER = """
import sys, time
from pathlib import Path
from engram.core.storage.database import Database

db = Database(sys.argv[1])
holding = sys.argv[3] == "hold"
if holding:                  # one read transaction, open until the end (a snapshot no checkpoint passes)
    db.conn.execute("BEGIN")
    db.conn.execute("SELECT count(*) FROM memories").fetchall()
print("ready", flush=True)
while not Path(sys.argv[2]).exists():
    if not holding:
        db.query("SELECT id, text FROM memories")
        db.query("SELECT content FROM messages")
    time.sleep(0.002)
if holding:
    db.conn.execute("ROLLBACK")
db.close()
"""


def occurrences(folder: Path, text: str) -> list[str]:
    """Every file under ``folder`` whose bytes hold the text (any case), with the count, and every
    path whose name holds it."""
    needle = text.lower().encode("utf-8")
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            if text.lower() in name.lower():
                found.append(f"name: {Path(dirpath, name)}")
        for name in filenames:
            count = Path(dirpath, name).read_bytes().lower().count(needle)
            if count:
                found.append(f"{count}x in {Path(dirpath, name)}")
    return found


@contextmanager
def another_process_reading(database: Path, holding: bool = False):
    """A second Python process with its own Engram connection, reading in a loop until the block
    ends; ``holding``: keeping one read transaction open all the while instead."""
    stop = database.parent.parent / f"stop-reading-{os.getpid()}"
    reader = subprocess.Popen([sys.executable, "-c", READER, str(database), str(stop), "hold" if holding else "loop"], stdout=subprocess.PIPE,
                              text=True, env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert reader.stdout.readline().strip() == "ready"
        yield reader
        assert reader.poll() is None, "the reading process died"
    finally:
        stop.write_text("stop")
        try:
            reader.wait(timeout=20)
        finally:
            if reader.poll() is None:
                reader.kill()
        stop.unlink(missing_ok=True)
