"""The Files tab: the session's folder as a tree, a markdown editor with a live preview, saves
through the core's file index, and live updates from the folder watcher.

Changes made on disk by another program arrive as the index's file events. An open file with no
unsaved edits simply reloads; with unsaved edits, the conflict is shown and nothing is
overwritten until the person chooses. A save also checks that the file on disk is still the one
that was opened. When memories.md (the folder's generated index) cannot be written, a banner
says why until a later write succeeds.

Documents attached to the chat are listed under sources/ with their kind and pages, marked while
they convert (⏳) or when they could not be (⚠); choosing one opens its markdown, a double click
opens the original in the program the system has for it.

A chat's folder stays on the device that has it (several devices may share one database): on
the others the tab says where the files are, and offers no new file nor a folder to open, which
would start a second folder of the same chat.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QHBoxLayout, QInputDialog, QLabel, QLineEdit, QMessageBox, QPlainTextEdit,
                               QPushButton, QScrollArea, QSizePolicy, QSplitter, QTabWidget, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from engram.core.files import INDEX_NAME
from engram.core.files.folder import bytes_hash
from engram.core.files.catalog import PROBLEM
from engram.core.files.documents import CONVERTING
from engram.core.files.formats import SOURCES_DIR, markdown_name
from engram.ui.markdown_view import MarkdownView
from engram.ui.notice import Notice, explain


class ElidedLabel(QLabel):
    """A one-line label that shows a long name whole when it fits and else with its middle left
    out (the date at its start and the title's end both stay), the whole of it as its tooltip;
    it never widens the panel."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.full = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self.full = text
        self.setToolTip(text)
        self._elide()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        super().setText(self.fontMetrics().elidedText(self.full, Qt.ElideMiddle, max(self.width(), 40)))


class FileEvents(QObject):
    """Carries the index's file events (sent on its worker thread) onto the GUI thread."""

    changed = Signal(object)


def human_size(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KiB" if size < 1 << 20 else f"{size / 2**20:.1f} MiB"


class FilesTab(QWidget):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.folder: str | None = None      # the session's folder name
        self.elsewhere: str | None = None   # the device that has the folder, when it is not this one
        self.name: str | None = None        # the open file
        self.loaded: str | None = None      # hash of the bytes on disk when opened or saved
        self.events = FileEvents(self)
        self.events.changed.connect(self._on_event)
        self._loading = False
        self._clean = ("", "")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(self._top_row())
        self.index_problem = Notice(closable=False)
        layout.addWidget(self.index_problem)
        self.on_device = Notice(closable=False)
        layout.addWidget(self.on_device)
        split = QSplitter(Qt.Vertical)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([self.tr("File"), self.tr("Size")])
        self.tree.setColumnWidth(0, 240)
        self.tree.currentItemChanged.connect(self._selected)
        self.tree.itemDoubleClicked.connect(self._open_original)
        split.addWidget(self.tree)
        split.addWidget(self._editor_pane())
        split.setSizes([200, 420])
        layout.addWidget(split, 1)
        self._refresh_timer = QTimer(self, singleShot=True, interval=150)
        self._refresh_timer.timeout.connect(self.refresh)
        self._show_file(None, None, None)
        self._set_enabled()

    def _top_row(self) -> QHBoxLayout:
        """Which folder, with New file and Open folder."""
        top = QHBoxLayout()
        self.where = ElidedLabel(self.tr("No chat selected"))
        self.where.setObjectName("Muted")
        top.addWidget(self.where, 1)
        self.new_button = QPushButton(self.tr("New file"))
        self.new_button.clicked.connect(self._new_file)
        self.open_button = QPushButton(self.tr("Open folder"))
        self.open_button.setToolTip(self.tr("Open this chat's folder in the system file manager"))
        self.open_button.clicked.connect(self.open_folder)
        top.addWidget(self.new_button)
        top.addWidget(self.open_button)
        return top

    def _editor_pane(self) -> QWidget:
        """The open file: a conflict notice, its description, Edit and Preview, its state, Delete and Save."""
        pane = QWidget()
        column = QVBoxLayout(pane)
        column.setContentsMargins(0, 4, 0, 0)
        self.conflict = Notice(closable=False)
        column.addWidget(self.conflict)
        self.description = QLineEdit()
        self.description.setPlaceholderText(self.tr("Description (one line: what this file is for)"))
        self.description.textChanged.connect(lambda _: self._edited())
        column.addWidget(self.description)
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText(self.tr("Select or create a markdown file"))
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.editor.textChanged.connect(self._edited)
        self.preview = MarkdownView()
        self.pages = QTabWidget()
        self.pages.addTab(self.editor, self.tr("Edit"))
        self.pages.addTab(self._scrolled(self.preview), self.tr("Preview"))
        self.pages.currentChanged.connect(lambda i: i == 1 and self.preview.set_markdown(self.editor.toPlainText()))
        column.addWidget(self.pages, 1)
        buttons = QHBoxLayout()
        self.state = QLabel()
        self.state.setObjectName("Muted")
        buttons.addWidget(self.state, 1)
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.setObjectName("Danger")
        self.delete_button.clicked.connect(self._delete)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("Primary")
        self.save_button.setShortcut("Ctrl+S")
        self.save_button.clicked.connect(lambda: self.save())
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        column.addLayout(buttons)
        return pane

    @staticmethod
    def _scrolled(preview: MarkdownView) -> QScrollArea:
        """The preview is as tall as the file, and must not make the window taller than the screen."""
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.addWidget(preview)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        return scroll

    # -- which folder ---------------------------------------------------------------------------

    def attach(self, engram) -> None:
        """Listen to the index's file events (from any writer: this tab, the model, other programs)."""
        engram.files.subscribe(self.events.changed.emit)

    def set_folder(self, folder: str | None) -> None:
        if folder == self.folder:
            return
        self.folder, self.name, self.loaded, self.elsewhere = folder, None, None, None
        self.where.setText(folder or self.tr("No chat selected"))
        self._show_file(None, None, None)
        self.refresh()
        self._set_enabled()

    def open_folder(self) -> None:
        """Show the chat's folder in the system file manager (created first if still empty)."""
        folder = self.folder
        if folder is None:
            return

        def create(engram):
            path = engram.files.folder(folder).path
            path.mkdir(parents=True, exist_ok=True)
            return path

        self.backend.disk(create, returned=self._open_path, errored=self._failed)

    def _open_path(self, path) -> None:
        """The folder in the file manager; with none (a bare desktop), its path to copy."""
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            return
        box = QMessageBox(QMessageBox.Information, self.tr("Open folder"),
                          self.tr("No file manager opened the folder. It is here:"), QMessageBox.Close, self)
        box.setInformativeText(str(path))
        box.setTextInteractionFlags(Qt.TextSelectableByMouse)
        copy = box.addButton(self.tr("Copy path"), QMessageBox.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(str(path)))
        box.exec()

    def _set_enabled(self) -> None:
        has_folder, has_file = self.folder is not None and self.elsewhere is None, self.name is not None
        self.new_button.setEnabled(has_folder)
        self.open_button.setEnabled(has_folder)
        for widget in (self.editor, self.description, self.save_button, self.delete_button):
            widget.setEnabled(has_file)

    # -- the tree -------------------------------------------------------------------------------

    def refresh(self) -> None:
        folder = self.folder
        if folder is None or not self.backend.ready:
            self.tree.clear()
            self.index_problem.hide()
            self.on_device.hide()
            return

        def scan(engram):
            statuses = {s.name: s for s in engram.files.statuses(folder)}
            return folder, engram.files.folder(folder).scan(), statuses, engram.files.elsewhere(folder)

        self.backend.disk(scan, returned=self._fill)

    def _fill(self, found) -> None:
        folder, entries, statuses, elsewhere = found
        if folder != self.folder:
            return
        self._show_index_problem(statuses.get(INDEX_NAME))
        self._show_elsewhere(elsewhere)
        self.tree.clear()
        folders: dict[str, QTreeWidgetItem] = {}
        for entry in entries:
            item = self._file_item(self._parent_item(entry.name, folders), entry, statuses.get(entry.name))
            if entry.name == self.name:
                self.tree.blockSignals(True)
                self.tree.setCurrentItem(item)
                self.tree.blockSignals(False)

    def _parent_item(self, name: str, folders: dict[str, QTreeWidgetItem]) -> QTreeWidgetItem:
        """The tree item a file goes under: its folder's, made (expanded) the first time it is needed."""
        parent = self.tree.invisibleRootItem()
        parts = name.split("/")
        for depth in range(1, len(parts)):
            key = "/".join(parts[:depth])
            if key not in folders:
                folders[key] = QTreeWidgetItem(parent, [parts[depth - 1] + "/", ""])
                folders[key].setExpanded(True)
            parent = folders[key]
        return parent

    def _file_item(self, parent: QTreeWidgetItem, entry, status) -> QTreeWidgetItem:
        """A file's row: its name and size; its description, or why it is not indexed (⚠), on hover."""
        short = entry.name.rsplit("/", 1)[-1]
        item = QTreeWidgetItem(parent, [short, human_size(entry.size)])
        item.setData(0, Qt.UserRole, entry.name)
        tip = entry.name
        if status is not None and status.description:
            tip += f"\n{status.description}"
        if status is not None and status.status == PROBLEM:
            item.setText(0, f"⚠ {short}")
            tip += "\n" + self.tr("not indexed: {why}").format(why=status.detail)
        elif status is not None and entry.name.startswith(f"{SOURCES_DIR}/"):
            converting = status.detail == CONVERTING
            item.setText(0, f"⏳ {short}" if converting else short)
            kind_and_pages = status.description.split(";", 1)[0]
            item.setText(1, f"{human_size(entry.size)} · {kind_and_pages}")
            if status.detail and not converting:
                tip += f"\n{status.detail}"
            tip += "\n" + self.tr("double-click to open the original")
        item.setToolTip(0, tip)
        return item

    def _open_original(self, item, _column) -> None:
        name = item.data(0, Qt.UserRole)
        if self.folder is None or not name or not name.startswith(f"{SOURCES_DIR}/"):
            return
        folder = self.folder
        self.backend.disk(lambda engram: engram.files.folder(folder).locate(name),
                          returned=lambda path: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))),
                          errored=self._failed)

    def _show_index_problem(self, status) -> None:
        if status is None:
            self.index_problem.hide()
            return
        self.index_problem.show_message(
            self.tr("<b>{index} could not be written:</b> {why}.<br>Your files are untouched and still indexed;"
                    " only the index file is out of date.").format(index=INDEX_NAME, why=html.escape(status.detail)),
            "warning", [(self.tr("Try again"), self._write_index_again)])

    def _show_elsewhere(self, device: str | None) -> None:
        self.elsewhere = device
        self._set_enabled()
        if device is None:
            self.on_device.hide()
            return
        self.on_device.show_message(
            self.tr("<b>This chat's files are on {device}.</b> Open the chat there to read or change them;"
                    " what they say is recalled here too.").format(device=html.escape(device)))

    def _write_index_again(self) -> None:
        folder = self.folder
        if folder is not None:
            self.backend.disk(lambda engram: engram.files.sync_folder(folder), returned=lambda _: self.refresh(),
                              errored=self._failed)

    def _selected(self, item, _previous) -> None:
        name = item.data(0, Qt.UserRole) if item is not None else None
        if name is not None and name.startswith(f"{SOURCES_DIR}/") and not name.endswith((".md", ".txt")):
            name = markdown_name(name)          # a document: its markdown, beside it
        if name is None or name == self.name:
            return
        if self._dirty() and not self._discard_ok():
            return
        self.open(name)

    # -- one file --------------------------------------------------------------------------------

    def open(self, name: str) -> None:
        folder = self.folder

        def read(engram):
            target = engram.files.folder(folder)
            data = target.read_bytes(name)
            return name, target.read(name), data

        self.backend.disk(read, returned=lambda found: self._opened(folder, *found), errored=self._failed)

    def _opened(self, folder, name, document, data) -> None:
        if folder != self.folder:
            return
        if name == self.name and self._dirty():    # typed into while it was being read again
            self._show_conflict()
            return
        self._show_file(name, document, bytes_hash(data))
        self.conflict.hide()
        self.state.setText(self.tr("{name} · saved").format(name=name))

    def _show_file(self, name, document, loaded) -> None:
        self._loading = True
        self.name, self.loaded = name, loaded
        self.description.setText(document.description if document else "")
        self.editor.setPlainText(document.body if document else "")
        self._clean = (self.description.text(), self.editor.toPlainText())
        if self.pages.currentIndex() == 1:
            self.preview.set_markdown(self.editor.toPlainText())
        self._loading = False
        self._set_enabled()

    def _dirty(self) -> bool:
        """Unsaved edits: what the editor shows differs from what was last read or saved."""
        return self.name is not None and (self.description.text(), self.editor.toPlainText()) != self._clean

    def _edited(self) -> None:
        if not self._loading and self.name:
            self.state.setText(self.tr("{name} · edited, not saved").format(name=self.name))

    def _discard_ok(self) -> bool:
        return QMessageBox.question(self, self.tr("Unsaved changes"),
                                    self.tr("Discard your unsaved changes to {name}?").format(name=self.name),
                                    QMessageBox.Discard | QMessageBox.Cancel) == QMessageBox.Discard

    def save(self, force: bool = False) -> None:
        """Write through the core; refused (and shown as a conflict) when the file changed on disk
        since it was opened, unless ``force`` (the person chose to keep their version)."""
        if self.name is None or self.folder is None:
            return
        folder, name, expected = self.folder, self.name, self.loaded
        body, description = self.editor.toPlainText(), self.description.text().strip() or None

        def write(engram):
            if not force:
                return engram.files.write_unless_changed(folder, name, body, description, expected)
            status = engram.files.write(folder, name, body, description)
            return status, engram.files.disk_hash(folder, status.name)

        self.state.setText(self.tr("Saving…"))
        self.backend.disk(write, returned=lambda result: self._saved(folder, name, result), errored=self._failed)

    def _saved(self, folder, name, result) -> None:
        if folder != self.folder or name != self.name:
            return
        if result is None:
            self._show_conflict()
            return
        status, loaded = result
        self.loaded = loaded
        self._clean = (self.description.text(), self.editor.toPlainText())
        self.conflict.hide()
        state = self.tr("{name} · saved").format(name=status.name)
        if status.status == PROBLEM:
            state += " · " + self.tr("not indexed: {why}").format(why=status.detail)
        self.state.setText(state)
        self.refresh()

    def _failed(self, error) -> None:
        self.state.setText(f"<span style='color:#c0392b'>{explain(error)}</span>")

    def _show_conflict(self) -> None:
        self.conflict.show_message(
            self.tr("<b>{name}</b> was changed on disk by another program while you were editing it here. Your"
                    " edits are kept in the editor; nothing was overwritten.").format(name=html.escape(self.name)),
            "warning", [(self.tr("Load disk version"), self._take_disk),
                        (self.tr("Keep mine"), lambda: self.save(force=True)),
                        (self.tr("Save mine as copy"), self._save_copy)])
        self.state.setText(self.tr("{name} · conflict with the disk").format(name=self.name))

    def _take_disk(self) -> None:
        self.conflict.hide()
        if self.name is not None:
            name, self.name = self.name, None
            self.open(name)

    def _save_copy(self) -> None:
        if self.name is None:
            return
        stem = self.name.rsplit(".", 1)[0]
        copy = self.tr("{stem} (my copy).md").format(stem=stem)
        folder, body, description = self.folder, self.editor.toPlainText(), self.description.text().strip() or None
        self.backend.disk(lambda engram: engram.files.write(folder, copy, body, description),
                          returned=lambda status: (self.conflict.hide(), self.refresh(), self.open(status.name)),
                          errored=self._failed)

    def _new_file(self) -> None:
        name, ok = QInputDialog.getText(self, self.tr("New file"), self.tr("File name (markdown):"), text="notes.md")
        if not ok or not name.strip() or self.folder is None:
            return
        folder = self.folder
        self.backend.disk(lambda engram: engram.files.write(folder, name.strip(), "", None),
                          returned=lambda status: (self.refresh(), self.open(status.name)), errored=self._failed)

    def _delete(self) -> None:
        if self.name is None or self.folder is None:
            return
        if QMessageBox.question(self, self.tr("Delete file"),
                                self.tr("Delete {name} from this chat's folder?").format(name=self.name),
                                QMessageBox.Yes | QMessageBox.Cancel) != QMessageBox.Yes:
            return
        folder, name = self.folder, self.name
        self._show_file(None, None, None)
        self.backend.disk(lambda engram: engram.files.delete(folder, name), returned=lambda _: self.refresh(),
                          errored=self._failed)

    # -- the watcher ------------------------------------------------------------------------------

    def _on_event(self, event) -> None:
        if event.folder != self.folder:
            return
        self._refresh_timer.start()
        if event.name != self.name:
            return
        folder, name = self.folder, self.name
        self.backend.disk(lambda engram: engram.files.disk_hash(folder, name),
                          returned=lambda current: self._disk_changed(folder, name, current))

    def _disk_changed(self, folder, name, current) -> None:
        if folder != self.folder or name != self.name or current == self.loaded:
            return                          # our own save, or nothing new
        if current is None:
            self.state.setText(self.tr("{name} · deleted on disk (save to write it back)").format(name=name))
            self.loaded = None
            return
        if self._dirty():
            self._show_conflict()
        else:
            self.open(name)
            self.state.setText(self.tr("{name} · reloaded (changed on disk)").format(name=name))
