"""``engram forget --text "…"``: every place a text is stored, then (when confirmed) gone from all."""

from __future__ import annotations

import argparse
import sys

from engram.cli import open_engram
from engram.core.forget import LOG_LEFT, PLACES, find, forget_everywhere


def register(commands, common: argparse.ArgumentParser) -> None:
    forget = commands.add_parser(
        "forget", parents=[common], help="forget a text everywhere it is stored (chats, memories, files, trash)",
        description="Lists every place the text is stored (any case), then, when you confirm, removes or"
                    " redacts it in each. Files you may have written change only with --files.")
    forget.add_argument("--text", required=True, help="the words to forget (at least 3 characters)")
    forget.add_argument("--user", help="whose data (default: this desktop's profile)")
    forget.add_argument("--yes", action="store_true", help="do not ask; forget at once")
    forget.add_argument("--files", action="store_true",
                        help="also change the files that hold it (session files, the trash), which a person may have written")
    forget.set_defaults(run=_forget)


def _forget(args) -> int:
    with open_engram(args, meaning=False) as engram:
        user = args.user or engram.user
        places = find(engram, args.text, user)
        if not places:
            print("the text is stored nowhere")
            return 0
        for place in places:
            note = PLACES[place.what] if (args.files or not place.persons_file) else "left as it is (add --files to change it)"
            print(f"{place.what:<15} {place.where}: {note}")
        if not args.yes and not _confirmed(len(places)):
            print("nothing was changed")
            return 1
        done = forget_everywhere(engram, args.text, user, files=args.files, places=places)
        print(f"forgot it in {len(done.changed)} place(s)" + (f"; {len(done.left)} file(s) left as they are"
                                                              if done.left else ""))
        if not done.log_released:
            print(f"note: {LOG_LEFT}", file=sys.stderr)
        return 0


def _confirmed(count: int) -> bool:
    if not sys.stdin.isatty():
        print("not confirmed (no terminal to ask): run again with --yes", file=sys.stderr)
        return False
    return input(f"forget it in these {count} place(s)? [y/N] ").strip().lower() in ("y", "yes")
