"""File › Import… and File › Export… in the real window: the import runs on the dialog's thread
with a progress bar, the chats appear in the list, and the export writes its file."""

from __future__ import annotations

import json

import pytest

from chat_exports import three_conversations, write_chatgpt_zip
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model


def test_import_then_export_from_the_window(qtbot, open_window, tmp_path):
    window = open_window()
    menu = window.menuBar().actions()[0].menu()
    assert [a.text() for a in menu.actions()] == ["Import conversations…", "Export everything…", "", "&Quit"]

    dialog = window.open_porting(importing=True)
    dialog.kind.setCurrentIndex(dialog.kind.findData("chatgpt"))
    dialog.path.setText(str(write_chatgpt_zip(tmp_path / "export.zip", three_conversations())))
    seen = []
    dialog.bar.valueChanged.connect(seen.append)
    dialog.start_button.click()
    assert dialog.running and dialog.close_button.text() == "Stop"
    qtbot.waitUntil(lambda: not dialog.running, timeout=60_000)
    assert "imported 3 conversation(s) with 7 message(s)" in dialog.status.text()
    assert seen and seen[-1] == 1000
    qtbot.waitUntil(lambda: window.sessions.list.count() == 3, timeout=10_000)
    engram = window.backend.engram
    hits = engram.store.search("which nuts should I avoid?", Scope(user=engram.user)).hits
    assert "peanuts" in hits[0].memory.text

    dialog.start_button.click()                                   # the same file again adds nothing
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    assert "imported 0 conversation(s)" in dialog.status.text() and window.sessions.list.count() == 3
    dialog.reject()

    dialog = window.open_porting(importing=False)
    dialog.kind.setCurrentIndex(dialog.kind.findData("json"))
    dialog.path.setText(str(tmp_path / "everything.json"))
    dialog.start_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    assert "3 chat(s), 7 message(s)" in dialog.status.text()
    assert len(json.loads((tmp_path / "everything.json").read_text())["sessions"]) == 3

    dialog.path.setText(str(tmp_path / "everything.json"))       # a folder export onto a file: said, not raised
    dialog.kind.setCurrentIndex(dialog.kind.findData("md"))
    dialog.start_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    assert "not an empty folder" in dialog.status.text()


def test_closing_the_dialog_while_importing_stops_it_and_keeps_what_came_in(qtbot, open_window, tmp_path):
    from chat_exports import chatgpt_conversation

    window = open_window()
    many = [chatgpt_conversation(f"c-{n}", f"Chat {n}", [("user", f"Note number {n} about the garden"),
                                                         ("assistant", f"Noted, item {n}.")]) for n in range(60)]
    dialog = window.open_porting(importing=True)
    dialog.path.setText(str(write_chatgpt_zip(tmp_path / "many.zip", many)))
    dialog.start_button.click()
    qtbot.waitUntil(lambda: "Archiving" in dialog.status.text(), timeout=30_000)
    closed = []
    dialog.finished.connect(closed.append)
    dialog.reject()                                               # Esc or the window's ×, mid-import
    assert dialog.isVisible() and dialog.status.text() == "Stopping…"
    qtbot.waitUntil(lambda: bool(closed), timeout=10_000)
    engram = window.backend.engram
    assert len(engram.sessions.list(engram.user)) == 60           # stored before archiving began: all kept
    assert engram.outbox.health().pending > 0 or engram.store.count() == 120   # archiving goes on
