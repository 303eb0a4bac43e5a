"""File names inside a session folder: plain, portable, and never a way out of the folder.

A name is a relative path with ``/`` between parts. Every part must be a name that Windows,
macOS and Linux all accept, so a folder copied between machines keeps working; nothing in a
name can climb out of the folder (``..``, absolute paths, drive letters) or hide (a leading dot
is what editors use for temporary files, so such names are left to them).
"""

from __future__ import annotations

import re
import unicodedata

from engram.core.errors import InvalidInput

INDEX_NAME = "memories.md"          # the generated index; never written or indexed as a memory file
TEXT_SUFFIXES = (".md", ".markdown", ".txt")
MAX_PART_CHARS = 120
MAX_NAME_CHARS = 255
MAX_DEPTH = 4

_INVALID_CHARS = set('<>:"\\|?*')
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$", re.IGNORECASE)
_HINT = "use letters, digits, '-', '_' and '.', e.g. trip-plan.md"
_CONTROLS = ("Cc", "Cf", "Zl", "Zp")     # control and format characters, line and paragraph breaks


def check_name(name: str) -> str:
    """The name, NFC-normalised, or InvalidInput saying exactly what is wrong with it."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("a file name is required", hint=_HINT)
    name = unicodedata.normalize("NFC", name.strip())
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"the file name is {len(name)} characters long; the limit is {MAX_NAME_CHARS}", hint=_HINT)
    if name.startswith("/"):
        raise InvalidInput(f"{name!r} is an absolute path; names are relative to the session folder", hint=_HINT)
    if re.match(r"^[A-Za-z]:", name):
        raise InvalidInput(f"{name!r} starts with a drive letter, an absolute path on Windows", hint=_HINT)
    parts = name.split("/")
    if len(parts) > MAX_DEPTH:
        raise InvalidInput(f"{name!r} is nested {len(parts)} folders deep; the limit is {MAX_DEPTH}", hint=_HINT)
    for part in parts:
        _check_part(name, part)
    return name


def shown(text: str) -> str:
    """A name (or description) as a listing or memories.md shows it. A file a person added may be
    named with a newline, which would fake a line of the listing, or with an escape sequence: such
    characters are shown as escapes (``\\n``, ``\\x1b``), and the file is listed as refused."""
    return "".join(c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) in _CONTROLS else c
                   for c in text)


def _check_part(name: str, part: str) -> None:
    if part in ("", ".", ".."):
        raise InvalidInput(f"{name!r} does not stay inside the session folder (empty, '.' or '..' part)", hint=_HINT)
    if len(part) > MAX_PART_CHARS:
        raise InvalidInput(f"{part!r} is longer than {MAX_PART_CHARS} characters", hint=_HINT)
    control = next((c for c in part if unicodedata.category(c) in _CONTROLS), None)
    if control is not None:
        raise InvalidInput(f"{name!r} contains the control character U+{ord(control):04X}", hint=_HINT)
    bad = sorted(_INVALID_CHARS.intersection(part))
    if bad:
        raise InvalidInput(f"{name!r} contains {' '.join(bad)}, which some systems do not allow in names", hint=_HINT)
    if part.startswith("."):
        raise InvalidInput(f"{name!r} is hidden (starts with '.'); such names are left to editors", hint=_HINT)
    if part.endswith((" ", ".")):
        raise InvalidInput(f"{name!r} ends a name with a space or a dot, which Windows does not allow", hint=_HINT)
    if _RESERVED.match(part):
        raise InvalidInput(f"{part!r} is a reserved device name on Windows", hint=_HINT)


def writable_name(name: str) -> str:
    """A name the model or the app may write: checked, '.md' added when it has no suffix, and
    never the generated index."""
    name = check_name(name)
    last = name.rsplit("/", 1)[-1]
    if "." not in last:
        name += ".md"
    elif not name.lower().endswith(TEXT_SUFFIXES):
        raise InvalidInput(f"{name!r} is not a text file name", hint="end it with .md (markdown) or .txt")
    if name.lower() == INDEX_NAME:
        raise InvalidInput(f"{INDEX_NAME} is the generated index of this folder; it cannot be written",
                           hint="write another file; the index lists it by itself")
    return name


def is_ignored(relative: str) -> bool:
    """Paths the index never looks at: hidden parts (editor temp files, our own temp files) and
    the generated index."""
    parts = relative.split("/")
    return any(p.startswith(".") for p in parts) or relative == INDEX_NAME or relative.endswith(("~", ".swp"))


def is_text_name(relative: str) -> bool:
    return relative.lower().endswith(TEXT_SUFFIXES)
