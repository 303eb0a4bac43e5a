"""Reading an export's ``conversations.json`` as a stream (ijson), from the file itself, from the
.zip the service sends, or from the folder it unpacks to.

Exports run to hundreds of megabytes; ijson hands over one conversation at a time, so memory
stays bounded by the largest conversation, and a file cut short or damaged half-way still gives
every conversation before the damage. Progress is the share of the file's bytes read so far.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import ijson

from engram.core.errors import InvalidInput, NotFound
from engram.core.porting.conversation import Conversation, Damaged

CONVERSATIONS = "conversations.json"
# Fields only one vendor's conversations hold, and the import that reads them: a file given to
# the other vendor's import is named in one line, not refused conversation by conversation.
SIGNATURES = {"ChatGPT": ({"mapping", "current_node"}, "chatgpt"), "Claude": ({"uuid", "chat_messages"}, "claude")}
Progress = Callable[[int, int], None]      # (bytes read, bytes in all)


class _Counting(io.RawIOBase):
    """A binary stream that reports how much of it was read."""

    def __init__(self, stream, total: int, progress: Progress | None):
        self.stream, self.total, self.progress, self.read_so_far = stream, total, progress, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.stream.read(len(buffer))
        buffer[:len(data)] = data
        self.read_so_far += len(data)
        if self.progress is not None:
            self.progress(self.read_so_far, self.total)
        return len(data)


@contextmanager
def opened_export(path: Path, what: str):
    """The bytes of an export's conversations.json and their size, from a .json file, a .zip or
    a folder; a clear error when none is there."""
    path = Path(path)
    if not path.exists():
        raise NotFound(f"there is no file {path}", hint=f"give the path of the {what} export (.zip or {CONVERSATIONS})")
    if path.is_dir():
        path = path / CONVERSATIONS
        if not path.is_file():
            raise InvalidInput(f"the folder {path.parent} holds no {CONVERSATIONS}",
                               hint=f"give the {what} export's .zip, or the folder it unpacked to")
    try:
        if zipfile.is_zipfile(path):
            archive = zipfile.ZipFile(path)
            names = sorted((n for n in archive.namelist() if Path(n).name == CONVERSATIONS), key=len)
            if not names:
                archive.close()
                raise InvalidInput(f"{path} holds no {CONVERSATIONS}",
                                   hint=f"is it the {what} export? It has a {CONVERSATIONS} inside")
            stream, size = archive.open(names[0]), archive.getinfo(names[0]).file_size
        else:
            archive, stream, size = None, path.open("rb"), path.stat().st_size
            if stream.read(4) == b"PK\x03\x04":         # a zip's first bytes, but no zip's directory at its end
                stream.close()
                raise zipfile.BadZipFile("it ends before its table of contents (cut short?)")
            stream.seek(0)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as e:
        raise InvalidInput(f"{path} is a damaged .zip file: {e}",
                           hint=f"download the {what} export again, or unpack it and give its {CONVERSATIONS}") from e
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror}") from e
    try:
        yield stream, size
    finally:
        stream.close()
        if archive is not None:
            archive.close()


def conversation_items(stream, total: int, what: str, progress: Progress | None = None, *,
                       prefix: str = "item", check: Callable[[bytes], None] | None = None) -> Iterator[dict | Damaged]:
    """The items of the top-level JSON list (or the list at ``prefix``, in ijson's notation), one at
    a time; damage is yielded as the last item. ``check`` may refuse the file from its first bytes."""
    counted = io.BufferedReader(_Counting(stream, total, progress), buffer_size=1 << 16)
    count = 0
    try:
        head = counted.peek(64)
        if head.startswith(b"\xef\xbb\xbf"):       # a byte order mark, which some tools write
            counted.read(3)
            head = counted.peek(64)
        if not head.strip():
            raise InvalidInput(f"the file is empty: it holds no {what} export",
                               hint=f"export your data from {what} again, and give the new file")
        if check is not None:
            check(head)
        elif head.lstrip()[:1] != b"[":
            raise InvalidInput(f"this is not a {what} export: its {CONVERSATIONS} must be a list of conversations",
                               hint=f"give the {CONVERSATIONS} from the {what} export")
        for item in ijson.items(counted, prefix, use_float=True):
            count += 1
            if count == 1:
                _check_vendor(item, what)
            yield item
    except ijson.JSONError as e:
        yield Damaged(_after(count), _why(e))
    except (OSError, zipfile.BadZipFile, EOFError) as e:    # a .zip whose data is damaged
        yield Damaged(_after(count), f"it could not be read ({e})")


def _check_vendor(item, what: str) -> None:
    """Refuse another vendor's export, saying which import reads it."""
    for vendor, (fields, source) in SIGNATURES.items():
        if vendor != what and isinstance(item, dict) and fields <= item.keys():
            raise InvalidInput(f"this is a {vendor} export, not a {what} one",
                               hint=f"import it as {vendor}'s: engram import {source} PATH")


def parsed(items: Iterable[dict | Damaged], parse: Callable[[dict], Conversation], title: str = "",
           what: str = "conversation") -> Iterator[Conversation | Damaged]:
    """Each item read as a conversation by ``parse``; one that does not read is Damaged, named by
    its number and (its ``title`` field) its title, and the others go on."""
    for n, item in enumerate(items, 1):
        if isinstance(item, Damaged):
            yield item
            continue
        try:
            yield parse(item)
        except InvalidInput as e:
            name = item.get(title) if title and isinstance(item, dict) else None
            yield Damaged(f"{what} {n}" + (f" ({name!r})" if isinstance(name, str) and name else ""), e.message)


def _after(count: int) -> str:
    return f"the file after conversation {count}" if count else "the whole file"


def _why(error: Exception) -> str:
    text = str(error)
    if "UTF8" in text or "utf-8" in text.lower():
        return "it is not valid UTF-8 text there"
    if "premature EOF" in text:
        return "the file ends in the middle of a conversation (cut short?)"
    first = text.replace("\\n", "\n").strip("b'\"").splitlines()[0] if text else type(error).__name__
    return f"it is not valid JSON there ({first})"
