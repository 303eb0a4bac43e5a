"""Settings › Integrations: the OpenAI-compatible API (on/off, port, key) and ready-to-paste MCP
configurations. While the API is on, the window runs it beside itself (``ApiHost``: uvicorn on a
thread of its own, over the window's open data, so writers wait their turn in the one database);
starting and stopping happen off the GUI thread."""

from __future__ import annotations

import threading

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Qt, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QMessageBox,
                               QPlainTextEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from engram.integrations import DEFAULT_HOST
from engram.integrations.api_key import api_key, regenerate
from engram.integrations.mcp_config import CLIENTS, snippet

WHERE = {"Claude Desktop": QT_TRANSLATE_NOOP("IntegrationsPage", "claude_desktop_config.json (in Claude Desktop:"
                                                                 " Settings › Developer › Edit Config)"),
         "VS Code": QT_TRANSLATE_NOOP("IntegrationsPage", ".vscode/mcp.json in a workspace (or, in VS Code, the"
                                                          " command “MCP: Open User Configuration”)"),
         "Cursor": QT_TRANSLATE_NOOP("IntegrationsPage", "~/.cursor/mcp.json (or .cursor/mcp.json in a project)")}


class ApiHost(QObject):
    """The API beside the window. ``state`` says what it is doing: ("off", ""), ("on", its URL) or
    ("error", why it could not start)."""

    state = Signal(str, str)

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.server = None
        self.now = ("off", "")
        self._lock = threading.Lock()          # one start or stop at a time

    def apply(self, enabled: bool, port: int) -> None:
        """Run the API on ``port`` or stop it, as the settings say (in the background)."""
        if self.backend.engram is None:
            return
        data_dir = self.backend.engram.data_dir
        threading.Thread(target=self._apply, args=(enabled, port, data_dir), name="engram-api-host",
                         daemon=True).start()

    def _apply(self, enabled: bool, port: int, data_dir) -> None:
        from engram.integrations.api_server import ApiServer  # uvicorn loads only when the API is used

        with self._lock:
            if self.server is not None and (not enabled or self.server.port != port):
                self.server.stop()
                self.server = None
            if enabled and self.server is None:
                try:
                    api_key(data_dir)
                    self.server = ApiServer(lambda: self.backend.engram, DEFAULT_HOST, port).start()
                except Exception as e:      # shown on the page; the window goes on without the API
                    self._say("error", e.args[0] if e.args else str(e))
                    return
            self._say(*(("on", self.server.url) if self.server is not None else ("off", "")))

    def _say(self, state: str, detail: str) -> None:
        self.now = (state, detail)
        self.state.emit(state, detail)          # queued to the GUI thread's slots

    def stop(self) -> None:
        """Stop the API now (the window is closing); a reply being streamed is kept, stopped."""
        with self._lock:
            if self.server is not None:
                self.server.stop()
                self.server = None


def heading(text: str) -> QLabel:
    label = QLabel(f"<b>{text}</b>")
    label.setContentsMargins(0, 8, 0, 0)
    return label


class IntegrationsPage(QWidget):
    """The page. Its changes take effect at once (the API starts or stops), without Save."""

    def __init__(self, backend, api: ApiHost, parent=None):
        super().__init__(parent)
        self.backend, self.api = backend, api
        layout = QVBoxLayout(self)
        form = QFormLayout()
        layout.addLayout(form)

        form.addRow(heading(self.tr("OpenAI-compatible API")))
        self.enabled = QCheckBox(self.tr("Run an OpenAI-compatible API on this computer while Engram is open"))
        self.enabled.toggled.connect(self._changed)
        form.addRow(self.enabled)
        self.port = QSpinBox(minimum=1024, maximum=65535)
        self.port.setMaximumWidth(120)
        self.port.editingFinished.connect(self._changed)
        form.addRow(self.tr("Port"), self.port)
        self.address = QLabel()
        self.address.setObjectName("Muted")
        self.address.setWordWrap(True)
        self.address.setTextInteractionFlags(Qt.TextSelectableByMouse)
        form.addRow(self.tr("Status"), self.address)

        self.key = QLineEdit()
        self.key.setReadOnly(True)
        self.key.setEchoMode(QLineEdit.Password)
        show = QPushButton(self.tr("Show"))
        show.setCheckable(True)
        show.toggled.connect(lambda on: self.key.setEchoMode(QLineEdit.Normal if on else QLineEdit.Password))
        copy = QPushButton(self.tr("Copy"))
        copy.clicked.connect(lambda: self._copy(self.key.text()))
        regenerate = QPushButton(self.tr("Regenerate…"))
        regenerate.clicked.connect(self.regenerate)
        row = QHBoxLayout()
        row.addWidget(self.key, 1)
        for button in (show, copy, regenerate):
            row.addWidget(button)
        form.addRow(self.tr("API key"), row)
        api_note = QLabel(self.tr("Point any OpenAI client at the address above with this key and the model"
                                  " “engram”: replies go through Engram's memory. Only this computer can connect."))
        api_note.setObjectName("Muted")
        api_note.setWordWrap(True)
        form.addRow(api_note)

        form.addRow(heading(self.tr("MCP (Claude Desktop, VS Code, Cursor and other MCP clients)")))
        self.client = QComboBox()
        self.client.addItems(list(CLIENTS))
        self.client.currentIndexChanged.connect(self._show_snippet)
        self.read_only = QCheckBox(self.tr("Read only (the client can search and read, not add or forget)"))
        self.read_only.toggled.connect(self._show_snippet)
        form.addRow(self.tr("MCP client"), self.client)
        form.addRow(self.read_only)
        self.where = QLabel()
        self.where.setObjectName("Muted")
        self.where.setWordWrap(True)
        form.addRow(self.where)
        self.snippet = QPlainTextEdit()
        self.snippet.setReadOnly(True)
        self.snippet.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.snippet.setMinimumHeight(130)
        layout.addWidget(self.snippet, 1)
        copy_snippet = QPushButton(self.tr("Copy configuration"))
        copy_snippet.clicked.connect(lambda: self._copy(self.snippet.toPlainText()))
        layout.addWidget(copy_snippet)
        self.api.state.connect(self._show_state)

    def load(self) -> None:
        engram = self.backend.engram
        if engram is None:
            return
        self.enabled.blockSignals(True)
        self.enabled.setChecked(engram.settings.api_enabled)
        self.enabled.blockSignals(False)
        self.port.setValue(engram.settings.api_port)
        self._show_state(*self.api.now)
        self._show_snippet()
        self.backend.disk(lambda e: api_key(e.data_dir), returned=self.key.setText)

    def _changed(self) -> None:
        engram = self.backend.engram
        if engram is None:
            return
        enabled, port = self.enabled.isChecked(), self.port.value()
        if (enabled, port) == (engram.settings.api_enabled, engram.settings.api_port):
            return

        def save(e):
            e.settings.api_enabled, e.settings.api_port = enabled, port
            e.settings.save()

        self.backend.disk(save)
        self.address.setText(self.tr("Starting…") if enabled else self.tr("Stopping…"))
        self.api.apply(enabled, port)

    def _show_state(self, state: str, detail: str) -> None:
        if state == "on":
            self.address.setText(self.tr("Listening on {url}").format(url=detail))
        elif state == "error":
            self.address.setText(self.tr("Not running: {why}").format(why=detail))
        else:
            self.address.setText(self.tr("Off"))

    def _show_snippet(self) -> None:
        engram = self.backend.engram
        if engram is None:
            return
        client = self.client.currentText()
        self.snippet.setPlainText(snippet(client, engram.data_dir, read_only=self.read_only.isChecked()))
        self.where.setText(self.tr("Paste into {where}; the client starts Engram's MCP server itself.").format(
            where=self.tr(WHERE[client])))

    def regenerate(self) -> None:
        if QMessageBox.question(self, self.tr("Regenerate the API key"),
                                self.tr("Programs using the current key will be refused until they are given the"
                                        " new one. Make a new key?"),
                                QMessageBox.Yes | QMessageBox.Cancel) != QMessageBox.Yes:
            return
        self.backend.disk(lambda e: regenerate(e.data_dir), returned=self.key.setText)

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)

