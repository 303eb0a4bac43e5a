"""Settings' "use a server": the password is kept apart and hidden, Test connection and Copy my
data there run off the GUI thread against a real (embedded) PostgreSQL, and the copy is counted."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QMessageBox

from engram.core.storage import open_database

pytestmark = pytest.mark.real_model


def test_testing_a_server_and_copying_the_data_there(qtbot, open_window, send, isolated_dirs, postgres_url,
                                                     monkeypatch):
    monkeypatch.setenv("PGPASSFILE", str(isolated_dirs / "pgpass"))
    window = open_window(reply_tokens=4)
    send(window, "Remember the blue door")
    engram = window.backend.engram
    qtbot.waitUntil(lambda: engram.outbox.health().pending == 0 and engram.store.count() >= 1, timeout=30_000)

    window.open_settings()
    dialog = window.settings_dialog
    dialog.show_page("Data")
    server = dialog.server
    server.load("postgresql://me:secret@nowhere.invalid:1/engram")
    assert "secret" not in server.url.text() and server.password.echoMode() == QLineEdit.Password
    assert server.password.text() == "secret"
    server.url.setText("not a url")
    qtbot.mouseClick(server.test_button, Qt.LeftButton)
    assert "postgresql://" in server.state.text()

    server.load(postgres_url)
    server.password.setText("s3cret:pw")           # the embedded server trusts its socket: any password does
    qtbot.mouseClick(server.test_button, Qt.LeftButton)
    assert not server.test_button.isEnabled()                      # working in the background
    qtbot.waitUntil(lambda: "empty" in server.state.text(), timeout=20_000)
    assert "PostgreSQL 18" in server.state.text()

    monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.Yes)
    seen = []
    server._progress.connect(lambda what, done, total: seen.append(what))
    qtbot.mouseClick(server.copy_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: "Copied and counted" in server.state.text() or "✕" in server.state.text(),
                    timeout=60_000)
    assert "Copied and counted" in server.state.text(), server.state.text()
    assert "memories" in seen and not server.progress.isVisible()
    qtbot.waitUntil(lambda: window.backend.ready, timeout=20_000)   # the data is open again
    assert window.backend.engram.db.dialect == "postgresql"          # and now on the server
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["database_url"] == postgres_url.replace("postgres:@", "postgres@")   # no password in it
    pgpass = isolated_dirs / "pgpass"
    assert pgpass.read_text().endswith(":postgres:postgres:s3cret\\:pw\n") and pgpass.stat().st_mode & 0o077 == 0
    mine = window.backend.engram.db.query("SELECT id, text FROM memories ORDER BY id")
    copy = open_database(postgres_url)
    try:
        assert copy.query("SELECT id, text FROM memories ORDER BY id") == mine and mine
    finally:
        copy.close()

    qtbot.mouseClick(server.test_button, Qt.LeftButton)            # now it holds this copy
    qtbot.waitUntil(lambda: "holds a copy" in server.state.text(), timeout=20_000)
