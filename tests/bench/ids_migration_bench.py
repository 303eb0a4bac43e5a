"""How long migration 16 (ids never given out again: memories, messages and turns rebuilt with
AUTOINCREMENT) takes on a large database, run by hand: a database of the release before is
filled by SQL (N memories with a history line each, N messages, N/2 turns, 1% of the memories
forgotten), then opened by this Engram; prints the time of the upgrade and the file's size.

    .venv/bin/python tests/bench/ids_migration_bench.py --memories 1000000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))

from engram.core.storage import database as db_module  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from engram.core.storage.migrations import MIGRATIONS  # noqa: E402

AT = "2026-01-01T00:00:00.000Z"


def filled(path: Path, n: int) -> None:
    """A database of the release before (schema 15) holding n memories, messages and history lines."""
    db_module.MIGRATIONS = [m for m in MIGRATIONS if m.version < 16]
    db = Database(path)
    with db.transaction() as conn:
        conn.execute("INSERT INTO sessions(id, user, folder, created_at, updated_at) VALUES ('s', 'ann', 's', ?, ?)",
                     (AT, AT))
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO messages(id, session_id, role, content, created_at)"
            " SELECT i, 's', 'user', 'message number ' || i || ' about tea, cats and trips', ? FROM n", (n, AT))
        conn.execute(
            "INSERT INTO turns(session_id, user_message_id, messages, created_at)"
            " SELECT 's', id, '[]', ? FROM messages WHERE id % 2 = 0", (AT,))
        conn.execute(
            "INSERT INTO memories(id, user, session, kind, text, created_at, updated_at, source_ids, content_hash)"
            " SELECT id, 'ann', 's', 'message', content, ?, ?, json_array(id), 'h' || id FROM messages", (AT, AT))
        conn.execute("INSERT INTO memory_history(memory_id, user, action, actor, new_text, at)"
                     " SELECT id, 'ann', 'add', 'system', text, ? FROM memories", (AT,))
        conn.execute("DELETE FROM memories WHERE id % 100 = 0")
        conn.execute("INSERT INTO memory_history(memory_id, user, action, actor, at)"
                     " SELECT id, 'ann', 'delete', 'user', ? FROM messages WHERE id % 100 = 0", (AT,))
    db.close()
    db_module.MIGRATIONS = MIGRATIONS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-ids-") as folder:
        path = Path(folder) / "engram.db"
        started = time.perf_counter()
        filled(path, args.memories)
        print(f"filled {args.memories:,} memories in {time.perf_counter() - started:.1f} s,"
              f" {path.stat().st_size / 2**20:.0f} MiB")
        started = time.perf_counter()
        db = Database(path)
        took = time.perf_counter() - started
        counters = dict(db.query("SELECT name, seq FROM sqlite_sequence"))
        print(f"migration 16: {took:.1f} s; counters {counters}; schema {db.schema_version()}")
        db.close()


if __name__ == "__main__":
    main()
