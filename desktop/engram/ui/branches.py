"""Versions of a chat in the window (core/conversation/branches.py): the ‹ 1/2 › pager on the
message where versions part, and editing a message already sent.

Edit puts the message's words back into the input box; sending them starts a new version of the
chat from there (the turn controller sends it), and the version it replaces is kept. Paging swaps
the versions on the disk thread; the window then shows the chat as it is stored.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from engram.core.conversation.branches import Versions


class Pager(QWidget):
    """‹ 2/3 ›: which version of the chat from this message on is shown, and the way to the others."""

    paged = Signal(int)      # the index of the version to show

    def __init__(self, versions: Versions, parent=None):
        super().__init__(parent)
        self.setObjectName("VersionPager")
        self.versions = versions
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(0)
        self.back, self.forward = QToolButton(), QToolButton()
        self.back.setText("‹")
        self.forward.setText("›")
        self.back.setToolTip(self.tr("Show the earlier version"))
        self.forward.setToolTip(self.tr("Show the later version"))
        self.label = QLabel(f"{versions.shown + 1}/{versions.count}")
        self.label.setToolTip(self.tr("Version {shown} of {count}: the chat from here on was edited or answered"
                                      " again; the model sees only the version shown").format(
            shown=versions.shown + 1, count=versions.count))
        self.back.setEnabled(versions.shown > 0)
        self.forward.setEnabled(versions.shown < versions.count - 1)
        self.back.clicked.connect(lambda: self.paged.emit(versions.shown - 1))
        self.forward.clicked.connect(lambda: self.paged.emit(versions.shown + 1))
        for widget in (self.back, self.label, self.forward):
            row.addWidget(widget)


class Branches(QObject):
    changed = Signal(str)     # a session id: another version of it is shown now

    def __init__(self, backend, chat, session: Callable, busy: Callable[[], bool], parent=None):
        """``session``: the open chat's Session or None; ``busy``: whether a reply is streaming."""
        super().__init__(parent)
        self.backend, self.chat, self.session, self.busy = backend, chat, session, busy
        self.editing: int | None = None      # the id of the message being edited
        self.pagers: dict[int, Versions] = {}   # the places shown with a pager, by message id
        chat.view.edit_requested.connect(self.start_edit)

    # -- paging -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read where the open chat has other versions and put pagers there."""
        session = self.session()
        if session is None:
            self._show({})
            return
        self.backend.disk(lambda engram: engram.turn_engine.branches.versions(session.id), returned=self._show)

    def _show(self, versions: dict[int, Versions]) -> None:
        for bubble in self.chat.view.bubbles:
            for pager in bubble.findChildren(Pager):
                pager.deleteLater()
        self.pagers = {}
        for message_id, place in versions.items():
            if (bubble := self.chat.view.find(message_id)) is not None:
                pager = Pager(place, bubble)
                pager.paged.connect(lambda index, place=place: self.page(place, index))
                bubble.header.insertWidget(1, pager)
                self.pagers[message_id] = place

    def page(self, place: Versions, index: int) -> None:
        """Show version ``index`` of the chat from ``place`` on."""
        session, fork = self.session(), place.fork(index)
        if session is None or fork is None or self.busy():
            return
        self.backend.disk(lambda engram: engram.turn_engine.show_version(session.id, fork),
                          returned=lambda _: self.changed.emit(session.id))

    def step(self, delta: int) -> None:
        """The last place with versions (the keyboard's Alt+Left and Alt+Right): the version before or after."""
        shown = [b.key for b in self.chat.view.bubbles if b.key in self.pagers]
        if shown:
            place = self.pagers[shown[-1]]
            self.page(place, place.shown + delta)

    # -- editing ------------------------------------------------------------------------------

    def start_edit(self, bubble) -> None:
        """Put a sent message's words into the input box, to send in its place."""
        if bubble.key is None or self.busy():
            return
        self.editing = bubble.key
        composer = self.chat.composer
        composer.setPlainText(bubble.text)
        composer.moveCursor(QTextCursor.End)
        composer.setFocus()
        self.chat.notice.show_message(
            self.tr("<b>Editing your message.</b> Send it to continue the chat from there in a new version; the"
                    " version shown now is kept (‹ › on the message pages between them)."), "info",
            [(self.tr("Cancel"), self.cancel_edit)])

    def edit_last(self) -> None:
        """Edit the person's last message (the keyboard's Ctrl+E)."""
        mine = [b for b in self.chat.view.bubbles if b.role == "user" and b.key is not None]
        if mine:
            self.start_edit(mine[-1])

    def take_edit(self) -> int | None:
        """The message being edited, if any; editing ends (its words are being sent)."""
        editing, self.editing = self.editing, None
        return editing

    def cancel_edit(self) -> None:
        if self.editing is None:
            return
        self.editing = None
        self.chat.composer.clear()
        self.chat.notice.hide()
