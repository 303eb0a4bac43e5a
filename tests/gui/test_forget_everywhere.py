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


def test_forgetting_part_of_a_pinned_memory_keeps_the_rest_and_offers_related_memories(qtbot, open_window,
                                                                                       monkeypatch):
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QMessageBox

    window = open_window()
    engram = window.backend.engram
    scope = Scope(user=engram.user)
    memory = engram.store.add("I'm allergic to peanuts and cashews (severe)", scope, "fact", pinned=True,
                              importance=0.9)
    engram.store.add("Allergic to the specific type of peanuts", scope, "fact")     # a paraphrase
    session = engram.sessions.get_or_create("s-food", engram.user, title="Food")
    engram.files.write(session.folder, "diet.md", "# Diet\nallergic to peanuts\n", "Diet")
    memories = window.memories
    memories.refresh()
    qtbot.waitUntil(lambda: memories.list.item_of(memory.id) is not None)
    memories.list.setCurrentItem(memories.list.item_of(memory.id))
    cursor = memories.editor.textCursor()
    start = memories.editor.toPlainText().index("allergic to peanuts")
    cursor.setPosition(start)
    cursor.setPosition(start + len("allergic to peanuts"), QTextCursor.KeepAnchor)
    memories.editor.setTextCursor(cursor)

    boxes = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: boxes.append(box) or box.related.click() or 0)
    memories.forget_everywhere.click()
    qtbot.waitUntil(lambda: memories.count.text().endswith("related to “allergic to peanuts”"), timeout=30_000)
    assert "paraphrased" in boxes[0].informativeText()
    assert boxes[0].checkBox().text().startswith("Also change the files that hold it (1;")     # one file listed, one counted
    assert "Allergic to the specific type of peanuts" in shown_texts(memories)

    memories.list.setCurrentItem(memories.list.item_of(memory.id))
    memories.editor.setTextCursor(cursor)
    monkeypatch.setattr(QMessageBox, "exec", lambda box: QMessageBox.Yes)
    memories.forget_everywhere.click()
    qtbot.waitUntil(lambda: memories.message.text().startswith("Forgotten in"), timeout=30_000)
    kept = engram.store.get(memory.id)
    assert (kept.text, kept.pinned, kept.importance) == (f"I'm {FORGOTTEN} and cashews (severe)", True, 0.9)
    memories.refresh()
    qtbot.waitUntil(lambda: shown_texts(memories)[:1] == [kept.text])       # pinned first, as it is now


def shown_texts(memories) -> list[str]:
    return [m.text for m in memories.list.memories()]
