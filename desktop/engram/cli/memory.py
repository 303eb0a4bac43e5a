"""``engram memory add|search|list|forget|history``."""

from __future__ import annotations

import argparse
import json
import sys

from engram.cli import open_engram
from engram.cli.terminal import count, memory_id, unreadable
from engram.core.app import Engram
from engram.core.errors import DatabaseError, InvalidInput
from engram.core.forget import LOG_LEFT, forget_memory
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import MODES, SearchOptions


def register(commands, common: argparse.ArgumentParser) -> None:
    memory = commands.add_parser("memory", parents=[common], help="see, add, search and forget memories")
    sub = memory.add_subparsers(dest="action", metavar="ACTION", required=True)

    def user_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--user", help="whose memories (default: this desktop's profile)")

    add = sub.add_parser("add", parents=[common], help="remember a text")
    user_options(add)
    add.add_argument("--session", default="", help="the session it belongs to (default: none)")
    add.add_argument("--kind", default="fact", help="one of: " + ", ".join(k.value for k in Kind))
    add.add_argument("--importance", type=float, default=0.5)
    add.add_argument("--json", action="store_true")
    add.add_argument("text")
    add.set_defaults(run=_add)

    search = sub.add_parser("search", parents=[common], help="find memories by words and meaning")
    user_options(search)
    search.add_argument("--session", default="", help="only this session (default: all of the user's)")
    search.add_argument("-k", type=count, default=5, help="how many results (default 5)")
    search.add_argument("--mode", choices=MODES, default="hybrid")
    search.add_argument("--kind", action="append", default=[], help="only this kind (repeatable)")
    search.add_argument("--history", action="store_true",
                        help="also memories that are no longer true (superseded or out of date), marked as such")
    search.add_argument("--json", action="store_true")
    search.add_argument("query")
    search.set_defaults(run=_search)

    listing = sub.add_parser("list", parents=[common], help="list memories, newest first")
    user_options(listing)
    listing.add_argument("--session", default="")
    listing.add_argument("--kind", action="append", default=[])
    listing.add_argument("--limit", type=count, default=100)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=_list)

    forget = sub.add_parser("forget", parents=[common], help="delete a memory for good")
    user_options(forget)
    forget.add_argument("id", type=memory_id)
    forget.set_defaults(run=_forget)

    history = sub.add_parser("history", parents=[common], help="every change to a memory")
    user_options(history)
    history.add_argument("id", type=memory_id)
    history.add_argument("--json", action="store_true")
    history.set_defaults(run=_history)


def _scope(args, engram: Engram) -> Scope:
    """The scope asked for. Listing, reading and forgetting open Engram without ``meaning``: they
    need no embedding model, so they say nothing about it."""
    return Scope(user=args.user or engram.user, session=getattr(args, "session", "") or "")


def _show(memory, as_json: bool, score: float | None = None, outdated: str | None = None,
          reranked: bool | None = None) -> None:
    """``outdated`` (searches for history only): why the memory is no longer current, "" if it is;
    ``reranked`` (searches): whether the score is the reranker's."""
    if as_json:
        record = (memory.to_json() | ({"score": round(score, 4)} if score is not None else {})
                  | ({"reranked": reranked} if reranked is not None else {})
                  | ({"outdated": outdated} if outdated is not None else {}))
        print(json.dumps(record, ensure_ascii=False))
    else:
        scored = f"  ({score:.2f})" if score is not None else ""
        where = f" session {memory.scope.session}" if memory.scope.session else ""
        why = f"  [{outdated}]" if outdated else ""
        print(f"#{memory.id} [{memory.kind.value}] {memory.text}{scored}  — {memory.created_at[:16]}{where}{why}")


def _add(args) -> int:
    with open_engram(args) as engram:
        scope = _scope(args, engram)
        memory = engram.store.add(args.text, scope, args.kind, importance=args.importance, actor="user")
        _show(memory, args.json)
        return 0


def _search(args) -> int:
    with open_engram(args) as engram:
        scope = _scope(args, engram)
        options = SearchOptions(mode=args.mode, k=args.k, kinds=tuple(args.kind), include_superseded=args.history)
        result = engram.store.search(args.query, scope, options)
        for hit in result.hits:
            _show(hit.memory, args.json, hit.score, hit.memory.outdated(options.moment) if args.history else None,
                  reranked=hit.rerank_score is not None)
        if not args.json:
            for note in result.notes:
                print(f"note: {note}")
            if result.reranker:
                print(f"note: the best candidates were reordered by the reranker {result.reranker}"
                      f" ({result.rerank_ms:.0f} ms)")
        return 0


def _list(args) -> int:
    with open_engram(args, meaning=False) as engram:
        scope = _scope(args, engram)
        memories, lost = _listed(engram, scope, args)
        for memory in memories[:args.limit]:
            _show(memory, args.json)
        return unreadable(lost, "memories")


def _listed(engram: Engram, scope: Scope, args) -> tuple[list, list[str]]:
    """The memories to list and the ids that could not be read: of a damaged file (known, or
    found by the list) what still reads, read without its indexes (they may give too few rows)."""
    if not getattr(engram.db, "damaged", ""):
        try:
            return engram.store.list(scope, kinds=args.kind, limit=args.limit), []
        except (DatabaseError, InvalidInput, ValueError):     # ValueError: a text no longer UTF-8
            pass
    return engram.store.salvage(scope, args.kind)


def _forget(args) -> int:
    with open_engram(args, meaning=False) as engram:
        scope = _scope(args, engram)
        engram.store.get(args.id, scope)
        done = forget_memory(engram, args.id, actor="user")
        made = done.ids[1:]
        print(f"forgot #{args.id}" + (f" and the notes and summaries made from it: #{', #'.join(map(str, made))}"
                                      if made else ""))
        if not done.log_released:
            print(f"note: {LOG_LEFT}", file=sys.stderr)
        return 0


def _history(args) -> int:
    with open_engram(args, meaning=False) as engram:
        scope = _scope(args, engram)
        for change in engram.store.history(args.id, scope.user):
            if args.json:
                print(json.dumps(change.__dict__, ensure_ascii=False))
            else:
                text = change.new_text if change.action != "delete" else "(forgotten)"
                before = f" (was: {change.old_text})" if change.action == "update" else ""
                print(f"{change.at}  {change.action:<6} by {change.actor:<6} {text}{before}")
        return 0
