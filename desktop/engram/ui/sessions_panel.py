"""The left column: new chat, search (titles and what was said), the sessions by last use."""

from __future__ import annotations

from datetime import datetime, timezone

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import (QHBoxLayout, QInputDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QMenu,
                               QMessageBox, QPushButton, QVBoxLayout, QWidget)

from engram.ui.theme import icon


def ago(iso: str) -> str:
    """'just now', '5 min ago', '3 h ago', '2 d ago' or the date."""
    try:
        then = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return ""
    seconds = (datetime.now(timezone.utc) - then).total_seconds()
    translate = QCoreApplication.translate
    if seconds < 60:
        return translate("SessionsPanel", "just now")
    if seconds < 3600:
        return translate("SessionsPanel", "{count} min ago").format(count=int(seconds // 60))
    if seconds < 86400:
        return translate("SessionsPanel", "{count} h ago").format(count=int(seconds // 3600))
    if seconds < 7 * 86400:
        return translate("SessionsPanel", "{count} d ago").format(count=int(seconds // 86400))
    return then.date().isoformat()


class SessionsPanel(QWidget):
    new_requested = Signal()
    selected = Signal(str)              # session id
    search_changed = Signal(str)
    rename_requested = Signal(str, str)  # session id, new title
    delete_requested = Signal(str)
    folder_requested = Signal(str)
    settings_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("SessionsPanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 10, 8, 8)
        top = QHBoxLayout()
        brand = QLabel("Engram")
        brand.setObjectName("AppTitle")
        logo = QLabel()
        logo.setPixmap(icon("engram").pixmap(22, 22))
        top.addWidget(logo)
        top.addWidget(brand)
        top.addStretch(1)
        layout.addLayout(top)
        self.new_button = QPushButton(self.tr("＋  New chat"))
        self.new_button.setObjectName("Primary")
        self.new_button.setToolTip(self.tr("Start a new chat (Ctrl+N)"))
        self.new_button.clicked.connect(self.new_requested)
        layout.addWidget(self.new_button)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search chats (Ctrl+F)"))
        self.search.setClearButtonEnabled(True)
        self._debounce = QTimer(self, singleShot=True, interval=200)
        self._debounce.timeout.connect(lambda: self.search_changed.emit(self.search.text().strip()))
        self.search.textChanged.connect(lambda _: self._debounce.start())
        layout.addWidget(self.search)
        self.list = QListWidget()
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.ElideRight)
        self.list.setContextMenuPolicy(Qt.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.itemDoubleClicked.connect(lambda item: self.ask_rename(item.data(Qt.UserRole)))
        layout.addWidget(self.list, 1)
        self.empty = QLabel(self.tr("No chats yet."))
        self.empty.setObjectName("Muted")
        self.empty.setAlignment(Qt.AlignCenter)
        layout.addWidget(self.empty)
        settings = QPushButton(self.tr("⚙  Settings"))
        settings.setToolTip(self.tr("Models, memory, preferences, data folder (Ctrl+,)"))
        settings.clicked.connect(self.settings_requested)
        layout.addWidget(settings)
        self._rows: list[tuple[str, str, str, str]] = []     # shown: id, title, when, folder
        self._titles: dict[str, str] = {}
        self._folders: dict[str, str] = {}
        self.trash = ""                 # where a deleted chat's folder goes (<data dir>/trash), once known
        self._quiet = False

    def show_sessions(self, sessions: list, current: str | None) -> None:
        """Replace the list (newest use first, as the core sorts them) and select ``current``. The
        same rows again change nothing: while another Engram imports, the chats are read anew after
        its writes, several times a second, and making hundreds of rows each time stalled the window."""
        rows = [(s.id, s.title or self.tr("New chat"), ago(s.updated_at), s.folder) for s in sessions]
        if rows != self._rows:
            self._quiet = True
            self.list.clear()
            self._rows = rows
            self._titles = {session_id: title for session_id, title, _, _ in rows}
            self._folders = {session_id: folder for session_id, _, _, folder in rows}
            for session_id, title, when, folder in rows:
                item = QListWidgetItem(f"{title}\n{when}")
                item.setData(Qt.UserRole, session_id)
                item.setToolTip(title + "\n" + self.tr("folder: {folder}").format(folder=folder))
                self.list.addItem(item)
        self.highlight(current)
        self.empty.setVisible(not sessions)
        self.empty.setText(self.tr("No chats match.") if self.search.text().strip() else self.tr("No chats yet."))

    def highlight(self, session_id: str | None) -> None:
        """Select the chat that is open (opened from elsewhere: Go to source, a new chat) without
        asking to open it again."""
        self._quiet = True
        self.list.setCurrentItem(next((self.list.item(row) for row in range(self.list.count())
                                       if self.list.item(row).data(Qt.UserRole) == session_id), None))
        self._quiet = False

    def _current_changed(self, item, _previous):
        if item is not None and not self._quiet:
            self.selected.emit(item.data(Qt.UserRole))

    def _menu(self, position):
        item = self.list.itemAt(position)
        if item is None:
            return
        session_id = item.data(Qt.UserRole)
        menu = QMenu(self)
        menu.addAction(self.tr("Rename…"), lambda: self.ask_rename(session_id))
        menu.addAction(self.tr("Open folder"), lambda: self.folder_requested.emit(session_id))
        menu.addSeparator()
        menu.addAction(self.tr("Delete…"), lambda: self.ask_delete(session_id))
        menu.exec(self.list.viewport().mapToGlobal(position))

    def ask_rename(self, session_id: str) -> None:
        title, ok = QInputDialog.getText(self, self.tr("Rename chat"), self.tr("Title:"),
                                         text=self._titles.get(session_id, ""))
        if ok and title.strip():
            self.rename_requested.emit(session_id, title.strip())

    def ask_delete(self, session_id: str) -> None:
        folder = self._folders.get(session_id, "")
        trash = self.trash or self.tr("in the data folder")
        files = (self.tr("Its folder of files ({folder}) is moved to the trash folder {trash}").format(
                     folder=folder, trash=trash) if folder
                 else self.tr("Its folder of files is moved to the trash folder {trash}").format(trash=trash))
        answer = QMessageBox.question(
            self, self.tr("Delete chat"),
            self.tr("Delete “{title}”?\n\nIts messages, its context records and the memories taken from it are"
                    " forgotten for good.\n\n{files}, where you can still open it; delete it there to erase the"
                    " files.").format(title=self._titles.get(session_id, session_id), files=files),
            QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Cancel)
        if answer == QMessageBox.Yes:
            self.delete_requested.emit(session_id)
