"""What a newcomer expects of a desktop chat app: chats named by title and day (never by id),
replies numbered per chat, the sidebar following Go to source, File › Quit with Ctrl+Q, a folder's
path when no file manager opens it, a chat found by what its files say, and a restart offered
when the window's language changes."""

from __future__ import annotations

import re
import sys

import pytest
from PySide6.QtCore import Qt

from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model
CHAT_ID = re.compile(r"\b[0-9a-f]{12}\b")


def test_chats_are_named_by_title_and_day_and_replies_counted_per_chat(qtbot, open_window, send):
    window = open_window(reply_tokens=4)
    send(window, "I keep bees in my garden")
    first = window.session
    window.new_chat()
    send(window, "Tell me about my bees in the garden")
    record = window.context.record
    assert record.recalled, "the first chat was recalled"
    text = window.context.text()
    assert text.startswith("Context of reply 1 of this chat")
    assert f"chat “{first.title}” (" in text and not CHAT_ID.search(text)

    bubble = window.chat.view.bubbles[-1]
    window.context.show_record(None)
    window.show_context(bubble)
    assert window.context.text().startswith("Context of reply 1 of this chat")

    # Go to source: the chat the memory came from opens and the sidebar marks it.
    memories = window.memories
    qtbot.waitUntil(lambda: any(m.scope.session == first.id and m.source_ids for m in memories.list.memories()),
                    timeout=10_000)
    source = next(m for m in memories.list.memories() if m.scope.session == first.id and m.source_ids)
    memories.list.setCurrentItem(memories.list.item_of(source.id))
    assert not CHAT_ID.search(memories.source.text()) and f"“{first.title}”" in memories.source.text()
    memories.jump.click()
    qtbot.waitUntil(lambda: window.session.id == first.id)
    qtbot.waitUntil(lambda: window.sessions.list.currentItem() is not None
                    and window.sessions.list.currentItem().data(Qt.UserRole) == first.id)


def test_the_forget_question_names_chats_by_title(qtbot, open_window, send, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    window = open_window(reply_tokens=4)
    send(window, "My locker code is 4471 at the gym")
    engram = window.backend.engram
    qtbot.waitUntil(lambda: bool(engram.store.list(Scope(user=engram.user), contains="4471")), timeout=30_000)
    asked = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: asked.append(box.detailedText()) or QMessageBox.Cancel)
    window.memories.editor.setPlainText("4471")
    window.memories.current = engram.store.list(Scope(user=engram.user), contains="4471")[0]
    window.memories._forget_everywhere()
    qtbot.waitUntil(lambda: bool(asked), timeout=30_000)
    assert f"chat “{window.session.title}” (" in asked[0] and not CHAT_ID.search(asked[0])


def test_quit_open_folder_without_a_file_manager_and_search_inside_files(qtbot, open_window, monkeypatch):
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QMessageBox

    window = open_window()
    engram = window.backend.engram
    trip = engram.sessions.get_or_create("s-trip", engram.user, title="Trip")
    engram.files.write(trip.folder, "route.md", "# Route\nthe night train to Vienna\n", "Route")
    window.sessions.search.setText("vienna")                       # what the chat's files say
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1, timeout=10_000)
    assert window.sessions.list.item(0).data(Qt.UserRole) == "s-trip"

    window.open_session("s-trip")
    qtbot.waitUntil(lambda: window.files.folder == trip.folder)
    window.tabs.setCurrentWidget(window.files)
    window.files.resize(260, window.files.height())                 # a narrow panel: the name's middle goes
    qtbot.waitUntil(lambda: window.files.where.width() < window.files.where.fontMetrics().horizontalAdvance(trip.folder))
    shown = window.files.where.text()
    assert window.files.where.fontMetrics().horizontalAdvance(shown) <= window.files.where.width()
    assert shown[0] == trip.folder[0] and shown[-1] == trip.folder[-1] and "…" in shown
    assert window.files.where.toolTip() == trip.folder

    monkeypatch.setattr("engram.ui.files_tab.QDesktopServices.openUrl", lambda url: False)   # no file manager
    boxes = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: boxes.append(box) or box.buttons()[0].click() or 0)
    window.files.open_folder()
    qtbot.waitUntil(lambda: bool(boxes), timeout=10_000)
    path = str(engram.files.folder(trip.folder).path)
    assert boxes[0].informativeText() == path
    copy = next(b for b in boxes[0].buttons() if b.text() == "Copy path")
    copy.click()
    assert QGuiApplication.clipboard().text() == path

    assert window.quit_action.shortcut().toString() == "Ctrl+Q" and window.quit_action.text() == "&Quit"
    qtbot.keyClick(window, Qt.Key_Q, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not window.isVisible())
    assert window.backend.engram is None                              # closed as on the window's close button


def test_a_new_window_language_offers_to_restart_now(qtbot, open_window, isolated_dirs, monkeypatch):
    started = []
    monkeypatch.setattr("engram.ui.restart.QProcess.startDetached",
                        lambda program, arguments: started.append([program, *arguments]) or True)
    monkeypatch.setattr("engram.ui.restart.QApplication.quit", lambda app: app.aboutToQuit.emit())
    window = open_window()
    window.open_settings()
    dialog = window.settings_dialog
    dialog.ui_language.setCurrentIndex(dialog.ui_language.findData("zh_CN"))
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=10_000)
    (restart,) = [b for b in dialog.notice.buttons if b.text() == "Restart now"]
    restart.click()
    assert started == [[sys.executable, *sys.argv]]
    assert not window.isVisible() and window.backend.engram is None
