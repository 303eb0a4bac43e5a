"""``engram models list|download|use|remove``: the model catalog from a terminal.

None of these opens the database or loads a model; only ``download`` opens a network connection.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from engram.core.models.downloads import Progress, format_duration, format_size
from engram.core.settings import Settings

MARKS = {"recommended": "★", "fits": "✓", "fits, slow": "~", "too big": "✗"}


def register(commands, common: argparse.ArgumentParser) -> None:
    models = commands.add_parser("models", parents=[common], help="the model catalog: list, download, use, remove")
    sub = models.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", parents=[common], help="catalog models, which are here, which suit this machine")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=_list)
    download = sub.add_parser("download", parents=[common],
                              help="download models (resumes a partial download; Ctrl-C pauses)")
    download.add_argument("names", nargs="+", metavar="NAME")
    download.add_argument("--unverified", action="store_true",
                          help="accept a file whose sha256 neither the catalog nor the server states")
    download.set_defaults(run=_download)
    use = sub.add_parser("use", parents=[common], help="make a model the chat, embedding or reranker model")
    use.add_argument("name", metavar="NAME")
    use.set_defaults(run=_use)
    remove = sub.add_parser("remove", parents=[common], help="delete a downloaded model")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(run=_remove)


def _library():
    from engram.core.models.library import ModelLibrary

    return ModelLibrary(Settings.load())


def _list(args) -> int:
    library = _library()
    statuses = library.statuses()
    if args.json:
        print(json.dumps({"catalog": str(library.catalog.path), "source": library.source, "mirror": library.mirror,
                          "machine": {"ram_bytes": library.machine.ram_bytes, "cores": library.machine.cores},
                          "models": [s.to_json() for s in statuses]}, ensure_ascii=False, indent=1))
        return 0
    print(f"This machine: {library.machine.describe()}.  ★ recommended  ✓ fits  ~ fits, slow  ✗ too big")
    rows = [("", "NAME", "KIND", "SIZE", "RAM", "TOOLS", "LANGUAGES", "HERE")]
    for s in statuses:
        e = s.entry
        rows.append((MARKS[s.fit.label], e.name, e.kind, format_size(e.size), f"{e.ram_gb:.1f} GB",
                     "yes" if e.tools else "no", " ".join(e.languages[:4]) + (" …" if len(e.languages) > 4 else ""),
                     _here(s)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f"\nCatalog: {library.catalog.path}\nDownloads from: {library.source} ({library.mirror})  into"
          f" {library.folder}")
    return 0


def _here(status) -> str:
    if status.installed:
        return "in use" if status.in_use else ("bundled" if status.entry.bundled else "installed")
    if status.partial:
        size = status.entry.size
        return f"partial {status.partial / size:.0%}" if size else f"partial {status.partial / 2**20:,.0f} MiB"
    return "not bundled" if status.entry.bundled else ""


def _download(args) -> int:
    library = _library()
    for name in args.names:
        library.catalog.get(name)                   # an unknown name fails before anything is fetched
    for name in args.names:
        entry = library.catalog.get(name)
        print(f"{entry.name}: {library.url(entry)}", file=sys.stderr)
        bar = _Bar(entry.name)
        try:
            path = library.download(name, allow_unverified=args.unverified, on_progress=bar.show)
        except KeyboardInterrupt:
            print(f"paused; `engram models download {entry.name}` resumes it", file=sys.stderr)
            return 130
        finally:
            bar.end()
        print(f"{entry.name}: {path}  (`engram models use {entry.name}` to use it)")
    return 0


class _Bar:
    """One line on stderr, redrawn: ``qwen3-4b [#####   ] 48% · 1.1 GiB of 2.3 GiB · 12 MiB/s · 1 min 40 s left``."""

    def __init__(self, name: str):
        self.name, self.drawn = name, False

    def show(self, progress: Progress) -> None:
        width = 24
        fraction = progress.fraction
        bar = f"[{'#' * int(width * fraction):<{width}}] {fraction:4.0%} · " if fraction is not None else ""
        if progress.state != "downloading":
            words = {"checking": "checking the part kept from before", "verifying": "verifying the checksum"}
            line = f"{self.name} {bar}{words[progress.state]}"
        else:
            line = f"{self.name} {bar}{format_size(progress.done)} of {format_size(progress.total)} · " \
                   f"{format_size(int(progress.speed))}/s"
            if (eta := progress.eta_s) is not None:
                line += f" · {format_duration(eta)} left"
        columns = shutil.get_terminal_size((100, 20)).columns
        sys.stderr.write("\r" + line[:columns - 1].ljust(columns - 1))
        sys.stderr.flush()
        self.drawn = True

    def end(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            self.drawn = False


def _use(args) -> int:
    library = _library()
    key = library.use(args.name)
    value = getattr(library.settings, key) or "the default"
    print(f"{key} = {value}  (saved in {library.settings.path}; the window loads it when opened, or at once"
          " from Settings › Models)")
    return 0


def _remove(args) -> int:
    for line in _library().remove(args.name):
        print(line)
    return 0
