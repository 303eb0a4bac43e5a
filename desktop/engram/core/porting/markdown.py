"""A folder of markdown files, one conversation per ``.md`` file (sub-folders too; hidden ones
and links are skipped).

A turn starts at a line that names who speaks, outside code blocks, in any case:

- a heading: ``## User``, ``### Assistant — 2024-05-01T10:00:00Z`` (Engram's own session
  export: ``## user — <date>``, ``## assistant (stopped) — <date>``); a date in the heading is
  the turn's time;
- a bold label: ``**User:** text`` or ``**Assistant**: text``;
- a plain label at the start of a line: ``User: text``, ``ChatGPT: text``.

The person is ``user``, ``you``, ``human`` or ``me``; the assistant is ``assistant``, ``ai``,
``bot``, ``model``, ``chatgpt``, ``gpt``, ``claude``, ``gemini``, ``copilot`` or ``engram``. The
first ``# `` heading before the first turn is the title (else the file's name). Text before the
first turn (other than the title and Engram's ``- created: ...`` lines) becomes the first
message, from the person, so nothing is lost. In Engram's own export (after its ``- session:``
line) ``- memory: off``, ``- instructions: "…"`` and ``- model: "…"`` are the chat's own settings.
A file with no turn at all is a note the person wrote: it becomes one message from them, found by
search like anything they said.

The same file imported again adds nothing (its key is the hash of its bytes; an edited file is a
new conversation). Times unknown from the file are the file's modification time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from engram.core.conversation.chat_settings import FRONT_MATTER, from_front_matter
from engram.core.errors import InvalidInput, NotFound
from engram.core.porting.conversation import Conversation, Damaged, Turn, clean_text, iso_time

SOURCE = "markdown"
MAX_FILE_BYTES = 8 * 1024 * 1024
PERSON = ("user", "you", "human", "me")
ASSISTANT = ("assistant", "ai", "bot", "model", "chatgpt", "gpt", "claude", "gemini", "copilot", "engram")
_NAMES = "|".join(PERSON + ASSISTANT)
_HEADING = re.compile(rf"^#{{1,6}}\s+\**({_NAMES})\**\s*(?:$|[(:—–-])(.*)$", re.IGNORECASE)
_BOLD = re.compile(rf"^\*\*({_NAMES})\s*:?\s*\*\*\s*:?\s*(.*)$", re.IGNORECASE)
_PLAIN = re.compile(rf"^({_NAMES})\s*:\s*(.*)$", re.IGNORECASE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_METADATA = re.compile(r"^- (session|user|created|updated): (.*)$")
_SETTING = re.compile(rf"^- ({'|'.join(FRONT_MATTER)}): (.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def files(folder: Path) -> list[Path]:
    """The markdown files to import, in a stable order."""
    folder = Path(folder)
    if folder.is_file():
        return [folder]
    if not folder.is_dir():
        raise NotFound(f"there is no folder {folder}", hint="give a folder of .md files")
    found = [p for p in folder.rglob("*.md") if p.is_file() and not p.is_symlink()
             and not any(part.startswith(".") for part in p.relative_to(folder).parts)]
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def read(folder: Path, progress=None) -> Iterator[Conversation | Damaged]:
    found = files(folder)
    for n, path in enumerate(found, 1):
        try:
            yield conversation(path)
        except InvalidInput as e:
            yield Damaged(str(path), e.args[0])
        except OSError as e:
            yield Damaged(str(path), f"it could not be read ({e.strerror})")
        if progress is not None:
            progress(n, len(found))


def conversation(path: Path) -> Conversation:
    data = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else None
    if data is None:
        raise InvalidInput(f"it is over {MAX_FILE_BYTES // (1024 * 1024)} MiB, too large for a conversation")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"it is not valid UTF-8 text (at byte {e.start})") from None
    modified = iso_time(datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat())
    title, created, turns, settings = parse(text)
    return Conversation(f"{SOURCE}:{hashlib.sha256(data).hexdigest()}", title or path.stem, created or modified,
                        tuple(Turn(role, body, at or modified) for role, body, at in turns), settings)


def parse(text: str) -> tuple[str, str | None, list[tuple[str, str, str | None]], dict]:
    """(title, created, [(role, text, time)], the chat's own settings) of a markdown conversation."""
    title, created = "", None
    settings: dict = {}
    exported = False            # Engram's own export: its front matter may name the chat's settings
    preamble: list[str] = []
    turns: list[tuple[str, list[str], str | None]] = []
    fenced = False
    for line in clean_text(text).splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        marker = None if fenced else _marker(line)
        if marker is not None:
            turns.append((marker[0], [marker[1]] if marker[1] else [], marker[2]))
        elif turns:
            turns[-1][1].append(line)
        elif not title and line.startswith("# "):
            title = line[2:].strip()
        elif (meta := _METADATA.match(line)) is not None:
            created = created or (iso_time(meta.group(2)) if meta.group(1) == "created" else None)
            exported = exported or meta.group(1) == "session"
        elif exported and (setting := _SETTING.match(line)) is not None \
                and (value := from_front_matter(setting.group(1), setting.group(2))) is not None:
            settings[setting.group(1)] = value
        else:
            preamble.append(line)
    said = [(role, "\n".join(lines).strip(), at) for role, lines, at in turns]
    if "\n".join(preamble).strip():
        said.insert(0, ("user", "\n".join(preamble).strip(), None))
    return title, created, [t for t in said if t[1]], settings


def _marker(line: str) -> tuple[str, str, str | None] | None:
    """(role, text on the same line, time) when the line starts a turn."""
    if (found := _HEADING.match(line)) is not None:
        rest = found.group(2)
        date = _DATE.search(rest)
        return _role(found.group(1)), "", iso_time(date.group().replace(" ", "T")) if date else None
    for pattern in (_BOLD, _PLAIN):
        if (found := pattern.match(line)) is not None:
            return _role(found.group(1)), found.group(2).strip(), None
    return None


def _role(name: str) -> str:
    return "user" if name.lower() in PERSON else "assistant"
