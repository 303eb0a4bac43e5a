"""The tools the model uses on its session's folder: write, read, delete, list, grep, search.

Each tool returns text for the model. Problems (a bad name, a missing file, a bad pattern, a
size limit) come back as ``error: ...`` results through ``Tool.call``; they never end the turn.
"""

from __future__ import annotations

import fnmatch
import re

from engram.core.errors import InvalidInput
from engram.core.files.formats import is_document_name
from engram.core.files.index import INDEXED, FileIndex
from engram.core.files.names import shown
from engram.core.conversation.tools import Tool

MAX_READ_CHARS = 20_000
MAX_GREP_MATCHES = 100
MAX_LINE_CHARS = 300
MAX_PATTERN_CHARS = 500

_NAME = {"type": "string", "description": "the file's name, e.g. trip-plan.md"}


def file_tools(index: FileIndex, folder: str) -> list[Tool]:
    """The six tools, bound to one session's folder."""

    def write(name: str, content: str, description: str | None = None) -> str:
        status = index.write(folder, name, content, description)
        note = f" (note: {status.detail})" if status.detail else ""
        return f"saved {status.name} ({status.size:,} bytes){note}"

    def read(name: str) -> str:
        body = index.folder(folder).read(name).body
        if len(body) > MAX_READ_CHARS:
            return (body[:MAX_READ_CHARS] + f"\n[... {len(body) - MAX_READ_CHARS:,} more characters;"
                    " use files_grep or files_search to find a part]")
        return body or "(the file is empty)"

    def delete(name: str) -> str:
        return f"deleted {index.delete(folder, name).name}"

    def none(what: str) -> str:
        """Nothing found here; where the chat's folder is on another device, saying so."""
        device = index.elsewhere(folder)
        return what if device is None else f"{what} here: this chat's files are on the device {device!r}"

    def listing() -> str:
        statuses = index.statuses(folder)
        if not statuses:
            return none("no files yet")
        return "\n".join(f"- {shown(s.name)}: {shown(s.summary)}" for s in statuses)

    def grep(pattern: str, glob: str | None = None) -> str:
        if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_PATTERN_CHARS:
            raise InvalidInput(f"the pattern must be a regular expression of 1 to {MAX_PATTERN_CHARS} characters")
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error as e:
            raise InvalidInput(f"{pattern!r} is not a valid regular expression: {e}",
                               hint="escape special characters such as ( [ . * with a backslash") from None
        lines: list[str] = []
        for status in index.statuses(folder):
            if status.status != INDEXED or is_document_name(status.name) or (glob and not _glob_matches(status.name, glob)):
                continue
            try:
                text = index.folder(folder).read_bytes(status.name).decode("utf-8", "replace")
            except Exception:  # gone or changed since listed: grep the rest
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                if regex.search(line[:10_000]):
                    lines.append(f"{status.name}:{number}: {line[:MAX_LINE_CHARS]}")
                    if len(lines) == MAX_GREP_MATCHES:
                        return "\n".join(lines) + f"\n[stopped at {MAX_GREP_MATCHES} matches; narrow the pattern]"
        return "\n".join(lines) or "no matches"

    def search(query: str, k: int = 5) -> str:
        if not isinstance(query, str):
            raise InvalidInput("the query must be text")
        if not isinstance(k, int) or not 1 <= k <= 20:
            raise InvalidInput("k must be a whole number from 1 to 20")
        hits = index.search(folder, query, k=k)
        if not hits:
            return none("nothing found")
        return "\n\n".join(f"[{h.name} line {h.line}]\n{h.memory.text[:1500]}" for h in hits)

    return [
        Tool("files_write", "Save a file in this session's folder (creates it or replaces it). Give a short"
             " one-line description so the file can be found later.",
             {"type": "object", "properties": {"name": _NAME, "content": {"type": "string"},
                                               "description": {"type": "string"}},
              "required": ["name", "content"]}, write),
        Tool("files_read", "Read a file from this session's folder.",
             {"type": "object", "properties": {"name": _NAME}, "required": ["name"]}, read),
        Tool("files_delete", "Delete a file from this session's folder.",
             {"type": "object", "properties": {"name": _NAME}, "required": ["name"]}, delete),
        Tool("files_list", "List the files in this session's folder with their descriptions.",
             {"type": "object", "properties": {}}, listing),
        Tool("files_grep", "Find lines matching a regular expression (case-insensitive) in this session's files;"
             " glob limits which files, e.g. '*.md' or 'plan*'. Returns file, line number and line.",
             {"type": "object", "properties": {"pattern": {"type": "string"}, "glob": {"type": "string"}},
              "required": ["pattern"]}, grep),
        Tool("files_search", "Find passages in this session's files by meaning.",
             {"type": "object", "properties": {"query": {"type": "string"},
                                               "k": {"type": "integer", "minimum": 1, "maximum": 20}},
              "required": ["query"]}, search),
    ]


def _glob_matches(name: str, glob: str) -> bool:
    name, glob = name.lower(), glob.lower()
    return fnmatch.fnmatchcase(name, glob) or fnmatch.fnmatchcase(name.rsplit("/", 1)[-1], glob)
