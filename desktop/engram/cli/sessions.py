"""``engram sessions list|show|rename|delete|export``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engram.cli import open_engram, owned_session
from engram.cli.terminal import unreadable
from engram.core.app import Engram
from engram.core.errors import DatabaseError
from engram.core.storage.atomic import write_text_atomic


def register(commands, common: argparse.ArgumentParser) -> None:
    sessions = commands.add_parser("sessions", parents=[common], help="list, rename, delete and export chat sessions")
    sub = sessions.add_subparsers(dest="action", metavar="ACTION", required=True)

    listing = sub.add_parser("list", parents=[common], help="a user's sessions, most recently used first")
    listing.add_argument("--user", help="whose sessions (default: this desktop's profile)")
    listing.add_argument("--query", default="", help="only sessions whose title or messages contain this")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=_list)

    show = sub.add_parser("show", parents=[common], help="the messages of a session")
    show.add_argument("session")
    show.add_argument("--user")
    show.set_defaults(run=_show)

    rename = sub.add_parser("rename", parents=[common], help="give a session a new title (its folder keeps its name)")
    rename.add_argument("session")
    rename.add_argument("title")
    rename.add_argument("--user")
    rename.set_defaults(run=_rename)

    delete = sub.add_parser("delete", parents=[common],
                            help="delete a session, its messages and every memory taken from it;"
                                 " its folder of files moves to <data dir>/trash/")
    delete.add_argument("session")
    delete.add_argument("--user")
    delete.set_defaults(run=_delete)

    export = sub.add_parser("export", parents=[common], help="write a session as Markdown or JSON")
    export.add_argument("session")
    export.add_argument("--user")
    export.add_argument("--format", choices=("md", "json"), default="md")
    export.add_argument("--output", help="the file to write (default: print)")
    export.set_defaults(run=_export)


def _open(args) -> Engram:
    """Without the embedding model: nothing here embeds or searches (and a broken one stops nothing)."""
    return open_engram(args, meaning=False)


def _owned(engram: Engram, args):
    return owned_session(engram, args.session, args.user or engram.user)


def _list(args) -> int:
    with _open(args) as engram:
        for s in engram.sessions.list(args.user or engram.user, args.query):
            if args.json:
                print(json.dumps(s.to_json(), ensure_ascii=False))
            else:
                print(f"{s.id}  {s.updated_at[:16]}  {s.title or '(untitled)'}  [{s.folder}]")
        return 0


def _show(args) -> int:
    with _open(args) as engram:
        _owned(engram, args)
        for m in engram.sessions.messages(args.session):
            mark = f" ({m.status})" if m.status != "complete" else ""
            print(f"#{m.id} {m.role}{mark}: {m.content}")
        return 0


def _rename(args) -> int:
    with _open(args) as engram:
        _owned(engram, args)
        session = engram.sessions.rename(args.session, args.title)
        print(f"{session.id}: {session.title}")
        return 0


def _delete(args) -> int:
    with _open(args) as engram:
        _owned(engram, args)
        deleted = engram.delete_session(args.session)
        print(f"deleted session {args.session} ({deleted.messages} messages and the memories taken from them)")
        if deleted.problem is not None:
            print(f"error: {deleted.problem}", file=sys.stderr)
            return 1
        if deleted.trashed is not None:
            print(f"its files were moved to {deleted.trashed}")
        return 0


def _export(args) -> int:
    with _open(args) as engram:
        _owned(engram, args)
        messages, lost = _readable(engram, args.session)
        text = (json.dumps(engram.sessions.export_json(args.session, messages), ensure_ascii=False, indent=2) + "\n"
                if args.format == "json" else engram.sessions.export_markdown(args.session, messages))
        if args.output:
            write_text_atomic(Path(args.output), text)
            print(f"wrote {args.output}")
        else:
            print(text, end="")
        return unreadable(lost, "messages")


def _readable(engram: Engram, session: str) -> tuple[list, list[str]]:
    """The session's messages and the ids that could not be read: of a damaged file (known, or
    found by reading) what still reads, read without its indexes (they may give too few rows)."""
    if not getattr(engram.db, "damaged", ""):
        try:
            return engram.sessions.messages(session), []
        except (DatabaseError, ValueError):     # ValueError: a text no longer UTF-8
            pass
    return engram.sessions.salvage(session)
