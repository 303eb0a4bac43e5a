"""A session's folder of memory files: safe reads and writes, limits, and the index text.

Every name goes through ``names.check_name`` and every path is checked again after resolving,
so neither a crafted name nor a link placed in the folder can reach a file outside it. Writes
are atomic (temp file, then rename), so a reader or the watcher never sees half a file.

Limits (for writes by the model or the app; a person's own files over the file limit are listed
but not indexed):
  - one file: at most 1 MiB (MAX_FILE_BYTES);
  - one folder: at most 64 MiB (MAX_FOLDER_BYTES) in at most 10,000 files (MAX_FILES).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engram.core.storage.atomic import write_bytes_atomic
from engram.core.errors import DataDirError, InvalidInput, NotFound
from engram.core.files import document
from engram.core.files.names import INDEX_NAME, check_name, is_ignored, shown, writable_name

MAX_FILE_BYTES = 1024 * 1024
MAX_FOLDER_BYTES = 64 * 1024 * 1024
MAX_FILES = 10_000


def bytes_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_hash(path: Path) -> str:
    """``bytes_hash`` of a file read in blocks (a document may be large)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Entry:
    """A file on disk, as found by a scan (before any reading)."""

    name: str
    size: int


class SessionFolder:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.name = self.path.name

    # -- paths ---------------------------------------------------------------------------------

    def locate(self, name: str) -> Path:
        """The absolute path for a checked name; refuses links and anything resolving outside."""
        name = check_name(name)
        path = self.path.joinpath(*name.split("/"))
        root = self.path.resolve()
        probe = self.path
        for part in name.split("/"):
            probe = probe / part
            if probe.is_symlink():
                raise InvalidInput(f"{name!r} is a link; links in a session folder are not followed",
                                   hint="copy the file into the folder instead of linking to it")
        if not path.resolve().is_relative_to(root):
            raise InvalidInput(f"{name!r} leads outside the session folder")
        return path

    # -- reading -------------------------------------------------------------------------------

    def scan(self) -> list[Entry]:
        """Every file a person or the model may have put here (links included, so that they get
        a status), without following links and without hidden files or the index."""
        found: list[Entry] = []
        if not self.path.is_dir():
            return found
        for dirpath, dirnames, filenames in os.walk(self.path, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                full = Path(dirpath, filename)
                name = full.relative_to(self.path).as_posix()
                if is_ignored(name):
                    continue
                try:
                    found.append(Entry(name, full.lstat().st_size))
                except FileNotFoundError:
                    continue
        return found

    def read_bytes(self, name: str, limit: int = MAX_FILE_BYTES) -> bytes:
        path = self.locate(name)
        with _file_errors(name, "read"):
            # Opened without blocking and checked before reading: a FIFO or a device placed in
            # the folder would otherwise hang the read (and the model's files_read tool) forever.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_BINARY", 0))
            with os.fdopen(fd, "rb") as f:
                info = os.fstat(f.fileno())
                if not stat.S_ISREG(info.st_mode):
                    raise InvalidInput(f"{name} is not a regular file (a pipe, device or socket); it is not read",
                                       hint="keep only ordinary files in a session folder")
                if info.st_size > limit:
                    raise InvalidInput(f"{name} is {info.st_size / 1e6:.1f} MB; files over {limit // 1024} KiB"
                                       " are not read", hint="split it into smaller files")
                return f.read(limit + 1)

    def read(self, name: str) -> document.Document:
        return decode(name, self.read_bytes(name))

    # -- writing -------------------------------------------------------------------------------

    def write(self, name: str, body: str, description: str | None = None) -> tuple[str, bytes]:
        """Create or overwrite a file; returns its name (with '.md' added if it had no suffix)
        and the bytes written, so the caller can index exactly what is on disk."""
        name = writable_name(name)
        if not isinstance(body, str) or not isinstance(description, (str, type(None))):
            raise InvalidInput("the file content and its description must be text")
        data = document.render(description, body).encode("utf-8")
        if len(data) > MAX_FILE_BYTES:
            raise InvalidInput(f"{name} would be {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,}",
                               hint="split the content into several files")
        path = self.locate(name)
        entries = {e.name: e.size for e in self.scan()}
        if name not in entries and len(entries) >= MAX_FILES:
            raise InvalidInput(f"this session's folder already holds {MAX_FILES:,} files",
                               hint="delete files that are no longer needed")
        total = sum(entries.values()) - entries.get(name, 0) + len(data)
        if total > MAX_FOLDER_BYTES:
            raise InvalidInput(f"this session's folder would hold {total / 1e6:.1f} MB; the limit is "
                               f"{MAX_FOLDER_BYTES // (1024 * 1024)} MiB", hint="delete or shorten other files")
        try:
            write_bytes_atomic(path, data)
        except OSError as e:
            raise DataDirError(f"cannot write {name}: {e.strerror}", hint="check the disk and its permissions") from e
        return name, data

    def delete(self, name: str) -> str:
        name = check_name(name)
        if name == INDEX_NAME:
            raise InvalidInput(f"{INDEX_NAME} is the generated index; it is rewritten, not deleted")
        with _file_errors(name, "delete"):
            self.locate(name).unlink()
        return name

    def write_index(self, text: str) -> bool:
        """Rewrite memories.md when its text differs; returns whether it was written. A failure
        raises DataDirError and changes nothing on disk (a folder in the way is never replaced)."""
        path = self.path / INDEX_NAME
        data = text.encode("utf-8")
        try:
            if path.read_bytes() == data:
                return False
        except OSError:
            pass
        try:
            write_bytes_atomic(path, data)
        except OSError as e:
            if path.is_dir():
                raise DataDirError(f"a folder named {INDEX_NAME} is in the way; rename or move it so that the"
                                   " index can be written") from e
            raise DataDirError(f"{e.strerror or e}; check the free disk space and the folder's permissions") from e
        return True


@contextmanager
def _file_errors(name: str, verb: str) -> Iterator[None]:
    """Turn the operating system's errors about one file into messages a person can act on."""
    try:
        yield
    except FileNotFoundError:
        raise NotFound(f"there is no file {name!r} in this session's folder",
                       hint="list the files to see their names") from None
    except IsADirectoryError:
        raise InvalidInput(f"{name!r} is a folder, not a file") from None
    except OSError as e:
        raise DataDirError(f"cannot {verb} {name}: {e.strerror}") from e


def decode(name: str, data: bytes) -> document.Document:
    """A file's bytes as a document, or InvalidInput for binary content and invalid UTF-8."""
    if b"\x00" in data[:8192]:
        raise InvalidInput(f"{name} holds binary content, not text")
    try:
        return document.parse(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{name} is not valid UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})",
                           hint="save it as UTF-8 in an editor") from None


def index_markdown(files: list[tuple[str, str]]) -> str:
    """memories.md for (name, description) pairs."""
    lines = ["# Memory index", "",
             "<!-- Generated by Engram from the files in this folder; edits here are replaced. -->", ""]
    lines += [f"- **{shown(name)}**: {shown(description)}" if description else f"- **{shown(name)}**"
              for name, description in files]
    return "\n".join(lines) + "\n"
