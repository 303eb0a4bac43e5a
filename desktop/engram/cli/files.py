"""``engram files path|list|read|write|delete|grep|search|add`` and ``engram reindex``.

The commands run the same tools the model calls, so a script sees exactly what the model sees.
``add`` attaches documents through the same operation as the window's drop (core/files/documents.py)
and converts them at once, with a progress bar; Ctrl-C cancels the conversion in hand.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from engram.cli import open_engram, owned_session
from engram.cli.terminal import count, read_stdin
from engram.core.errors import EngramError
from engram.core.files import FileIndex
from engram.core.files.catalog import PROBLEM
from engram.core.files.names import shown
from engram.core.files.tools import file_tools
from engram.core.files.web import is_url


def register(commands, common: argparse.ArgumentParser) -> None:
    files = commands.add_parser("files", parents=[common], help="a session's folder of memory files")
    sub = files.add_subparsers(dest="action", metavar="ACTION", required=True)

    def command(name: str, help_text: str, run, *arguments: tuple[tuple, dict]) -> None:
        p = sub.add_parser(name, parents=[common], help=help_text)
        p.add_argument("--session", required=True, help="the session's id (as in `engram ask --session`)")
        p.add_argument("--user", help="whose session (default: this desktop's profile)")
        for args, kwargs in arguments:
            p.add_argument(*args, **kwargs)
        p.set_defaults(run=run)

    command("path", "print the session's folder", _path)
    command("list", "list the files with their descriptions", _tool("files_list"))
    command("read", "print a file", _tool("files_read", "name"), (("name",), {}))
    command("write", "write a file (TEXT '-' reads standard input)", _write,
            (("--description",), {"help": "one line saying what the file is"}), (("name",), {}), (("text",), {}))
    command("delete", "delete a file", _tool("files_delete", "name"), (("name",), {}))
    command("grep", "lines matching a regular expression (case-insensitive)", _tool("files_grep", "pattern", "glob"),
            (("--glob",), {"help": "only files matching this pattern, e.g. '*.md'"}), (("pattern",), {}))
    command("search", "passages by meaning", _tool("files_search", "query", "k"),
            (("-k",), {"type": count, "default": 5, "help": "how many (default 5)"}), (("query",), {}))

    command("add", "attach documents (PDF, DOCX, PPTX, XLSX, CSV, HTML, EPUB; a file or a web address): kept in"
            " sources/, converted to markdown, searchable", _add, (("paths",), {"nargs": "+", "metavar": "PATH|URL"}))

    reindex = commands.add_parser("reindex", parents=[common], help="rebuild the session files' index from disk")
    reindex.add_argument("--session", help="only this session (default: every session folder)")
    reindex.add_argument("--user", help="whose session (default: this desktop's profile)")
    reindex.set_defaults(run=_reindex)


@contextmanager
def _open(args, create: bool = False) -> Iterator[tuple[FileIndex, str]]:
    """The files' index and the session's folder ("" with no --session), closed after the command."""
    with open_engram(args) as engram:
        folder = ""
        if getattr(args, "session", None):
            user = args.user or engram.user
            session = (engram.sessions.get_or_create(args.session, user) if create
                       else owned_session(engram, args.session, user))
            folder = session.folder
        yield engram.files, folder


def _path(args) -> int:
    with _open(args, create=True) as (index, folder):
        path = index.folder(folder).path
    path.mkdir(parents=True, exist_ok=True)  # so that a script can cd into it at once
    print(path)
    return 0


def _tool(name: str, *parameters: str):
    """A command that runs the model's tool of that name and prints its result."""
    def run(args) -> int:
        with _open(args) as (index, folder):
            tool = next(t for t in file_tools(index, folder) if t.name == name)
            given = {p: getattr(args, p) for p in parameters if getattr(args, p) is not None}
            result = tool.call(given)
        failed = result.startswith("error:")
        print(result, file=sys.stderr if failed else sys.stdout)
        return 1 if failed else 0
    return run


def _write(args) -> int:
    text = read_stdin() if args.text == "-" else args.text
    with _open(args, create=True) as (index, folder):
        status = index.write(folder, args.name, text, args.description)
    print(f"saved {status.name} ({status.size:,} bytes, {status.chunks} chunks)")
    return 0


def _add(args) -> int:
    """Attach each document, convert it now, and say how each went; 1 when any could not be."""
    failed = 0
    with open_engram(args) as engram:
        folder = engram.sessions.get_or_create(args.session, args.user or engram.user).folder
        documents = engram.documents
        bar = _Bar()
        unsubscribe = documents.subscribe(bar.show)
        try:
            for path in args.paths:
                try:
                    name = documents.add_url(folder, path) if is_url(path) else documents.add(folder, path)
                except EngramError as e:
                    print(f"error: {path}: {e}", file=sys.stderr)
                    failed += 1
                    continue
                try:
                    engram.outbox.drain(timeout=3600)
                except KeyboardInterrupt:
                    documents.cancel(folder, name)
                    engram.outbox.drain(timeout=60)
                    bar.end()
                    print(f"cancelled: {name} is kept, not converted", file=sys.stderr)
                    return 130
                status = engram.files.status(folder, name)
                if status.status == PROBLEM:
                    print(f"problem: {name}: {status.detail}", file=sys.stderr)
                    failed += 1
                else:
                    note = f" ({status.detail})" if status.detail else ""
                    print(f"added {name}: {status.description}{note}")
        finally:
            unsubscribe()
            bar.end()
    return 1 if failed else 0


class _Bar:
    """One line on stderr, redrawn while a document converts: ``report.pdf [######    ] 12/30 pages``."""

    def __init__(self):
        self.drawn = False

    def show(self, folder: str, name: str, done: int, total: int) -> None:
        if done < 0:
            self.end()
            return
        terminal = sys.__stderr__       # not main's escaping wrapper, which would show "\r"; names hold no controls
        if terminal is None or not terminal.isatty():     # a script's log gets the outcome lines only
            return
        width = 24
        fill = int(width * done / total) if total else width
        line = f"{name.rsplit('/', 1)[-1]} [{'#' * fill:<{width}}] {done}/{total}"
        columns = shutil.get_terminal_size((100, 20)).columns
        terminal.write("\r" + line[:columns - 1].ljust(columns - 1))
        terminal.flush()
        self.drawn = True

    def end(self) -> None:
        if self.drawn and sys.__stderr__ is not None:
            sys.__stderr__.write("\n")
            self.drawn = False


def _reindex(args) -> int:
    with _open(args) as (index, folder):
        changed = index.sync_folder(folder, force=True) if folder else index.sync_all(force=True)
        folders = [folder] if folder else sorted({s.folder for s in changed} | index.folders())
        statuses = [s for f in folders for s in index.statuses(f)]
    # Every file that has a problem now, not only those whose problem is new since the last run.
    problems = [s for s in statuses if s.status == PROBLEM]
    for s in problems:
        print(f"problem: {s.folder}/{shown(s.name)}: {s.detail}")
    print(f"reindexed: {len(statuses)} files, {len(changed)} changed, {len(problems)} with problems")
    return 0
