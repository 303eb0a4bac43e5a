"""Documents attached to the open chat: dropped on it or chosen with the paperclip (a chat not
started yet is made for them). Markdown and text files go into the chat's folder as they are.

The copy into the chat's folder runs on the disk thread (``Documents.add``), the conversion on the
outbox's; this object only brings their news to the GUI thread: the status bar shows the pages
converted so far, the chat's notice offers Cancel while a long document converts and says why a
document could not be converted.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from engram.core.errors import EngramError
from engram.core.files.catalog import PROBLEM
from engram.core.files.formats import SOURCES_DIR
from engram.core.files.web import is_url


class Attachments(QObject):
    progressed = Signal(str, str, int, int)     # folder, source name, done, total (-1: ended)
    file_changed = Signal(object)               # a FileEvent
    session_made = Signal(object)               # the Session made for documents dropped on a new chat

    def __init__(self, backend, chat, status, session: Callable, parent=None):
        """``session``: the open chat's session, or None (read when documents arrive)."""
        super().__init__(parent)
        self.backend, self.chat, self.status, self.session = backend, chat, status, session
        self.engram = None
        self._offering: tuple[str, str] | None = None     # the conversion whose Cancel the notice shows
        chat.files_dropped.connect(self.add)
        self.progressed.connect(self._show_progress)
        self.file_changed.connect(self._show_outcome)

    def attach(self, engram) -> None:
        """Hear the conversions of this data folder (their threads emit; Qt delivers here)."""
        self.engram = engram
        engram.documents.subscribe(self.progressed.emit)
        engram.files.subscribe(self.file_changed.emit)

    def add(self, paths: list[str]) -> None:
        session = self.session()
        if self.engram is None:
            self.chat.notice.show_message(self.tr("Engram is still starting; attach the documents again in a moment."))
            return

        def add_each(engram):
            chat = session or engram.sessions.get_or_create(None, engram.user)
            added, refused = [], []
            for path in paths:
                try:
                    added.append(engram.documents.add_url(chat.folder, path) if is_url(path)
                                 else engram.documents.add(chat.folder, path))
                except EngramError as e:
                    refused.append(f"{Path(path).name}: {e.message}")
            return chat, added, refused

        self.backend.disk(add_each, returned=lambda result: self._added(result, made=session is None))

    def _added(self, result, made: bool) -> None:
        chat, added, refused = result
        if made:
            self.session_made.emit(chat)
        if refused:
            self.chat.notice.show_message(
                self.tr("<b>Not attached:</b> {why}").format(why="<br>".join(html.escape(r) for r in refused)),
                "warning")
        converting = [name.rsplit("/", 1)[-1] for name in added if name.startswith(f"{SOURCES_DIR}/")]
        if converting:
            self.status.showMessage(self.tr("Attached {names}; converting…").format(names=", ".join(converting)), 5000)
        elif added:                     # text and markdown files: in the folder as they are
            self.status.showMessage(self.tr("Added {names} to this chat's files").format(names=", ".join(added)), 5000)

    def _show_progress(self, folder: str, name: str, done: int, total: int) -> None:
        short = name.rsplit("/", 1)[-1]
        if done < 0:
            if self._offering == (folder, name):
                self.chat.notice.hide()
                self._offering = None
            return
        self.status.showMessage(self.tr("Converting {name}: {done} of {total}").format(name=short, done=done,
                                                                                        total=total), 3000)
        if total >= 20 and done == 1:      # a long one: offer to stop it
            engram, self._offering = self.engram, (folder, name)
            self.chat.notice.show_message(
                self.tr("Converting <b>{name}</b> ({total} pages)…").format(name=html.escape(short), total=total),
                "info", [(self.tr("Cancel"), lambda: engram.documents.cancel(folder, name))])

    def _show_outcome(self, event) -> None:
        if not event.name.startswith(f"{SOURCES_DIR}/") or self.session() is None \
                or event.folder != self.session().folder:
            return
        short = event.name.rsplit("/", 1)[-1]
        if event.status.status == PROBLEM:
            self._offering = None
            self.chat.notice.show_message(self.tr("<b>{name} was not converted:</b> {why}").format(
                name=html.escape(short), why=html.escape(event.status.detail)), "warning")
        elif event.status.description and not event.status.detail.startswith("waiting"):
            self.status.showMessage(f"{short}: {event.status.description}", 8000)
