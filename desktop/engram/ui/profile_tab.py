"""The Profile tab: what Engram keeps in mind about the person in every chat (core/profile/), as
the markdown file says it, grouped under its headings, each line with where it came from.

Lines can be edited in place, deleted and moved up or down (first is most important); proposals
("Waiting for your OK") accepted or rejected; "Earlier" lines (what newer ones replaced) are shown
folded, greyed, with the date they stopped being true. The file stays the truth: every action reads
it as it is now, on the disk thread, and a line changed meanwhile by hand is not touched. A
QFileSystemWatcher on the file, its folder and the data folder (editors replace files, and the
folder appears with the first line) makes a hand edit or a turn's note show within a second.
"""

from __future__ import annotations

import html
import os

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QFileSystemWatcher, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea,
                               QSizePolicy, QToolButton, QVBoxLayout, QWidget)

from engram.core.errors import EngramError, NotFound
from engram.core.memory.sensitive import mask_error
from engram.core.profile.document import CATEGORIES, EARLIER, PROPOSED, ProfileDocument, ProfileLine
from engram.ui.notice import Notice, explain

REFRESH_MS = 150          # a burst of file events (an editor's save) reads the file once
# The headings Engram knows, as the window names them (core/profile/document.py HEADINGS); the
# person's own headings are shown as they wrote them.
HEADING_NAMES = {"health": QT_TRANSLATE_NOOP("ProfileTab", "Health"),
                 "identity": QT_TRANSLATE_NOOP("ProfileTab", "Who I am"),
                 "people": QT_TRANSLATE_NOOP("ProfileTab", "Family and people"),
                 "diet": QT_TRANSLATE_NOOP("ProfileTab", "Food"),
                 "limits": QT_TRANSLATE_NOOP("ProfileTab", "Fears and limits"),
                 "style": QT_TRANSLATE_NOOP("ProfileTab", "How to answer me"),
                 "commitments": QT_TRANSLATE_NOOP("ProfileTab", "Commitments and deadlines"),
                 "other": QT_TRANSLATE_NOOP("ProfileTab", "Other"),
                 PROPOSED: QT_TRANSLATE_NOOP("ProfileTab", "Waiting for your OK"),
                 EARLIER: QT_TRANSLATE_NOOP("ProfileTab", "Earlier")}


def heading_name(category: str, doc: ProfileDocument | None = None) -> str:
    """A heading as the window shows it: Engram's in the window's language, the person's as written."""
    if category in HEADING_NAMES:
        return QCoreApplication.translate("ProfileTab", HEADING_NAMES[category])
    return (doc.headings.get(category) if doc is not None else None) or category


def source_text(line: ProfileLine) -> str:
    """Where a line came from, in words: the chat (its title then) and the date, or by hand."""
    translate = QCoreApplication.translate
    chat = translate("ProfileTab", "chat “{title}”").format(title=line.source) if line.source else ""
    if line.by in ("rules", "import") and line.session:
        said = (translate("ProfileTab", "You said it in {chat}") if line.by == "rules"
                else translate("ProfileTab", "From imported {chat}")).format(
            chat=chat or translate("ProfileTab", "a chat"))
    elif line.by in ("model", "tool"):
        said = (translate("ProfileTab", "Learned by the model in {chat}").format(chat=chat) if chat
                else translate("ProfileTab", "Learned by the model"))
    elif line.by == "hand":
        said = translate("ProfileTab", "Written by hand")
    elif line.by == "api":
        said = translate("ProfileTab", "Added by another program") + (f" ({line.source})" if line.source else "")
    else:
        said = line.by + (f" ({line.source})" if line.source else "")
    return said + (f" · {line.added}" if line.added else "")


class LineRow(QFrame):
    """One line: its words (or, while edited, a field), where it came from, and its actions."""

    def __init__(self, tab: ProfileTab, line: ProfileLine, first: bool, last: bool):
        super().__init__()
        self.tab, self.line = tab, line
        self.setObjectName("ProfileLine")
        self.setProperty("state", line.category if line.category in (PROPOSED, EARLIER) else "active")
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 5, 4, 5)
        column.setSpacing(1)
        top = QHBoxLayout()
        top.setSpacing(2)
        self.text = QLabel(line.text)
        self.text.setTextFormat(Qt.PlainText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.text.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        top.addWidget(self.text, 1)
        self.buttons: dict[str, QToolButton] = {}        # by their English names
        for name, label, tip, action in self._actions(line, first, last):
            button = QToolButton()
            button.setText(label)
            button.setToolTip(tip)
            button.clicked.connect(action)
            top.addWidget(button, 0, Qt.AlignTop)
            self.buttons[name] = button
        # Greyed rather than gone at the ends of a heading, so the buttons stand in one column.
        if "Up" in self.buttons:
            self.buttons["Up"].setEnabled(not first)
            self.buttons["Down"].setEnabled(not last)
        column.addLayout(top)
        self.editor_row = QWidget()
        self.editor_row.hide()
        column.addWidget(self.editor_row)
        self.source = QLabel()
        self.source.setObjectName("ProfileSource")
        self.source.setWordWrap(True)
        self.source.setTextFormat(Qt.RichText)
        self.source.linkActivated.connect(lambda _: tab.jump_requested.emit(line.session, line.message))
        self.source.setText(self._where_from(line))
        column.addWidget(self.source)
        self.editor: QLineEdit | None = None
        self.category: QComboBox | None = None

    def _actions(self, line: ProfileLine, first: bool, last: bool):
        tab, line_id, text = self.tab, line.id, line.text
        if line.category == EARLIER:
            return [("Delete", "✕", self.tr("Delete this line from the history"), lambda: tab.remove(line_id, text))]
        actions = []
        if line.category == PROPOSED:
            actions += [("Accept", self.tr("Accept"), self.tr("Use this line in every chat from now on"),
                         lambda: tab.accept(line_id, text)),
                        ("Reject", self.tr("Reject"), self.tr("Drop this line; it is not used"),
                         lambda: tab.remove(line_id, text))]
        actions.append(("Edit", self.tr("Edit"), self.tr("Change the words of this line"),
                        lambda: tab.edit_line(line_id, reload=False)))
        if line.category != PROPOSED:
            actions += [("Up", "↑", self.tr("Move up: more important"), lambda: tab.move(line_id, text, -1)),
                        ("Down", "↓", self.tr("Move down: less important"), lambda: tab.move(line_id, text, 1)),
                        ("Delete", "✕", self.tr("Delete this line: Engram no longer keeps it in mind"),
                         lambda: tab.remove(line_id, text))]
        return actions

    def _where_from(self, line: ProfileLine) -> str:
        said = html.escape(source_text(line))
        if line.session:                  # the chat it was said in, one click away
            said = f"<a href='chat' style='color:palette(dark)'>{said}</a>"
        if line.category == EARLIER and line.until:
            said = html.escape(self.tr("until {date}").format(date=line.until)) + " · " + said
        return f"<span style='font-size:9pt'>{said}</span>"

    # -- editing in place ------------------------------------------------------------------------

    def start_editing(self) -> None:
        if self.editor is not None:
            self.editor.setFocus()
            return
        column = QVBoxLayout(self.editor_row)
        column.setContentsMargins(0, 2, 0, 2)
        column.setSpacing(4)
        self.editor = QLineEdit(self.line.text)
        self.editor.setMaxLength(300)
        self.editor.returnPressed.connect(self.save)
        column.addWidget(self.editor)
        row = QHBoxLayout()
        column.addLayout(row)
        if self.line.category not in (PROPOSED, EARLIER):
            self.category = QComboBox()
            for category in CATEGORIES:
                self.category.addItem(heading_name(category), category)
            if self.category.findData(self.line.category) < 0:        # the person's own heading
                self.category.addItem(heading_name(self.line.category, self.tab.doc), self.line.category)
            self.category.setCurrentIndex(self.category.findData(self.line.category))
            self.category.setToolTip(self.tr("The heading this line is under"))
            self.category.setSizeAdjustPolicy(QComboBox.AdjustToContents)
            row.addWidget(self.category)
        row.addStretch(1)
        save = QPushButton(self.tr("Save"))
        save.setObjectName("Primary")
        save.clicked.connect(self.save)
        cancel = QPushButton(self.tr("Cancel"))
        cancel.clicked.connect(self.tab.stop_editing)
        row.addWidget(save)
        row.addWidget(cancel)
        self.text.hide()
        for button in self.buttons.values():
            button.hide()
        self.editor_row.show()
        self.editor.setFocus()
        self.editor.selectAll()

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Escape and self.editor is not None:
            self.tab.stop_editing()
            return
        super().keyPressEvent(event)

    def save(self) -> None:
        if self.editor is None:
            return
        category = self.category.currentData() if self.category is not None else None
        self.tab.edit(self.line.id, self.line.text, self.editor.text(),
                      category if category != self.line.category else None)


class ProfileTab(QWidget):
    jump_requested = Signal(str, int)      # the chat and message a line was learned from
    changed = Signal()                     # this tab changed the profile
    waiting = Signal(int)                  # how many lines wait for an OK, whenever the file is read
    loaded = Signal()                      # the lines shown are the file's as read now

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.doc: ProfileDocument | None = None
        self.path = ""                 # the person's profile file
        self.data_dir = ""
        self.rows: dict[int, LineRow] = {}
        self.editing: int | None = None       # the id of the line edited in place
        self._pending: ProfileDocument | None = None   # read while a line was edited: shown after
        self._edit_when_loaded: int | None = None
        self.show_earlier = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        top = QHBoxLayout()
        intro = QLabel(self.tr("What Engram keeps in mind about you in every chat, the most important first."))
        intro.setWordWrap(True)
        intro.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        top.addWidget(intro, 1)
        self.open_button = QPushButton(self.tr("Open file"))
        self.open_button.setToolTip(self.tr("Open your profile's markdown file in your editor"))
        self.open_button.clicked.connect(self.open_file)
        top.addWidget(self.open_button, 0, Qt.AlignTop)
        layout.addLayout(top)
        self.hint = QLabel(self.tr("You can edit the file by hand too: what you change there is used from your next"
                                   " message on, and shows here at once."))
        self.hint.setObjectName("Muted")
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.file_notice = Notice()        # no program opens .md files: the path, to copy
        layout.addWidget(self.file_notice)
        self.unreadable = Notice(closable=False)     # the file cannot be read (until it can)
        layout.addWidget(self.unreadable)
        self.problem = Notice()            # an action failed
        layout.addWidget(self.problem)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.inner = QWidget()
        self.inner.setObjectName("ProfileLines")
        self.column = QVBoxLayout(self.inner)
        self.column.setContentsMargins(0, 4, 0, 4)
        self.column.setSpacing(2)
        self.scroll.setWidget(self.inner)
        layout.addWidget(self.scroll, 1)
        self.empty = QLabel()
        bottom = QHBoxLayout()
        self.status = QLabel()               # what the last action did
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        bottom.addWidget(self.status, 1)
        self.undo_button = QPushButton(self.tr("Undo"))     # a line deleted here, back
        self.undo_button.hide()
        bottom.addWidget(self.undo_button)
        layout.addLayout(bottom)
        self._removed: ProfileLine | None = None
        self.undo_button.clicked.connect(self.undo_remove)

        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(lambda _: self._soon.start())
        self.watcher.directoryChanged.connect(lambda _: self._soon.start())
        self._soon = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._soon.timeout.connect(self.refresh)
        self._fill(ProfileDocument())

    # -- loading ---------------------------------------------------------------------------------

    def attach(self, engram) -> None:
        """Show this person's profile, and follow its file."""
        self.path = str(engram.profiles.path(engram.user))
        self.data_dir = str(engram.data_dir)
        if watched := self.watcher.files() + self.watcher.directories():     # the data folder moved
            self.watcher.removePaths(watched)
        self.refresh()

    def refresh(self) -> None:
        """Read the file on the disk thread; the list follows."""
        if not self.backend.ready:
            return

        def read(engram):
            path = engram.profiles.path(engram.user)
            watch = [str(p) for p in (path, path.parent, engram.data_dir) if p.exists()]
            try:
                return engram.profiles.read(engram.user).numbered(), watch, None
            except EngramError as e:        # followed all the same: a fixed file shows at once
                return None, watch, e

        self.backend.disk(read, returned=self._read, errored=self._unreadable)

    def _read(self, found) -> None:
        doc, watch, error = found
        self._watch(watch)
        if error is not None:
            self._unreadable(mask_error(error) if self.backend.masks() else error)
            return
        self.unreadable.hide()
        if self.editing is not None:
            self._pending = doc
            return
        self._fill(doc)

    def _watch(self, paths: list[str]) -> None:
        """The file (a replaced one is watched again), its folder, and the data folder until the
        profiles folder exists."""
        folder = os.path.dirname(self.path)
        if folder in paths and self.data_dir in self.watcher.directories():
            self.watcher.removePath(self.data_dir)
            paths = [p for p in paths if p != self.data_dir]
        watched = set(self.watcher.files()) | set(self.watcher.directories())
        if new := [p for p in paths if p not in watched]:
            self.watcher.addPaths(new)

    def _unreadable(self, error) -> None:
        self._fill(ProfileDocument())
        self.unreadable.show_message(self.tr("<b>Your profile cannot be read.</b> {why}").format(why=explain(error)),
                                  "error", [(self.tr("Open file"), self.open_file),
                                            (self.tr("Try again"), self.refresh)])

    def _fill(self, doc: ProfileDocument) -> None:
        self.doc = doc
        self._pending = None
        self.rows = {}
        while self.column.count():
            item = self.column.takeAt(0)
            if (widget := item.widget()) is not None:
                widget.hide()
                widget.deleteLater()
        order = [PROPOSED, *CATEGORIES, *(c for c in doc.headings if c not in CATEGORIES),
                 *(line.category for line in doc.lines)]
        for category in dict.fromkeys(c for c in order if c != EARLIER):
            self._add_group(doc, category)
        self._add_earlier(doc)
        if not doc.lines:
            self.empty = QLabel(self.tr("Nothing yet. Tell Engram about yourself in a chat (“I'm allergic to"
                                        " peanuts”, “Please keep answers short”), or open the file and write a line"
                                        " under a heading."))
            self.empty.setObjectName("Muted")
            self.empty.setWordWrap(True)
            self.column.addWidget(self.empty)
        self.column.addStretch(1)
        self.waiting.emit(sum(1 for line in doc.lines if line.category == PROPOSED))
        self.loaded.emit()
        if self._edit_when_loaded is not None:
            line_id, self._edit_when_loaded = self._edit_when_loaded, None
            self.edit_line(line_id, reload=False)

    def _add_group(self, doc: ProfileDocument, category: str) -> None:
        lines = [line for line in doc.lines if line.category == category]
        if not lines:
            return
        header = QLabel(heading_name(category, doc) + (f"  ({len(lines)})" if category == PROPOSED else ""))
        header.setObjectName("ProfileHeading")
        header.setProperty("state", "proposed" if category == PROPOSED else "")
        self.column.addWidget(header)
        if category == PROPOSED:
            note = QLabel(self.tr("Engram noticed these in your messages; they are not used until you accept them."))
            note.setObjectName("Muted")
            note.setWordWrap(True)
            self.column.addWidget(note)
        for i, line in enumerate(lines):
            row = LineRow(self, line, first=i == 0, last=i == len(lines) - 1)
            self.rows[line.id] = row
            self.column.addWidget(row)

    def _add_earlier(self, doc: ProfileDocument) -> None:
        lines = [line for line in doc.lines if line.category == EARLIER]
        if not lines:
            return
        self.earlier_toggle = QToolButton()
        self.earlier_toggle.setObjectName("ProfileHeading")
        self.earlier_toggle.setCheckable(True)
        self.earlier_toggle.setChecked(self.show_earlier)
        self.earlier_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.earlier_toggle.setArrowType(Qt.DownArrow if self.show_earlier else Qt.RightArrow)
        self.earlier_toggle.setText(heading_name(EARLIER) + f"  ({len(lines)})")
        self.earlier_toggle.setToolTip(self.tr("What newer lines replaced: kept for the record, not used"))
        self.column.addWidget(self.earlier_toggle)
        rows = []
        for line in lines:
            row = LineRow(self, line, first=True, last=True)
            row.setVisible(self.show_earlier)
            self.rows[line.id] = row
            rows.append(row)
            self.column.addWidget(row)

        def toggled(shown: bool) -> None:
            self.show_earlier = shown
            self.earlier_toggle.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
            for row in rows:
                row.setVisible(shown)

        self.earlier_toggle.toggled.connect(toggled)

    def lines(self) -> list[ProfileLine]:
        return list(self.doc.lines) if self.doc is not None else []

    # -- editing ---------------------------------------------------------------------------------

    def edit_line(self, line_id: int, reload: bool = True) -> None:
        """Show line ``line_id`` with its words in a field (the chat's Noted › Edit)."""
        if self.editing is not None and self.editing != line_id:
            self.stop_editing()
        row = self.rows.get(line_id)
        if row is None and reload:
            self._edit_when_loaded = line_id
            self.refresh()
            return
        if row is None:
            self.status.setText(self.tr("That line is no longer in your profile."))
            return
        if not row.isVisible() and row.line.category == EARLIER:
            self.earlier_toggle.setChecked(True)
        self.editing = line_id
        row.start_editing()
        QTimer.singleShot(0, self, lambda: self.scroll.ensureWidgetVisible(row, 0, 40))

    def stop_editing(self) -> None:
        """Close the field; what was read from the file meanwhile shows now."""
        self.editing = None
        pending = self._pending if self._pending is not None else self.doc
        self._fill(pending if pending is not None else ProfileDocument())

    # -- actions (each on the disk thread, on the file as it is now) ----------------------------

    def _act(self, work, done_text: str, line_id: int, expected: str, *, done=None, failed=None) -> None:
        """Run ``work(engram, user)`` once line ``line_id`` still says ``expected`` (a hand edit may
        have changed the file since it was shown); then show the file again."""
        changed_meanwhile = self.tr("the line was changed in the file meanwhile; nothing was done")

        def run(engram):
            if expected is not None and engram.profiles.line(engram.user, line_id).text != expected:
                raise NotFound(changed_meanwhile, hint=self.tr("see the line as it is now, and try again"))
            return work(engram, engram.user)

        def finished(result):
            self.status.setText(done_text)
            self._removed = None
            self.undo_button.hide()
            self.problem.hide()
            self.changed.emit()
            self.refresh()
            if done is not None:
                done(result)

        def not_done(error):
            self.problem.show_message(self.tr("<b>Not changed.</b> {why}").format(why=explain(error)), "error")
            self.refresh()
            if failed is not None:
                failed(error)

        self.status.setText(self.tr("Saving…"))
        if self.backend.disk(run, returned=finished, errored=not_done) is None:
            not_done(NotFound(self.tr("Engram's data is not open")))

    def edit(self, line_id: int, old: str, text: str, category: str | None = None) -> None:
        text = " ".join(text.split())
        if not text:
            self.problem.show_message(self.tr("A line needs some words; to drop it, use ✕."), "warning")
            return
        if text == old and category is None:
            self.stop_editing()
            return
        self.editing = None
        self._act(lambda e, user: e.profiles.edit(user, line_id, text, category=category), self.tr("Saved."),
                  line_id, old)

    def remove(self, line_id: int, text: str, done=None, failed=None) -> None:
        def removed(change) -> None:
            if change.line.category not in (PROPOSED, EARLIER):      # a line in use: it can come back
                self._removed = change.line
                self.undo_button.show()
            if done is not None:
                done(change)

        self._act(lambda e, user: e.profiles.remove(user, line_id),
                  self.tr("Removed: {text}").format(text=text), line_id, text, done=removed, failed=failed)

    def undo_remove(self) -> None:
        """The line deleted last, back under its heading (last of it: move it up if it mattered more)."""
        line = self._removed
        if line is not None:
            self._act(lambda e, user: e.profiles.note(user, line), self.tr("Back: {text}").format(text=line.text),
                      line.id, None)

    def move(self, line_id: int, text: str, steps: int) -> None:
        self._act(lambda e, user: e.profiles.move(user, line_id, steps), self.tr("Moved."), line_id, text)

    def accept(self, line_id: int, text: str, done=None, failed=None) -> None:
        self._act(lambda e, user: e.profiles.accept(user, line_id),
                  self.tr("Accepted: {text}").format(text=text), line_id, text, done=done, failed=failed)

    def undo(self, change, done=None, failed=None) -> None:
        """Take back what a turn noted (the chat's Noted › Undo)."""
        self._act(lambda e, user: e.profiles.undo(change), self.tr("Undone: {text}").format(text=change.line.text),
                  change.line.id, None, done=done, failed=failed)

    # -- the file --------------------------------------------------------------------------------

    def open_file(self) -> None:
        """The file in the person's editor (made first when there is none yet); where no program
        opens it, its path to copy."""
        if not self.backend.ready:
            return

        self.backend.disk(lambda engram: str(engram.profiles.ensure_file(engram.user)), returned=self._open, errored=lambda e: self.problem.show_message(
            self.tr("<b>The file could not be made.</b> {why}").format(why=explain(e)), "error"))

    def _open(self, path: str) -> None:
        if QDesktopServices.openUrl(QUrl.fromLocalFile(path)):
            self.file_notice.hide()
            return
        self.show_path(path)

    def show_path(self, path: str) -> None:
        """No program opened the file: say where it is, with Copy."""
        def copy():
            QGuiApplication.clipboard().setText(path)
            self.file_notice.label.setText(self.file_notice.label.text() + "<br>" + self.tr("Copied."))

        self.file_notice.show_message(
            self.tr("No program here opens markdown files. Your profile is the file<br><code>{path}</code><br>"
                    "Open it in any text editor.").format(path=html.escape(path)), "info",
            [(self.tr("Copy path"), copy)])

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh()
