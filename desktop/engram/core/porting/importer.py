"""Storing imported conversations: each one a session with its messages and their own times, its
messages queued for the archive (the outbox) in the same transaction, so that a crash mid-import
loses nothing and search finds each conversation as soon as the outbox has archived it.

A session remembers its import key (``sessions.import_key``, migration 11): a conversation that
is already there is left alone, so importing the same export again adds nothing, and a new export
with more conversations adds only those. Each conversation is one transaction: a failure leaves
the ones before it imported and the report says which were not.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engram.core.conversation.archive import ARCHIVE_JOB
from engram.core.conversation.chat_settings import ChatSettings, model_here
from engram.core.conversation.distill import mark_distilled
from engram.core.errors import DatabaseError, DataDirError, EngramError, InvalidInput
from engram.core.porting import chatgpt, claude, engram_json, markdown
from engram.core.porting.conversation import Conversation, Damaged
from engram.core.storage import dialect

FORMATS = {"chatgpt": chatgpt.read, "claude": claude.read, "markdown": markdown.read, "engram": engram_json.read}
READING, ARCHIVING = "reading", "archiving"


@dataclass(frozen=True)
class Progress:
    """How far an import is: reading the file (``done``/``total`` bytes or files), then archiving
    (``done``/``total`` conversations archived into memory)."""

    phase: str
    done: int
    total: int
    imported: int


@dataclass
class ImportReport:
    source: str
    imported: list[tuple[str, str, int]] = field(default_factory=list)   # (session id, title, messages)
    already: int = 0            # conversations imported before: left alone
    empty: int = 0              # conversations without a message to keep
    damaged: list[Damaged] = field(default_factory=list)
    archive_jobs: list[int] = field(default_factory=list)   # this import's, and those left from before
    left_before: int = 0        # archive jobs found pending (an import stopped by a crash): taken up too
    archived: bool = False      # every imported conversation is in memory (searchable)
    said: list[tuple[str, str, int]] = field(default_factory=list)   # (when, session id, message id) of the person's
    profile: list = field(default_factory=list)   # what their words added to the profile (ProfileChange)
    stopped: bool = False       # stopped before the end (by the person, or a full disk); what came in stays

    @property
    def messages(self) -> int:
        return sum(n for _, _, n in self.imported)

    def lines(self) -> list[str]:
        """What happened, in words, for the command line and the window."""
        out = [f"imported {len(self.imported)} conversation(s) with {self.messages} message(s) from {self.source}"]
        if self.already:
            out.append(f"{self.already} conversation(s) were imported before: left as they are")
        if self.empty:
            out.append(f"{self.empty} conversation(s) had no message to keep (only images, tools or nothing)")
        if self.profile:
            out.append(f"{len(self.profile)} line(s) added to your profile from what you said"
                       " (`engram profile show`)")
        if self.left_before:
            out.append(f"{self.left_before} archiving job(s) left waiting before (an import or Engram stopped"
                       " early): they run with these")
        if self.stopped:
            out.append("stopped before the end: import the same file again to add the rest")
        for damaged in self.damaged:
            out.append(f"not imported: {damaged.where}: {damaged.why}")
        return out


def read(source: str, path: Path, progress: Callable[[int, int], None] | None = None):
    """The conversations of a file in one of FORMATS."""
    if source not in FORMATS:
        raise InvalidInput(f"unknown import format {source!r}", hint="use one of: " + ", ".join(FORMATS))
    return FORMATS[source](Path(path), progress)


def import_file(engram, source: str, path: Path, user: str, *, progress: Callable[[Progress], None] | None = None,
                stop: threading.Event | None = None) -> ImportReport:
    """Import a file's conversations for ``user`` and queue their archiving; returns the report."""
    report = ImportReport(source)
    position = [0, 0]                   # (done, total) bytes or files read, as the reader says

    def moved(done: int, total: int) -> None:
        position[:] = done, total
        if progress is not None:
            progress(Progress(READING, done, total, len(report.imported)))

    items = read(source, path, moved)
    try:
        for item in items:
            if stop is not None and stop.is_set():
                report.stopped = True
                break
            if isinstance(item, Damaged):
                report.damaged.append(item)
            elif not store(engram, item, user, report):
                report.stopped = True              # the disk or the database failed: the rest would too
                break
            moved(*position)
    finally:
        items.close()
    learn_profile(engram, report)
    _take_up_left_before(engram, report)
    engram.outbox.wake()
    return report


def learn_profile(engram, report: ImportReport) -> None:
    """The person's imported words feed the profile as a live chat does, oldest first, so that a
    newer statement replaces an older one whatever order the file keeps its conversations in."""
    for _, session_id, message_id in sorted(report.said):
        session = engram.sessions.get(session_id)
        message = engram.sessions.message(message_id)
        report.profile += engram.profile_learning.from_message(session, message, by="import")


def _take_up_left_before(engram, report: ImportReport) -> None:
    """An import killed after storing its conversations left their archiving pending: a second run
    finds them imported before, and must archive them all the same (else they stay unsearchable
    until the window opens). Their jobs join this run's, to be waited for and counted."""
    ours = set(report.archive_jobs)
    left = [job for (job,) in engram.db.query("SELECT id FROM outbox WHERE kind = ? AND state = 'pending'"
                                              " ORDER BY id", (ARCHIVE_JOB,)) if job not in ours]
    report.archive_jobs += left
    report.left_before = len(left)


def store(engram, conversation: Conversation, user: str, report: ImportReport) -> bool:
    """Store one conversation in one transaction; False when the data folder itself failed (a full
    disk, a database locked too long), which the next conversations would meet too."""
    if not conversation.turns:
        report.empty += 1
        return True
    if engram.db.query_one("SELECT 1 FROM sessions WHERE user = ? AND import_key = ?", (user, conversation.key)):
        report.already += 1
        return True
    try:
        with engram.db.transaction() as conn:
            session = engram.sessions.get_or_create(None, user, conversation.title or conversation.turns[0].text,
                                                    created_at=conversation.created_at,
                                                    whole_title=bool(conversation.title))
            conn.execute("UPDATE sessions SET import_key = ? WHERE id = ?", (conversation.key, session.id))
            messages = [engram.sessions.add_message(session.id, t.role, t.text, conn=conn, created_at=t.at)
                        for t in conversation.turns]
            ids = [m.id for m in messages]
            own = _own_settings(engram, session.id, conversation.settings, conn)
            if own.memory:
                report.archive_jobs.append(engram.outbox.enqueue(ARCHIVE_JOB, {"message_ids": ids}, conn))
            else:
                mark_distilled(conn, session.id, ids[-1])
    except EngramError as e:
        report.damaged.append(Damaged(f"conversation {conversation.title or conversation.key!r}", str(e)))
        return not isinstance(e, (DataDirError, DatabaseError))
    report.imported.append((session.id, session.title, len(ids)))
    report.said += [(m.created_at, session.id, m.id) for m in messages if m.role == "user"]
    return True


def _own_settings(engram, session_id: str, settings: dict, conn) -> ChatSettings:
    """A chat's own settings, as its export had them (a model only when its file is here)."""
    own = ChatSettings.from_json(settings)
    if own.model and not model_here(own.model):
        own = ChatSettings(own.memory, own.instructions, "")
    if own != ChatSettings():
        engram.turn_engine.chat_settings.set(session_id, memory=own.memory, instructions=own.instructions,
                                             model=own.model, conn=conn)
    return own


def wait_archived(engram, report: ImportReport, *, progress: Callable[[Progress], None] | None = None,
                  stop: threading.Event | None = None, poll: float = 0.2) -> bool:
    """Wait until the outbox (running on its thread) has archived the import's conversations, or
    one of them failed for good (then ``engram outbox status`` says why); returns whether all are
    archived. Stopping the wait stops nothing: the outbox goes on, now or at the next start."""
    jobs = json.dumps(report.archive_jobs)
    while True:
        states = dict(engram.db.query("SELECT state, count(*) FROM outbox WHERE id IN"
                                      f" (SELECT value FROM {dialect.of(engram.db).ints('?', 'jobs')}) GROUP BY state", (jobs,)))
        pending, failed = states.get("pending", 0), states.get("failed", 0)
        if progress is not None:
            progress(Progress(ARCHIVING, len(report.archive_jobs) - pending, len(report.archive_jobs),
                              len(report.imported)))
        if not pending:
            report.archived = not failed
            return report.archived
        if stop is None:
            time.sleep(poll)
        elif stop.wait(poll):
            return False
