"""``engram profile show|add|edit|remove|move|accept|reject|path``: what Engram keeps in mind about
the person in every chat (core/profile/). The file itself can be edited too: ``path`` prints it."""

from __future__ import annotations

import argparse
import json

from engram.cli import open_engram
from engram.core.app import Engram
from engram.core.profile.document import CATEGORIES, EARLIER, PROPOSED, ProfileLine


def register(commands, common: argparse.ArgumentParser) -> None:
    profile = commands.add_parser("profile", parents=[common],
                                  help="what Engram keeps in mind about you in every chat (health, family, diet, ...)")
    sub = profile.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, run, help_: str, *arguments: tuple) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, parents=[common], help=help_)
        parser.add_argument("--user", help="whose profile (default: this desktop's profile)")
        for args, kwargs in arguments:
            parser.add_argument(*args, **kwargs)
        parser.set_defaults(run=run)
        return parser

    line_id = (("id",), {"type": int, "help": "the line's number, as `show` lists it"})
    action("show", _show, "the lines in use, those waiting for your OK, and the earlier ones",
           (("--json",), {"action": "store_true"}))
    action("path", _path, "the profile file, to open in an editor")
    action("add", _add, "add a line (it is in use at once)", (("text",), {}),
           (("--category",), {"choices": CATEGORIES, "default": "other"}),
           (("--importance",), {"type": int, "choices": range(1, 6), "default": 3, "metavar": "1-5"}))
    action("edit", _edit, "new words for a line", line_id, (("text",), {}))
    action("remove", _remove, "remove a line", line_id)
    action("move", _move, "move a line up (negative) or down among its heading's lines", line_id,
           (("steps",), {"type": int}))
    action("accept", _accept, "take a line waiting for your OK into use", line_id)
    action("reject", _remove, "drop a line waiting for your OK", line_id)


def _open(args) -> tuple[Engram, str]:
    """Without the embedding model, which the profile never needs."""
    engram = open_engram(args, meaning=False)
    return engram, args.user or engram.user


def _print_line(line: ProfileLine) -> None:
    origin = f" ({line.by}{': ' + line.source if line.source else ''})" if line.by != "hand" else ""
    until = f" until {line.until}" if line.until else ""
    print(f"  [{line.id}] {line.text}{until}{origin}")


def _show(args) -> int:
    engram, user = _open(args)
    with engram:
        doc = engram.profiles.read(user).numbered()
        if args.json:
            print(json.dumps({"file": str(engram.profiles.path(user)),
                              "lines": [{"text": line.text, "category": line.category} | line.meta()
                                        for line in doc.lines]}, ensure_ascii=False))
            return 0
        if not doc.lines:
            print(f"the profile is empty; it fills as you tell Engram about yourself ({engram.profiles.path(user)})")
        for category in dict.fromkeys(line.category for line in doc.lines if line.category not in (PROPOSED, EARLIER)):
            print(f"{category}:")
            for line in doc.lines:
                if line.category == category:
                    _print_line(line)
        for category, title in ((PROPOSED, "waiting for your OK (`engram profile accept ID`)"), (EARLIER, "earlier")):
            lines = [line for line in doc.lines if line.category == category]
            if lines:
                print(f"{title}:")
                for line in lines:
                    _print_line(line)
        return 0


def _path(args) -> int:
    engram, user = _open(args)
    with engram:
        print(engram.profiles.path(user))
        return 0


def _changing(change):
    """A command that changes the profile: opens it, runs ``change(profiles, user, args)`` and
    prints the line as it is now (or what the change returned instead)."""
    def run(args) -> int:
        engram, user = _open(args)
        with engram:
            done = change(engram.profiles, user, args)
            print(f"{'removed ' if done.action == 'removed' else ''}[{done.line.id}] {done.line.text}"
                  if done is not None else "the profile already says this")
            return 0
    return run


_add = _changing(lambda profiles, user, args: profiles.note(user, ProfileLine(
    args.text, args.category, importance=args.importance, by="hand", source="engram profile add")))
_edit = _changing(lambda profiles, user, args: profiles.edit(user, args.id, args.text))
_remove = _changing(lambda profiles, user, args: profiles.remove(user, args.id))
_move = _changing(lambda profiles, user, args: profiles.move(user, args.id, args.steps))
_accept = _changing(lambda profiles, user, args: profiles.accept(user, args.id))
