"""Under a reply: what the person's message added to their profile, as ChatGPT's "Memory updated"
says it. "Noted: Allergic to peanuts." with Undo and Edit; for a line waiting for an OK (learning
set to ask first), Accept and Reject; what the message replaced is named ("instead of …"). A
learning that failed says so here too. The actions run through the Profile tab, on the disk thread;
the notice says what they did, or why not.

Chats opened again show their notes from the turn records: with Edit only, since the change
itself (what Undo needs) was the turn's."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from engram.core.errors import EngramError
from engram.core.profile.document import ProfileLine
from engram.core.profile.profiles import ProfileChange


def changes_of(record) -> tuple[list[ProfileChange], str]:
    """The profile changes a stored turn record names (for a chat opened again), and its problem."""
    profile = record.recall.get("profile") if isinstance(getattr(record, "recall", None), dict) else None
    if not isinstance(profile, dict):
        return [], ""
    changes = []
    for item in profile.get("noted") or []:
        if isinstance(item, dict) and isinstance(item.get("text"), str) and isinstance(item.get("id"), int):
            replaced = tuple(ProfileLine(str(old.get("text", "")), id=int(old.get("id", 0)))
                             for old in item.get("replaced") or [] if isinstance(old, dict))
            changes.append(ProfileChange(str(item.get("action", "noted")),
                                         ProfileLine(item["text"], str(item.get("category", "other")), id=item["id"]),
                                         replaced))
    return changes, str(profile.get("problem") or "")


class NotedRow(QWidget):
    """One change: its words, and what can be done with it now."""

    def __init__(self, notice: NotedNotice, change: ProfileChange, live: bool):
        super().__init__()
        self.notice, self.change = notice, change
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.label = QLabel()
        self.label.setObjectName("NotedText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.RichText)
        row.addWidget(self.label, 1)
        self.buttons: dict[str, QToolButton] = {}
        for name, label, tip in (
                ("Accept", self.tr("Accept"), self.tr("Keep this in mind in every chat")),
                ("Reject", self.tr("Reject"), self.tr("Drop it: Engram does not keep this in mind")),
                ("Undo", self.tr("Undo"), self.tr("Take this back out of your profile")),
                ("Edit", self.tr("Edit"), self.tr("Change it in the Profile tab"))):
            button = QToolButton()
            button.setText(label)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, n=name: self._act(n))
            row.addWidget(button, 0, Qt.AlignTop)
            self.buttons[name] = button
        if change.action == "proposed":
            self.show_state("proposed", live)
        else:
            self.show_state("noted", live)

    def show_state(self, state: str, live: bool = True, why: str = "") -> None:
        text = html.escape(self.change.line.text)
        words = {"noted": self.tr("<b>Noted:</b> {text}"),
                 "proposed": self.tr("<b>Waiting for your OK:</b> {text}"),
                 "accepted": self.tr("<b>Noted:</b> {text}"),
                 "undone": self.tr("<s>{text}</s> (taken back)"),
                 "rejected": self.tr("<s>{text}</s> (not noted)")}[state].format(text=text)
        if self.change.replaced and state in ("noted", "accepted"):
            words += " " + html.escape(self.tr("(instead of: {old})").format(
                old="; ".join(old.text for old in self.change.replaced)))
        if why:
            words += f"<br><span style='color:#c0392b'>{html.escape(why)}</span>"
        self.label.setText(words)
        self.state = state
        visible = {"noted": {"Undo", "Edit"} if live else {"Edit"}, "proposed": {"Accept", "Reject", "Edit"},
                   "accepted": {"Edit"}, "undone": set(), "rejected": set()}[state]
        if not live and state == "proposed":
            visible = {"Edit"}
        for name, button in self.buttons.items():
            button.setVisible(name in visible)
            button.setEnabled(True)
        self.notice.restyle()

    def _act(self, name: str) -> None:
        profile, change = self.notice.profile, self.change
        if name == "Edit":
            self.notice.edit_requested.emit(change.line.id)
            return
        for button in self.buttons.values():
            button.setEnabled(False)

        def failed(error):
            self.show_state(self.state, True, EngramError.message_of(error))

        if name == "Undo":
            profile.undo(change, done=lambda _: self.show_state("undone"), failed=failed)
        elif name == "Accept":
            profile.accept(change.line.id, change.line.text, done=lambda _: self.show_state("accepted"),
                           failed=failed)
        elif name == "Reject":
            profile.remove(change.line.id, change.line.text, done=lambda _: self.show_state("rejected"),
                           failed=failed)


class NotedNotice(QFrame):
    """The changes one message made to the profile (``live``: this turn's own, which can be undone)."""

    edit_requested = Signal(int)       # a line's id, to edit in the Profile tab

    def __init__(self, profile, changes: list[ProfileChange], problem: str = "", live: bool = True, parent=None):
        super().__init__(parent)
        self.profile = profile
        self.setObjectName("Noted")
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 4, 4, 4)
        column.setSpacing(0)
        self.rows: list[NotedRow] = []
        for change in changes:
            self.rows.append(NotedRow(self, change, live))
            column.addWidget(self.rows[-1])
        self.restyle()
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setObjectName("NotedProblem")
        if problem:
            self.problem.setText(self.tr("Not noted in your profile: {why}").format(why=problem))
            column.addWidget(self.problem)
        else:
            self.problem.hide()

    def restyle(self) -> None:
        """Amber while a line waits for an OK, green once noted, grey when all were taken back."""
        states = {row.state for row in self.rows if hasattr(row, "state")}
        state = ("proposed" if "proposed" in states else "noted" if states & {"noted", "accepted"}
                 else "done" if states else "noted")
        if self.property("state") != state:
            self.setProperty("state", state)
            self.style().unpolish(self)
            self.style().polish(self)

    def text(self) -> str:
        """What the notice says, as plain text (for tests and screen readers)."""
        parts = [row.label.text() for row in self.rows] + ([self.problem.text()] if self.problem.text() else [])
        return html.unescape(re.sub(r"<[^>]+>", "", " ".join(parts)))
