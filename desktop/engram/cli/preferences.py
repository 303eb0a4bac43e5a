"""``engram prefs show|set|unset``: how a person likes replies (put into the system prompt)."""

from __future__ import annotations

import argparse
import json

from engram.cli import open_engram
from engram.core.app import Engram
from engram.core.conversation.preferences import KEYS


def register(commands, common: argparse.ArgumentParser) -> None:
    prefs = commands.add_parser("prefs", parents=[common], help="reply preferences: language, tone, detail, emoji")
    sub = prefs.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = sub.add_parser("show", parents=[common])
    show.add_argument("--user")
    show.add_argument("--json", action="store_true")
    show.set_defaults(run=_show)
    set_ = sub.add_parser("set", parents=[common], help="; ".join(f"{k}: {v}" for k, v in KEYS.items()))
    set_.add_argument("--user")
    set_.add_argument("key", choices=tuple(KEYS))
    set_.add_argument("value")
    set_.set_defaults(run=_set)
    unset = sub.add_parser("unset", parents=[common])
    unset.add_argument("--user")
    unset.add_argument("key", choices=tuple(KEYS))
    unset.set_defaults(run=_unset)


def _print(found: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(found, ensure_ascii=False))
    else:
        for key, value in found.items():
            print(f"{key}: {json.dumps(value, ensure_ascii=False) if isinstance(value, bool) else value}")


def _open(args) -> Engram:
    """Without the embedding model, which preferences never need."""
    return open_engram(args, meaning=False)


def _show(args) -> int:
    with _open(args) as engram:
        _print(engram.preferences.get(args.user or engram.user), args.json)
        return 0


def _set(args) -> int:
    with _open(args) as engram:
        _print(engram.preferences.set(args.user or engram.user, args.key, args.value), False)
        return 0


def _unset(args) -> int:
    with _open(args) as engram:
        _print(engram.preferences.unset(args.user or engram.user, args.key), False)
        return 0
