"""Markdown split into chunks by headings, each small enough to embed well.

A chunk is one section (the text under a heading, up to the next heading of any level), with
the path of headings above it. A section longer than the cap is split at blank lines, then at
line ends, then anywhere. Headings inside fenced code blocks are not headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHUNK_CHARS = 1200       # ~300 tokens: inside the embedding model's window
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


@dataclass(frozen=True)
class Chunk:
    headings: tuple[str, ...]    # e.g. ("Trip", "Day 1")
    text: str                    # the section's text without its heading line
    line: int                    # 1-based line of the chunk's first line in the body


def split(body: str, max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    chunks: list[Chunk] = []
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    start = 1
    fence = None

    def flush() -> None:
        text = "\n".join(lines)
        if text.strip():
            headings = tuple(title for _, title in path)
            chunks.extend(Chunk(headings, part, start + offset) for part, offset in _cap(text, max_chars))

    for number, line in enumerate(body.splitlines(), start=1):
        fence_match = _FENCE.match(line)
        if fence_match:
            fence = None if fence == fence_match.group(1) else (fence or fence_match.group(1))
        heading = None if fence else _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            path = [(lv, t) for lv, t in path if lv < level] + [(level, heading.group(2).strip())]
            lines, start = [], number + 1
        else:
            lines.append(line)
    flush()
    return chunks


def _cap(text: str, max_chars: int) -> list[tuple[str, int]]:
    """(part, line offset) pairs: the text cut at the best boundary below the cap, trimmed."""
    parts: list[tuple[str, int]] = []
    offset = 0
    while text.strip():
        lead = len(text) - len(text.lstrip("\n"))
        offset += text[:lead].count("\n")
        text = text[lead:]
        if len(text) <= max_chars:
            parts.append((text.rstrip(), offset))
            break
        window = text[:max_chars]
        cut = max(window.rfind("\n\n"), 0) or max(window.rfind("\n"), 0) or max(window.rfind(" "), 0) or max_chars
        parts.append((text[:cut].rstrip(), offset))
        offset += text[:cut].count("\n")
        text = text[cut:]
    return [(p, o) for p, o in parts if p.strip()]
