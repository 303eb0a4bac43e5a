"""``engram migrate-data --to postgresql://…`` (or ``--to /path/engram.db``): the whole store copied
to another database, with progress, resumable, counts checked at the end (core/moving.py)."""

from __future__ import annotations

import argparse
import sys

from engram.core.porting.moving import current_location, described, migrate_data, target_location


def register(commands, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "migrate-data", parents=[common], help="copy all of Engram's data to a PostgreSQL server or a SQLite file",
        description="Copies everything (sessions, messages, memories and their history, files' index,"
                    " preferences, vectors) from the database Engram uses now into another one, which must"
                    " be empty. Close Engram first. Interrupted, the same command goes on where it stopped."
                    " Engram keeps using the current database until you point it at the new one"
                    " (the database_url setting, ENGRAM_DATABASE_URL, or --data-dir).")
    command.add_argument("--to", required=True, metavar="LOCATION",
                         help="postgresql://user@host/database, or a SQLite file (or a folder for its engram.db)")
    command.set_defaults(run=_migrate)


def _migrate(args) -> int:
    source = current_location(getattr(args, "data_dir", None), getattr(args, "database_url", None))
    target = target_location(args.to)
    print(f"copying {described(source)} to {described(target)}", file=sys.stderr)
    try:
        counts = migrate_data(source, target, _progress)
    except KeyboardInterrupt:
        print("interrupted: what was copied stays; the same command goes on from there", file=sys.stderr)
        return 130
    print(f"{'':<28}{'source':>10}{'copy':>10}")
    for count in counts:
        print(f"{count.what:<28}{count.source:>10}{count.target:>10}")
    print("all counts match: the copy is complete")
    return 0


def _progress(what: str, done: int, total: int) -> None:
    print(f"  {what}: {done}/{total}", file=sys.stderr, flush=True)
