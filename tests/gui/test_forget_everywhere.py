"""The Memories tab with the real models: a memory holding a passport number is marked, and
"Forget everywhere…" on the number alone lists its places and leaves no byte of it in the data folder."""

from bytescan import occurrences
from engram.core.forget import FORGOTTEN, find
from engram.core.memory.scope import Scope

NUMBER = "ZX9931457Q"


def test_a_sensitive_memory_is_marked_and_forgotten_everywhere(qtbot, open_window, send, monkeypatch):
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QMessageBox

    window = open_window(reply_tokens=4)
    engram = window.backend.engram
    send(window, f"My passport number is {NUMBER}")
    qtbot.waitUntil(lambda: bool(engram.store.list(Scope(user=engram.user), contains=NUMBER)), timeout=30_000)  # archived
    memories = window.memories
    memories.refresh()

    def item():
        return next((memories.list.topLevelItem(i) for i in range(memories.list.topLevelItemCount())
                     if NUMBER in memories.list.topLevelItem(i).text(0)), None)

    qtbot.waitUntil(lambda: item() is not None)
    assert item().text(0).startswith("⚠") and "passport-like number" in item().toolTip(0)
    memories.list.setCurrentItem(item())
    cursor = memories.editor.textCursor()
    start = memories.editor.toPlainText().index(NUMBER)
    cursor.setPosition(start)
    cursor.setPosition(start + len(NUMBER), QTextCursor.KeepAnchor)
    memories.editor.setTextCursor(cursor)                      # only the number, not the sentence

    asked = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: asked.append(box.detailedText()) or QMessageBox.Yes)
    memories.forget_everywhere.click()
    qtbot.waitUntil(lambda: memories.message.text().startswith("Forgotten in"), timeout=30_000)
    assert "message: " in asked[0] and "memory: " in asked[0] and "chat title: " in asked[0]
    assert find(engram, NUMBER, engram.user) == []
    assert f"My passport number is {FORGOTTEN}" in [m.content for m in engram.sessions.messages(window.session.id)]
    assert occurrences(engram.data_dir, NUMBER) == []
    qtbot.waitUntil(lambda: FORGOTTEN in window.chat.view.bubbles[0].text)     # the open chat shows it as it is now
    assert NUMBER not in window.chat.title.text()
