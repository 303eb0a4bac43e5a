"""Documents attached in the window: dropped on the chat, converted off the GUI thread, listed in
the Files tab with their pages, and a bad one explained in the chat's notice."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from engram.core.files.formats import SOURCES_DIR

pytestmark = pytest.mark.real_model
DATA = Path(__file__).resolve().parents[1] / "data" / "documents"


def drop(widget, *paths: Path) -> None:
    """The drop event the system hands the widget when files are dropped on it (Qt delivers a
    drop only during a real drag, so it is handed over directly)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    widget.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier))


def test_a_dropped_pdf_is_listed_with_its_pages_and_a_scanned_one_is_explained(qtbot, open_window, tmp_path):
    window = open_window()
    engram = window.backend.engram
    session = engram.sessions.get_or_create(None, engram.user, title="Attached papers")
    window.open_session(session.id)
    window.tabs.setCurrentWidget(window.files)
    qtbot.waitUntil(lambda: window.files.folder == session.folder, timeout=10_000)
    assert window.chat.attach.toolTip().startswith("Attach documents")

    qtbot.waitUntil(lambda: window.session is not None and window.session.id == session.id, timeout=10_000)
    drop(window.chat, DATA / "test.pdf", DATA / "scanned-medical-report.pdf")
    qtbot.waitUntil(lambda: engram.files.status(session.folder, "test.pdf.md").chunks > 0, timeout=60_000)
    qtbot.waitUntil(lambda: "not converted" in window.chat.notice.text(), timeout=60_000)
    assert "no text layer: scanned pages need OCR" in window.chat.notice.text()

    def sources_row():
        top = [window.files.tree.topLevelItem(i) for i in range(window.files.tree.topLevelItemCount())]
        folder = next((item for item in top if item.text(0) == f"{SOURCES_DIR}/"), None)
        rows = [folder.child(i) for i in range(folder.childCount())] if folder else []
        return next((row for row in rows if row.text(0) == "test.pdf"), None)

    qtbot.waitUntil(lambda: sources_row() is not None and "PDF, 1 page" in sources_row().text(1), timeout=20_000)
    window.files.tree.setCurrentItem(sources_row())          # a document opens as its markdown
    qtbot.waitUntil(lambda: window.files.name == "test.pdf.md", timeout=10_000)
    assert "## p. 1" in window.files.editor.toPlainText()
    window.grab().save(str(tmp_path / "attached.png"))


def test_a_link_dragged_from_a_browser_is_attached_by_its_address(qtbot):
    """Files and web addresses are taken (the page is downloaded on the disk thread); other
    schemes are not."""
    from engram.ui.chat_panel import _dropped

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile("/tmp/report.pdf"), QUrl("https://example.org/notes/trip"),
                  QUrl("ftp://example.org/x.pdf")])
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    assert _dropped(event) == ["/tmp/report.pdf", "https://example.org/notes/trip"]
