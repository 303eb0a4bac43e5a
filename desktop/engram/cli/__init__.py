"""Headless entry points: ``engram doctor``, ``engram memory ...`` and (with no command) the window.

Each area registers its sub-commands from its own module; every command takes ``--data-dir`` and
``--database-url``.
"""

from __future__ import annotations

import argparse
import os
import sys

from engram.cli.terminal import Visible, check_utf8
from engram.core.errors import EngramError

AREAS = ("engram.cli.doctor", "engram.cli.memory", "engram.cli.chat", "engram.cli.sessions",
         "engram.cli.preferences", "engram.cli.profile", "engram.cli.outbox", "engram.cli.files",
         "engram.cli.forget", "engram.cli.models", "engram.cli.integrations", "engram.cli.porting",
         "engram.cli.moving")


def common_options() -> argparse.ArgumentParser:
    """Options every command accepts, before or after the command's name."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=argparse.SUPPRESS,
                        help="the folder for Engram's database and session files (default: platformdirs,"
                             " or ENGRAM_DATA_DIR)")
    common.add_argument("--database-url", default=argparse.SUPPRESS, metavar="URL",
                        help="keep the data on this PostgreSQL server, e.g. postgresql://me@host/engram (default:"
                             " ENGRAM_DATABASE_URL, then the database_url setting, else SQLite in the data folder);"
                             " give the password in ~/.pgpass or PGPASSWORD")
    return common


def open_engram(args, *, meaning: bool = True):
    """The facade for a command. A missing or broken embedding model does not stop it: memories are
    then found by words only, and stderr says so, why, and the fix (as the window's banner does)."""
    from engram.core.app import Engram
    from engram.core.models.embeddings import WORDS_ONLY

    engram = Engram(getattr(args, "data_dir", None), meaning=meaning, database_url=getattr(args, "database_url", None))
    if (problem := engram.embedding_problem) is not None:
        print(f"warning: {problem.message}. {WORDS_ONLY}" + (f"\n  fix: {problem.hint}" if problem.hint else ""),
              file=sys.stderr)
    return engram


def owned_session(engram, session_id: str, user: str):
    """The user's session of that id. Another user's is reported in the very words of a missing
    one, so that no one learns which session ids other people use."""
    from engram.core.errors import NotFound

    try:
        session = engram.sessions.get(session_id)
    except NotFound:
        session = None
    if session is None or session.user != user:
        raise NotFound(f"there is no session {session_id!r} for user {user!r}",
                       hint="`engram sessions list` shows yours; pass --user for another profile's")
    return session


def build_parser() -> argparse.ArgumentParser:
    import importlib

    common = common_options()
    parser = argparse.ArgumentParser(prog="engram", parents=[common],
                                     description="Engram, an offline assistant that remembers."
                                                 " With no command, the window opens.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for area in AREAS:
        importlib.import_module(area).register(commands, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    from engram.core.memory.sensitive import hide_in_logs, mask

    hide_in_logs()
    argv = sys.argv[1:] if argv is None else argv
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Visible(out), Visible(err)
    try:
        check_utf8(argv)
        args = build_parser().parse_args(argv)
        if not hasattr(args, "run"):
            from engram.ui.main import run_window

            sys.stdout, sys.stderr = out, err
            if getattr(args, "database_url", None):     # the window's process reads it as the others do
                os.environ["ENGRAM_DATABASE_URL"] = args.database_url
            return run_window(getattr(args, "data_dir", None))
        return args.run(args) or 0
    except BrokenPipeError:
        _discard_output(out)
        return 141      # as a command ended by SIGPIPE
    except EngramError as e:
        print(f"error: {mask(str(e))}", file=sys.stderr)   # an address or a number never lands in a log
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        sys.stdout, sys.stderr = out, err
        try:
            out.flush()     # a closed pipe shows here (--help's too), not in Python's flush at exit
        except BrokenPipeError:
            _discard_output(out)


def _discard_output(out) -> None:
    """The reader of our output left (``engram sessions list | head``): what is still buffered goes
    to the null device, so that Python's own flush at exit does not fail with a traceback."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    except (OSError, ValueError):      # a stream with no file behind it (a test's StringIO)
        pass
