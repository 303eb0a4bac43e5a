"""``engram sessions list|show|rename|delete|export|settings|set``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engram.cli import open_engram, owned_session
from engram.cli.terminal import read_stdin, unreadable
from engram.core.app import Engram
from engram.core.conversation.chat_settings import MAX_INSTRUCTIONS_CHARS, ChatSettings, model_here
from engram.core.errors import DatabaseError, InvalidInput, NotFound
from engram.core.storage.atomic import write_text_atomic


def register(commands, common: argparse.ArgumentParser) -> None:
    sessions = commands.add_parser("sessions", parents=[common],
                                   help="list, rename, delete and export chat sessions; each chat's own settings")
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

    settings = sub.add_parser("settings", parents=[common],
                              help="a chat's own settings: memory on or off, its instructions, its model")
    settings.add_argument("session")
    settings.add_argument("--user")
    settings.add_argument("--json", action="store_true")
    settings.set_defaults(run=_settings)

    change = sub.add_parser("set", parents=[common], help="change a chat's own settings (what is not given stays)")
    change.add_argument("session")
    change.add_argument("--user")
    change.add_argument("--memory", choices=("on", "off"),
                        help="off: the chat's messages are saved, but nothing from it is kept in memory or"
                             " recalled into it")
    told = change.add_mutually_exclusive_group()
    told.add_argument("--instructions", metavar="TEXT",
                      help=f"a system prompt for this chat only (at most {MAX_INSTRUCTIONS_CHARS:,} characters)")
    told.add_argument("--instructions-file", metavar="FILE", help="the instructions from a UTF-8 file (-: stdin)")
    told.add_argument("--no-instructions", action="store_true", help="remove the chat's instructions")
    model = change.add_mutually_exclusive_group()
    model.add_argument("--model", metavar="FILE_OR_NAME",
                       help="this chat's own model: a .gguf file, a downloaded model's name (engram models list)"
                            " or demo")
    model.add_argument("--default-model", action="store_true", help="this chat answers with the model of Settings")
    change.add_argument("--json", action="store_true")
    change.set_defaults(run=_set)


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
        own = _own_settings(engram, args.session)
        text = (json.dumps(engram.sessions.export_json(args.session, messages, own), ensure_ascii=False, indent=2)
                + "\n" if args.format == "json" else engram.sessions.export_markdown(args.session, messages, own))
        if args.output:
            write_text_atomic(Path(args.output), text)
            print(f"wrote {args.output}")
        else:
            print(text, end="")
        return unreadable(lost, "messages")


def _settings(args) -> int:
    with _open(args) as engram:
        _owned(engram, args)
        _print_settings(args.session, engram.turn_engine.chat_settings.get(args.session), args.json)
        return 0


def _set(args) -> int:
    """Through the very operation the window's This chat menu and model picker use."""
    if args.model is None and not args.default_model and args.memory is None and args.instructions is None \
            and args.instructions_file is None and not args.no_instructions:
        raise InvalidInput("nothing to change", hint="give --memory, --instructions, --instructions-file,"
                                                     " --no-instructions, --model or --default-model")
    changes: dict = {}
    if args.memory is not None:
        changes["memory"] = args.memory == "on"
    if args.instructions is not None:
        changes["instructions"] = args.instructions
    elif args.instructions_file is not None:
        changes["instructions"] = _read_instructions(args.instructions_file)
    elif args.no_instructions:
        changes["instructions"] = ""
    with _open(args) as engram:
        _owned(engram, args)
        if args.model is not None:
            from engram.core.models.library import ModelLibrary

            changes["model"] = str(ModelLibrary(engram.settings).chat_model_file(args.model))
        elif args.default_model:
            changes["model"] = ""
        _print_settings(args.session, engram.turn_engine.chat_settings.set(args.session, **changes), args.json)
        return 0


def _read_instructions(name: str) -> str:
    """A file's text (``-``: standard input); not UTF-8, missing or far too long is refused before
    anything is stored."""
    if name == "-":
        return read_stdin()
    try:
        path = Path(name).expanduser()
        if path.stat().st_size > 16 * MAX_INSTRUCTIONS_CHARS:      # 4 bytes a character at most, and room to strip
            raise InvalidInput(f"{path} is {path.stat().st_size:,} bytes; instructions are at most"
                               f" {MAX_INSTRUCTIONS_CHARS:,} characters")
        data = path.read_bytes()
    except FileNotFoundError:
        raise NotFound(f"there is no file {path}") from None
    except (OSError, ValueError, RuntimeError) as e:       # ValueError: a NUL; RuntimeError: ~someone unknown
        raise InvalidInput(f"cannot read {name}: {getattr(e, 'strerror', None) or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path} is not valid UTF-8 text (at byte {e.start})",
                           hint="convert it to UTF-8 first, e.g. with iconv") from None


def _print_settings(session: str, own: ChatSettings, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"session": session, **own.to_json()}, ensure_ascii=False))
        return
    print(f"memory: {'on' if own.memory else 'off (its messages are saved; nothing is kept in memory or recalled)'}")
    if own.instructions:
        print("instructions:\n" + "\n".join(f"  {line}" for line in own.instructions.splitlines()))
    else:
        print("instructions: (none)")
    if not own.model:
        print("model: the model of Settings")
    else:
        print(f"model: {own.model}" + ("" if model_here(own.model) else
                                       "  (not on this computer: its replies fail until the file is back,"
                                       " or --default-model)"))


def _own_settings(engram: Engram, session: str) -> ChatSettings | None:
    """The chat's own settings for its export; None where a damaged file does not give them (the
    messages are what the export must save)."""
    try:
        return engram.turn_engine.chat_settings.get(session)
    except (DatabaseError, ValueError):
        return None


def _readable(engram: Engram, session: str) -> tuple[list, list[str]]:
    """The session's messages and the ids that could not be read: of a damaged file (known, or
    found by reading) what still reads, read without its indexes (they may give too few rows)."""
    if not getattr(engram.db, "damaged", ""):
        try:
            return engram.sessions.messages(session), []
        except (DatabaseError, ValueError):     # ValueError: a text no longer UTF-8
            pass
    return engram.sessions.salvage(session)
