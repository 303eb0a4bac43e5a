"""A memory file's text: optional YAML front matter with a ``description``, then markdown.

Files the model or the app writes always carry front matter; a file a person wrote may have
none, or broken front matter, and is still usable: its first heading or line stands in as the
description, and a broken header is reported (not fatal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

MAX_DESCRIPTION_CHARS = 300
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Document:
    description: str
    body: str
    body_line: int = 1            # line number (1-based) of the body's first line in the file
    problem: str = ""             # e.g. broken front matter; the document is still usable
    source: dict = field(default_factory=dict)   # a converted document's original (documents.py)


def parse(text: str) -> Document:
    text = text.lstrip("\ufeff")
    match = _FRONT.match(text)
    if not match:
        if text.startswith("---\n") or text.startswith("---\r\n"):
            body = text.split("\n", 1)[1]
            return Document(fallback_description(body), body, 2, "front matter is not closed by a '---' line")
        return Document(fallback_description(text), text)
    body = text[match.end():]
    body_line = text[:match.end()].count("\n") + 1
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError as e:
        reason = str(e).splitlines()[0]
        return Document(fallback_description(body), body, body_line, f"front matter is not valid YAML ({reason})")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return Document(fallback_description(body), body, body_line, "front matter is not a set of 'key: value' lines")
    description = meta.get("description")
    if description is not None and not isinstance(description, str):
        return Document(fallback_description(body), body, body_line, "the front matter's description is not text")
    source = meta["source"] if isinstance(meta.get("source"), dict) else {}
    return Document(_clip(description) if description and description.strip() else fallback_description(body),
                    body, body_line, source=source)


def fallback_description(body: str) -> str:
    """The first heading, or else the first non-empty line, stands in for a description."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    heading = next((line for line in lines if re.match(r"#{1,6}\s", line)), None)
    chosen = heading or (lines[0] if lines else "")
    return _clip(chosen.lstrip("#").strip())


def render(description: str | None, body: str) -> str:
    """The file text for a body and an optional description (front matter only when given)."""
    body = body if body.endswith("\n") or not body else body + "\n"
    if not description or not description.strip():
        return body
    header = yaml.safe_dump({"description": _clip(description)}, allow_unicode=True, width=10_000, sort_keys=False)
    return f"---\n{header}---\n{body}"


def render_meta(meta: dict, body: str) -> str:
    """The file text for front matter of several keys (a converted document's) and a body."""
    meta = dict(meta, description=_clip(meta.get("description") or ""))
    header = yaml.safe_dump(meta, allow_unicode=True, width=10_000, sort_keys=False)
    return f"---\n{header}---\n{body}"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION_CHARS else text[: MAX_DESCRIPTION_CHARS - 1] + "…"
