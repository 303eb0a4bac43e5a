"""Everything a person has, written so they can leave with it: their chats (messages and the
chat's folder of files), their memories with where each came from and every change to it, and
their preferences.

Two shapes:

- JSON, one file (``FORMAT``/``VERSION`` say what it is; a new version only ever adds fields)::

    {"format": "engram-export", "version": 1, "exported_at": "...", "user": "...",
     "preferences": {"language": "English", ...},
     "sessions": [{"id", "title", "title_is_custom", "folder", "created_at", "updated_at",
                   "import_key", "settings": {"memory", "instructions", "model"},
                   "messages": [{"id", "role", "content", "status", "created_at"}],
                   "files": [{"name", "text"} or {"name", "not_exported": why}]}],
     "memories": [{"id", "text", "kind", scope..., "importance", "created_at", ..., "source_ids",
                   "source", "pinned", "history": [{"action", "actor", "old_text", "new_text", "at"}]}]}

- Markdown, a folder: ``sessions/<chat folder>.md`` per chat (the format ``engram import markdown``
  reads back, the chat's own settings in its front matter), ``files/<chat folder>/`` with each
  chat's files as they are, and ``memories.md``
  (preferences, then the memories by kind with their provenance and history; memories of kind
  ``message`` are the messages themselves, which are in ``sessions/``).

Written safely: into a temporary file or folder beside the target, renamed into place only when
complete, so a full disk or a crash never leaves a half export that looks whole.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engram.core.errors import DataDirError, EngramError, InvalidInput
from engram.core.files import SESSIONS_DIR, SessionFolder
from engram.core.files.folder import MAX_FOLDER_BYTES
from engram.core.memory.records import Kind, Memory, now_iso
from engram.core.storage import dialect

FORMAT = "engram-export"
VERSION = 1
FORMATS = ("json", "md")
PAGE = 500
KIND_TITLES = {Kind.FACT: "Facts", Kind.PREFERENCE: "Preferences noted", Kind.TASK: "Tasks",
               Kind.EXPERIENCE: "Experiences", Kind.SUMMARY: "Chat summaries", Kind.FILE: "File chunks"}


@dataclass(frozen=True)
class Exported:
    path: Path
    sessions: int
    messages: int
    memories: int


def export(engram, user: str, fmt: str, output: Path,
           progress: Callable[[int, int], None] | None = None) -> Exported:
    """Write ``user``'s everything to ``output`` as ``fmt`` ('json' or 'md'); ``progress(done,
    total)`` counts chats."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown export format {fmt!r}", hint="use json or md")
    output = Path(output).expanduser()
    if fmt == "json":
        if output.is_dir():
            raise InvalidInput(f"{output} is a folder", hint="give the name of the .json file to write")
        with _written(output, folder=False) as temporary:
            with temporary.open("w", encoding="utf-8") as f:
                counts = _write_json(engram, user, f, progress)
                f.flush()
                os.fsync(f.fileno())
    else:
        if output.exists() and (not output.is_dir() or any(output.iterdir())):
            raise InvalidInput(f"{output} exists and is not an empty folder",
                               hint="give a new folder's name; nothing is overwritten")
        with _written(output, folder=True) as temporary:
            counts = _write_markdown(engram, user, temporary, progress)
    return Exported(output, *counts)


@contextmanager
def _written(target: Path, folder: bool) -> Iterator[Path]:
    """A temporary file or folder beside ``target``, renamed to it when the body finished; any
    failure removes it. A full disk or another OS error is a DataDirError saying nothing was written."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if folder:
            temporary = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial"))
        else:
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
            os.close(fd)
            temporary = Path(name)
    except OSError as e:
        raise DataDirError(f"cannot write into {target.parent}: {e.strerror}",
                           hint="choose a folder you can write to") from e
    try:
        yield temporary
        if folder and target.is_dir():
            target.rmdir()             # an empty folder the person made for it
        os.replace(temporary, target)
    except BaseException as e:
        if folder:
            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)
        if isinstance(e, OSError) and not isinstance(e, EngramError):
            raise DataDirError(f"the export to {target} failed: {e.strerror or e}; nothing was written",
                               hint="free some space on that disk (or choose another place), then export again") from e
        raise


# -- what is exported ------------------------------------------------------------------------------

def _sessions(engram, user: str):
    return sorted(engram.sessions.list(user), key=lambda s: (s.created_at, s.id))


def _import_keys(engram, user: str) -> dict[str, str]:
    return dict(engram.db.query("SELECT id, import_key FROM sessions WHERE user = ? AND import_key IS NOT NULL",
                                (user,)))


def _memories(engram, user: str) -> Iterator[tuple[Memory, list[dict]]]:
    """The user's memories, oldest first, each with its history; read a page at a time."""
    after = 0
    while True:
        ids = [i for (i,) in engram.db.query("SELECT id FROM memories WHERE user = ? AND id > ? ORDER BY id LIMIT ?",
                                             (user, after, PAGE))]
        if not ids:
            return
        history: dict[int, list[dict]] = {}
        for memory_id, action, actor, old, new, at in engram.db.query(
                "SELECT memory_id, action, actor, old_text, new_text, at FROM memory_history WHERE user = ?"
                f" AND memory_id IN (SELECT value FROM {dialect.of(engram.db).ints('?', 'page')}) ORDER BY id", (user, json.dumps(ids))):
            history.setdefault(memory_id, []).append(
                {"action": action, "actor": actor, "old_text": old, "new_text": new, "at": at})
        for memory in engram.store.get_many(ids):
            yield memory, history.get(memory.id, [])
        after = ids[-1]


def _files(engram, folder: str) -> Iterator[tuple[str, bytes | None, str]]:
    """(name, bytes or None, why not) of each file in a chat's folder."""
    session_folder = SessionFolder(engram.data_dir / SESSIONS_DIR / folder)
    for entry in session_folder.scan():
        try:
            yield entry.name, session_folder.read_bytes(entry.name, limit=MAX_FOLDER_BYTES), ""
        except EngramError as e:
            yield entry.name, None, e.args[0]


# -- JSON ------------------------------------------------------------------------------------------

def _write_json(engram, user: str, f, progress) -> tuple[int, int, int]:
    def dumps(value) -> str:
        return json.dumps(value, ensure_ascii=False)

    head = {"format": FORMAT, "version": VERSION, "exported_at": now_iso(), "user": user,
            "preferences": engram.preferences.get(user)}
    f.write(dumps(head)[:-1] + ',\n "sessions": [')
    sessions, keys, messages = _sessions(engram, user), _import_keys(engram, user), 0
    for n, session in enumerate(sessions):
        said = [m.to_json() for m in engram.sessions.messages(session.id)]
        messages += len(said)
        files = []
        for name, data, why in _files(engram, session.folder):
            try:
                files.append({"name": name, "text": data.decode("utf-8")} if data is not None
                             else {"name": name, "not_exported": why})
            except UnicodeDecodeError:
                files.append({"name": name, "not_exported": "not UTF-8 text (the markdown export copies it as it is)"})
        own = engram.turn_engine.chat_settings.get(session.id).to_json()
        f.write(("," if n else "") + "\n  " + dumps({**session.to_json(), "import_key": keys.get(session.id),
                                                     "settings": own, "messages": said, "files": files}))
        if progress is not None:
            progress(n + 1, len(sessions))
    f.write('\n ],\n "memories": [')
    memories = 0
    for memory, history in _memories(engram, user):
        f.write(("," if memories else "") + "\n  " + dumps({**memory.to_json(), "history": history}))
        memories += 1
    f.write("\n ]\n}\n")
    return len(sessions), messages, memories


# -- markdown --------------------------------------------------------------------------------------

def _write_markdown(engram, user: str, folder: Path, progress) -> tuple[int, int, int]:
    sessions, messages = _sessions(engram, user), 0
    (folder / "sessions").mkdir()
    titles = {}
    for n, session in enumerate(sessions):
        titles[session.id] = session.title or session.id
        own = engram.turn_engine.chat_settings.get(session.id)
        (folder / "sessions" / f"{session.folder}.md").write_text(
            engram.sessions.export_markdown(session.id, settings=own), encoding="utf-8")
        messages += engram.sessions.count_messages(session.id)
        for name, data, _ in _files(engram, session.folder):
            if data is not None:
                path = folder / "files" / session.folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        if progress is not None:
            progress(n + 1, len(sessions))
    memories = 0
    with (folder / "memories.md").open("w", encoding="utf-8") as f:
        f.write(f"# Memories of {user}\n\nExported {now_iso()} by Engram ({FORMAT} {VERSION}).\n\n## Preferences\n\n")
        preferences = engram.preferences.get(user)
        f.write("".join(f"- {key}: {json.dumps(value, ensure_ascii=False)}\n" for key, value in preferences.items())
                or "(none)\n")
        by_kind: dict[Kind, list[str]] = {}
        archived = 0
        for memory, history in _memories(engram, user):
            memories += 1
            if memory.kind == Kind.MESSAGE:
                archived += 1
            else:
                by_kind.setdefault(memory.kind, []).append(_memory_markdown(memory, history, titles))
        for kind, title in KIND_TITLES.items():
            if kind in by_kind:
                f.write(f"\n## {title} ({len(by_kind[kind])})\n\n" + "\n".join(by_kind[kind]))
        f.write(f"\n## Messages ({archived})\n\nEvery message of every chat is also a memory of kind `message`;"
                " their text is in `sessions/`.\n")
    return len(sessions), messages, memories


def _memory_markdown(memory: Memory, history: list[dict], titles: dict[str, str]) -> str:
    marks = [f"importance {memory.importance:g}"] + (["pinned"] if memory.pinned else []) + \
        ([f"superseded by #{memory.superseded_by}"] if memory.superseded_by else [])
    lines = [f"### #{memory.id}", "", memory.text, "",
             f"- {memory.kind.value}, " + ", ".join(marks),
             f"- created {memory.created_at}, updated {memory.updated_at}"]
    session = memory.scope.session
    if session or memory.source_ids:
        where = f"chat \"{titles.get(session, session)}\" (`{session}`)" if session else "no chat"
        said = ", ".join(f"#{i}" for i in memory.source_ids)
        lines.append(f"- from: {where}" + (f", messages {said}" if said else ""))
    if memory.source:
        lines.append(f"- source: `{json.dumps(memory.source, ensure_ascii=False)}`")
    for change in history:
        text = change["new_text"] if change["action"] != "delete" else None
        before = f"{json.dumps(change['old_text'], ensure_ascii=False)} → " if change["old_text"] else ""
        lines.append(f"- {change['at']} {change['action']} by {change['actor']}"
                     + (f": {before}{json.dumps(text, ensure_ascii=False)}" if text else ""))
    return "\n".join(lines) + "\n"
