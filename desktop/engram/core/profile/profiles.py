"""Each person's profile file in the data folder, read fresh and changed one whole file at a time.

The file is the truth: it is parsed again whenever it changed on disk (a hand edit reaches the next
turn without a watcher), and every change Engram makes reads the file as it is now, changes it and
writes it back atomically, so neither a crash nor a full disk leaves half a file. A newer line with
the same slot as an older one replaces it; the older one moves under "Earlier" with the date it
stopped being true. Each change is returned as a ``ProfileChange`` the window can show ("Noted")
and undo.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from engram.core.errors import DataDirError, InvalidInput, NotFound
from engram.core.profile.document import CATEGORIES, EARLIER, PROPOSED, ProfileDocument, ProfileLine, parse, render
from engram.core.memory.records import wording
from engram.core.storage.atomic import write_text_atomic

PROFILES_DIR = "profiles"
MAX_LINE_CHARS = 300          # a profile line is a sentence; longer text belongs in a note or a file
MAX_FILE_BYTES = 1 << 20      # a profile file larger than this is not read (it would not fit any prompt)
_PLAIN_USER = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class ProfileChange:
    """What one change did: ``action`` noted | proposed | accepted | edited | removed, the line as
    it is now, and the lines it replaced (now under Earlier)."""

    action: str
    line: ProfileLine
    replaced: tuple[ProfileLine, ...] = ()
    user: str = ""

    def to_json(self) -> dict:
        return {"action": self.action, "id": self.line.id, "text": self.line.text, "category": self.line.category,
                "replaced": [{"id": r.id, "text": r.text} for r in self.replaced]}


@dataclass
class _Cached:
    stamp: tuple[int, int]
    doc: ProfileDocument = field(default_factory=ProfileDocument)


class Profiles:
    """The profile files of one data folder (``<data>/profiles/<user>.md``)."""

    def __init__(self, folder: Path, *, language: Callable[[], str] = lambda: "en",
                 clean: Callable[[str], str] | None = None,
                 set_preference: Callable[[str, str, object], None] | None = None):
        self.folder = folder
        self.language = language            # of the headings in a file Engram writes anew
        self.clean = clean                  # sensitive-detail masking, when the person chose it
        self.set_preference = set_preference   # (user, key, value or None): lines that set a reply preference
        self._lock = threading.RLock()
        self._cache: dict[str, _Cached] = {}

    def path(self, user: str) -> Path:
        """The person's file: their name when it is a plain one, else a name made from it (any user
        name is safe: none can reach outside the folder)."""
        name = user if _PLAIN_USER.fullmatch(user) else "user-" + hashlib.sha256(user.encode()).hexdigest()[:16]
        return self.folder / f"{name}.md"

    def read(self, user: str) -> ProfileDocument:
        """The profile as the file says now; empty when there is none. A file that cannot be read
        as text raises DataDirError: a prompt without the person's allergy must not pass for one with it."""
        path = self.path(user)
        try:
            stat = path.stat()
        except FileNotFoundError:
            return ProfileDocument()
        except OSError as e:
            raise DataDirError(f"the profile file {path} cannot be read: {e.strerror}") from e
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(user)
            if cached is not None and cached.stamp == stamp:
                return cached.doc
            if stat.st_size > MAX_FILE_BYTES:
                raise DataDirError(f"the profile file {path} is {stat.st_size:,} bytes; the limit is {MAX_FILE_BYTES:,}",
                                   hint="keep it to the lines that matter in every chat; move the rest to a note")
            try:
                text = path.read_bytes().decode("utf-8-sig")
            except UnicodeDecodeError as e:
                raise DataDirError(f"the profile file {path} is not UTF-8 text (byte {e.start})",
                                   hint="save it as UTF-8 in your editor") from e
            except OSError as e:
                raise DataDirError(f"the profile file {path} cannot be read: {e.strerror}") from e
            doc = parse(text)
            self._cache[user] = _Cached(stamp, doc)
            return doc

    def ensure_file(self, user: str) -> Path:
        """The person's file, written first (its title and how to edit it) when there is none yet:
        to open in an editor."""
        path = self.path(user)
        with self._lock:
            if not path.exists():
                try:
                    write_text_atomic(path, render(ProfileDocument(), self.language()))
                except OSError as e:
                    raise DataDirError(f"the profile file {path} could not be written: {e.strerror}",
                                       hint="check the data folder's permissions") from e
        return path

    def active(self, user: str) -> list[ProfileLine]:
        return self.read(user).active()

    def line(self, user: str, line_id: int) -> ProfileLine:
        return _find(self.read(user).numbered(), line_id)

    # -- changes -------------------------------------------------------------------------------

    def note(self, user: str, line: ProfileLine, replaces: int = 0) -> ProfileChange | None:
        """Add a line in use at once, replacing the lines with its slot (and line ``replaces``);
        None when the profile already says exactly this."""
        return self._add(user, line, replaces, propose=False)

    def propose(self, user: str, line: ProfileLine, replaces: int = 0) -> ProfileChange | None:
        """Put a line in the review list ("Waiting for your OK"); None when it is there or in use."""
        return self._add(user, line, replaces, propose=True)

    def accept(self, user: str, line_id: int) -> ProfileChange:
        """A proposal taken into use, replacing the lines with its slot."""
        def change(doc: ProfileDocument) -> ProfileChange:
            line = _find(doc, line_id)
            if line.category != PROPOSED:
                raise InvalidInput(f"profile line #{line_id} is not waiting for an OK")
            doc.lines.remove(line)
            home = line.proposed_for if line.proposed_for in CATEGORIES else "other"
            return _added(doc, replace(line, category=home, proposed_for=""), "accepted", user)
        return self._change(user, change)

    def edit(self, user: str, line_id: int, text: str, *, category: str | None = None) -> ProfileChange:
        """New words for a line (the person's own edit: it is theirs from now on)."""
        text = self._checked(text)

        def change(doc: ProfileDocument) -> ProfileChange:
            line = _find(doc, line_id)
            edited = replace(line, text=text, category=category or line.category, by="hand")
            doc.lines[doc.lines.index(line)] = edited
            return ProfileChange("edited", edited, user=user)
        return self._change(user, change)

    def remove(self, user: str, line_id: int) -> ProfileChange:
        def change(doc: ProfileDocument) -> ProfileChange:
            line = _find(doc, line_id)
            doc.lines.remove(line)
            return ProfileChange("removed", line, user=user)
        return self._change(user, change)

    def move(self, user: str, line_id: int, steps: int) -> ProfileChange:
        """Move a line up (negative) or down among the lines of its heading: first is most important."""
        def change(doc: ProfileDocument) -> ProfileChange:
            line = _find(doc, line_id)
            peers = [i for i, other in enumerate(doc.lines) if other.category == line.category]
            at = peers.index(doc.lines.index(line))
            target = peers[min(len(peers) - 1, max(0, at + steps))]
            doc.lines.remove(line)
            doc.lines.insert(target, line)
            return ProfileChange("moved", line, user=user)
        return self._change(user, change)

    def undo(self, done: ProfileChange) -> None:
        """Take back a change Engram made (the notice's Undo): the line goes, the lines it replaced
        come back as they were. Lines changed since by hand are left as they are now."""
        def change(doc: ProfileDocument) -> ProfileChange:
            current = next((line for line in doc.lines if line.id == done.line.id), None)
            if current is not None:
                doc.lines.remove(current)
            for old in done.replaced:
                at = next((i for i, line in enumerate(doc.lines) if line.id == old.id), None)
                if at is not None:
                    doc.lines[at] = old
            return done
        self._change(done.user, change)

    def remove_lines(self, user: str, line_ids: list[int]) -> list[ProfileLine]:
        """Remove these lines wherever they are, proposals and history too (forget everywhere)."""
        def change(doc: ProfileDocument) -> list[ProfileLine]:
            gone = [line for line in doc.lines if line.id in line_ids]
            doc.lines = [line for line in doc.lines if line.id not in line_ids]
            return gone
        return self._change(user, change) if line_ids else []

    def _add(self, user: str, line: ProfileLine, replaces: int, *, propose: bool) -> ProfileChange | None:
        text = self._checked(line.text)
        if line.category in (PROPOSED, EARLIER):
            raise InvalidInput(f"{line.category!r} is not a category a line can be added to")
        line = replace(line, text=text, added=line.added or date.today().isoformat())

        def change(doc: ProfileDocument) -> ProfileChange | None:
            if replaces:
                nonlocal line
                old = _find(doc, replaces)
                if not old.slot:            # a line written by hand: it gets a slot to be replaced by
                    doc.lines[doc.lines.index(old)] = old = replace(old, slot=f"line:{old.id}")
                line = replace(line, slot=old.slot)
            same = _wording(text)
            if any(_wording(other.text) == same for other in doc.lines if other.category != EARLIER):
                return None
            if propose:
                proposal = replace(line, category=PROPOSED, proposed_for=line.category, id=doc.next_id)
                doc.lines.append(proposal)
                doc.next_id += 1
                return ProfileChange("proposed", proposal, user=user)
            return _added(doc, line, "noted", user)
        return self._change(user, change)

    def _checked(self, text: str) -> str:
        if not isinstance(text, str) or not " ".join(text.split()):
            raise InvalidInput("a profile line needs some words")
        text = " ".join(text.split())
        if len(text) > MAX_LINE_CHARS:
            raise InvalidInput(f"a profile line is at most {MAX_LINE_CHARS} characters; this one has {len(text)}",
                               hint="keep it to one short sentence")
        return self.clean(text) if self.clean else text

    def _change(self, user: str, change: Callable):
        """Read the file as it is now, apply ``change``, write the whole file back (numbered)."""
        with self._lock:
            doc = self.read(user).numbered()           # a copy: the cached document stays as read
            before = _preferences(doc)
            result = change(doc)
            if result is None or result == []:
                return result
            path = self.path(user)
            try:
                write_text_atomic(path, render(doc.numbered(), self.language()))
            except OSError as e:
                raise DataDirError(f"the profile file {path} could not be written: {e.strerror}",
                                   hint="free some disk space or check the data folder's permissions") from e
            self._cache.pop(user, None)
            after = _preferences(doc)
            if self.set_preference is not None:
                for key in before.keys() | after.keys():
                    if before.get(key) != after.get(key):
                        self.set_preference(user, key, after.get(key))
            return result


def _added(doc: ProfileDocument, line: ProfileLine, action: str, user: str) -> ProfileChange:
    """Put ``line`` in use: after the lines of its category, replacing those with its slot."""
    today = date.today().isoformat()
    replaced = tuple(old for old in doc.lines if line.slot and old.slot == line.slot
                     and old.category not in (PROPOSED, EARLIER))
    for old in replaced:
        doc.lines[doc.lines.index(old)] = replace(old, category=EARLIER, until=today)
    line = replace(line, id=line.id or doc.next_id)
    doc.next_id = max(doc.next_id, line.id + 1)
    same = [i for i, other in enumerate(doc.lines) if other.category == line.category]
    doc.lines.insert(same[-1] + 1 if same else len(doc.lines), line)
    return ProfileChange(action, line, replaced, user)


def _preferences(doc: ProfileDocument) -> dict:
    """The reply preferences the lines in use set (a later line wins)."""
    return {key: value for line in doc.active() for key, value in line.preference.items()}


def _find(doc: ProfileDocument, line_id: int) -> ProfileLine:
    found = next((line for line in doc.lines if line.id == line_id), None)
    if found is None:
        raise NotFound(f"the profile has no line #{line_id}", hint="it may have been edited by hand meanwhile")
    return found


def _wording(text: str) -> str:
    """Two lines that say the same, case, spacing and a closing full stop aside."""
    return wording(text).rstrip(".。!！")

