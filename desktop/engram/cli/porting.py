"""``engram import chatgpt|claude|markdown PATH`` and ``engram export --format json|md --output PATH``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engram.cli import open_engram
from engram.core.porting import importer
from engram.core.porting.export import FORMATS, export


def register(commands, common: argparse.ArgumentParser) -> None:
    imports = commands.add_parser("import", parents=[common],
                                  help="import conversations from ChatGPT, Claude or a folder of markdown files")
    imports.add_argument("source", choices=tuple(importer.FORMATS),
                         help="chatgpt and claude: the export's .zip or its conversations.json;"
                              " markdown: a folder of .md files, one conversation each")
    imports.add_argument("path")
    imports.add_argument("--user", help="whose memory they join (default: this desktop's profile)")
    imports.add_argument("--no-wait", action="store_true",
                         help="return once the conversations are stored; they are archived into memory"
                              " the next time Engram runs (the window, or any command that runs the outbox)")
    imports.set_defaults(run=_import)

    exports = commands.add_parser("export", parents=[common],
                                  help="write all of a person's chats, memories and preferences to a file or folder")
    exports.add_argument("--format", choices=FORMATS, default="json",
                         help="json: one file; md: a folder of markdown (one file per chat, and memories.md)")
    exports.add_argument("--output", required=True, help="the file (json) or the new folder (md) to write")
    exports.add_argument("--user", help="whose data (default: this desktop's profile)")
    exports.set_defaults(run=_export)


class _Bar:
    """How far the import is, on stderr: one line rewritten in a terminal; elsewhere (a log) a
    line per tenth of the way."""

    def __init__(self):
        self.shown = ""
        self.terminal = sys.stderr.isatty()

    def __call__(self, progress: importer.Progress) -> None:
        share = 100 * progress.done // progress.total if progress.total else 0
        if not self.terminal:
            share -= share % 10
        text = (f"reading {share}%" + (f", {progress.imported} conversation(s) imported" if self.terminal else "")
                if progress.phase == importer.READING
                else f"archiving into memory: {progress.done if self.terminal else f'{share}%'} of"
                     f" {progress.total} conversation(s)")
        if text != self.shown:
            print(f"\r{text}\x1b[K" if self.terminal else text, end="" if self.terminal else "\n",
                  file=sys.stderr, flush=True)
            self.shown = text

    def end(self) -> None:
        if self.shown and self.terminal:
            print(file=sys.stderr)


def _import(args) -> int:
    engram = open_engram(args)
    user = args.user or engram.user
    bar = _Bar()
    if not args.no_wait:    # before importing: the jobs queued are then this process's, not a window's
        engram.outbox.start()
    try:
        report = importer.import_file(engram, args.source, Path(args.path), user, progress=bar)
        if report.archive_jobs and not args.no_wait:
            try:
                importer.wait_archived(engram, report, progress=bar)
            except KeyboardInterrupt:
                report.archived = False
    finally:
        engram.outbox.stop()
    bar.end()
    for line in report.lines():
        print(line)
    if report.archive_jobs and not report.archived:
        print("archiving into memory goes on the next time Engram runs; `engram outbox status` shows it")
    return 1 if report.damaged else 0


def _export(args) -> int:
    engram = open_engram(args, meaning=False)
    done = export(engram, args.user or engram.user, args.format, Path(args.output))
    print(f"wrote {done.path}: {done.sessions} chat(s) with {done.messages} message(s), {done.memories} memories")
    return 0
