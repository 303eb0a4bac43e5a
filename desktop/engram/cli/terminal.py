"""What the command line reads and prints, made safe for a terminal.

Arguments and standard input arrive as bytes; ones that are not UTF-8 are refused with a clear
error instead of failing deep inside SQLite or the embedding model. Text printed from memories,
messages or files may hold control characters (an escape sequence can recolour, move the cursor,
or retitle the terminal): they are shown as visible escapes instead.
"""

from __future__ import annotations

import argparse
import re
import sys

from engram.core.errors import InvalidInput

# C0 controls except tab and newline, DEL, C1 controls, and the bidirectional overrides and
# isolates that can make a line read differently from what it holds.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SQLITE_MAX_INT = 2 ** 63 - 1


def visible(text: str) -> str:
    """``text`` with control characters written as escapes (``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class Visible:
    """A text stream that writes control characters as visible escapes."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(visible(text))

    def __getattr__(self, name):
        return getattr(self._stream, name)


def check_utf8(argv: list[str]) -> None:
    """Refuse arguments that were not UTF-8 (Python keeps their bytes as lone surrogates)."""
    for position, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
            raise InvalidInput(f"argument {position} is not valid UTF-8 text: {visible(shown)}",
                               hint="pass text in UTF-8 (check the terminal's or the script's encoding)") from None


def read_stdin() -> str:
    """All of standard input as text, refused (not half-read) when it is not UTF-8."""
    if (raw := getattr(sys.stdin, "buffer", None)) is None:     # already text (a script's StringIO)
        return sys.stdin.read()
    data = raw.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"standard input is not valid UTF-8 text (at byte {e.start})",
                           hint="convert it to UTF-8 first, e.g. with iconv") from None


def whole_number(low: int, high: int, what: str):
    """An argparse type for a whole number from ``low`` to ``high`` (ids beyond SQLite's 64-bit
    integers, or counts of a billion, are refused with a message rather than a traceback)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{visible(text)!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be from {low:,} to {high:,}, not {visible(text)}")
        return value
    parse.__name__ = what          # argparse names the type in its messages
    return parse


memory_id = whole_number(1, SQLITE_MAX_INT, "a memory id")
count = whole_number(1, 10_000, "a count")


MAX_NAMED = 20      # unreadable rows named one by one; the rest counted


def unreadable(lost: list[str], what: str) -> int:
    """After printing what a damaged database still gave: name what it did not, on stderr, and
    the exit status (1: something could not be read)."""
    if not lost:
        return 0
    named = ", ".join(lost[:MAX_NAMED]) + (f" and {len(lost) - MAX_NAMED} more" if len(lost) > MAX_NAMED else "")
    print(f"note: the database is damaged; these {what} could not be read: {named}", file=sys.stderr)
    return 1
