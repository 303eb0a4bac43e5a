"""The data page's "use a server": a PostgreSQL URL (its password in a field of its own, shown as
dots, and kept in libpq's password file, not the settings: core/storage/pgpass.py), Test
connection, and Copy my data there (engram migrate-data, with progress). Both run off the GUI
thread; the copy closes the data while it reads it, as moving the data folder does."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QMessageBox, QProgressBar, QPushButton, QVBoxLayout, QWidget

from engram.core.errors import EngramError
from engram.core.storage.pgpass import split_password, with_password
from engram.core.storage.postgres import is_server_url
from engram.ui.workers import Pool


class ServerSetting(QWidget):
    """``window`` is the main window: it pauses the chat and closes the data for the copy."""

    copied = Signal(str)            # the server's URL, once everything is there and counted
    _progress = Signal(str, int, int)

    def __init__(self, window, parent=None):
        super().__init__(parent)
        self.window = window
        self.pool = Pool(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.url = QLineEdit(placeholderText=self.tr("postgresql://me@server:5432/engram"))
        self.password = QLineEdit(placeholderText=self.tr("password"), echoMode=QLineEdit.Password)
        row.addWidget(self.url, 3)
        row.addWidget(self.password, 1)
        layout.addLayout(row)
        buttons = QHBoxLayout()
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.clicked.connect(self.test)
        self.copy_button = QPushButton(self.tr("Copy my data there…"))
        self.copy_button.clicked.connect(self.copy)
        buttons.addWidget(self.test_button)
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.progress = QProgressBar(visible=False)
        layout.addWidget(self.progress)
        self.state = QLabel(wordWrap=True, objectName="Muted")
        layout.addWidget(self.state)
        self._progress.connect(self._show_progress)

    def load(self, url: str) -> None:
        self.url.setText(split_password(url)[0])
        self.password.setText(split_password(url)[1])   # a password from an older setting moves out on Save

    def value(self) -> str:
        """The URL as stored in the settings (empty: no server), without the password."""
        return split_password(self.url.text().strip())[0]

    def connection(self) -> str:
        """The URL to connect with: the password in it, for this connection only."""
        return with_password(self.value(), self.password.text()) if self.value() else ""

    def _checked_url(self) -> str | None:
        url = self.connection()
        if not is_server_url(url):
            self._say(self.tr("Write the server's address as postgresql://user@host:port/database."), error=True)
            return None
        return url

    def test(self) -> None:
        if (url := self._checked_url()) is None:
            return
        from engram.core.porting.moving import check_target

        self._busy(True)
        self._say(self.tr("Connecting…"))
        self.pool.start(check_target, url, returned=self._tested, errored=self._failed,
                        finished=lambda: self._busy(False))

    def _tested(self, target) -> None:
        if not target.holding:
            note = self.tr("Connected to {server}. The database is empty: your data can be copied there.")
        elif target.copied_from is not None:
            note = self.tr("Connected to {server}. It holds a copy of {source}: copying again goes on with it.")
        else:
            note = self.tr("Connected to {server}. It already holds data, so Engram will not copy into it:"
                           " create a new database for your copy.")
        self._say(note.format(server=target.version, source=target.copied_from))

    def copy(self) -> None:
        if (url := self._checked_url()) is None:
            return
        question = self.tr("Copy all of Engram's data (chats, memories, files' index, preferences) to the server?"
                           "\n\nThe chat is paused while it is copied and counted. Engram keeps this data as it is.")
        if QMessageBox.question(self, self.tr("Copy my data to a server"), question,
                                QMessageBox.Yes | QMessageBox.Cancel) != QMessageBox.Yes:
            return
        self._busy(True)
        self.progress.setVisible(True)
        self._say(self.tr("Copying…"))
        self.window.copy_data_to(url, self._progress.emit, lambda result: self._copied(url, result))

    def _copied(self, url: str, result) -> None:
        self._busy(False)
        self.progress.setVisible(False)
        if isinstance(result, BaseException):
            self._failed(result)
            return
        counts = sum(c.target for c in result if c.what == "memories")
        self._say(self.tr("Copied and counted: {memories} memories and everything else are on the server."
                          " Engram keeps its memory there now.").format(memories=counts))
        self.copied.emit(url)

    def _show_progress(self, what: str, done: int, total: int) -> None:
        self.progress.setFormat(f"{what}: %v / %m")
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)

    def _failed(self, error) -> None:
        hint = getattr(error, "hint", "")
        self._say(EngramError.message_of(error) + (f"<br><i>{hint}</i>" if hint else ""), error=True)

    def _busy(self, busy: bool) -> None:
        self.test_button.setEnabled(not busy)
        self.copy_button.setEnabled(not busy)

    def _say(self, text: str, error: bool = False) -> None:
        self.state.setText(f"<span style='color:#c0392b'>✕ {text}</span>" if error else text)
