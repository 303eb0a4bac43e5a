"""The side panel on real data: editing memories, files changed on disk, and settings that last."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model


def select_memory(qtbot, window, text):
    tab = window.memories
    qtbot.waitUntil(lambda: any(tab.list.topLevelItem(i).data(0, Qt.UserRole).text == text
                                for i in range(tab.list.topLevelItemCount())), timeout=10_000)
    item = next(tab.list.topLevelItem(i) for i in range(tab.list.topLevelItemCount())
                if tab.list.topLevelItem(i).data(0, Qt.UserRole).text == text)
    tab.list.setCurrentItem(item)
    return item.data(0, Qt.UserRole)


def test_editing_a_memory_in_the_memories_tab_changes_the_store(qtbot, open_window):
    window = open_window()
    engram = window.backend.engram
    memory = engram.store.add("My sister lives in Porto", Scope(user=engram.user), "fact")
    engram.store.add("I like green tea", Scope(user=engram.user), "preference")
    window.memories.refresh()
    select_memory(qtbot, window, "My sister lives in Porto")

    window.memories.kind.setCurrentText("preference")                 # filter by kind
    qtbot.waitUntil(lambda: window.memories.list.topLevelItemCount() == 1)
    window.memories.kind.setCurrentIndex(0)
    window.memories.text.setText("sister")                            # filter by text
    qtbot.waitUntil(lambda: window.memories.list.topLevelItemCount() == 1)
    select_memory(qtbot, window, "My sister lives in Porto")

    window.memories.editor.setPlainText("My sister lives in Lisbon")
    window.memories.importance.setValue(90)
    window.memories.pinned.setChecked(True)
    qtbot.mouseClick(window.memories.save, Qt.LeftButton)
    qtbot.waitUntil(lambda: engram.store.get(memory.id).text == "My sister lives in Lisbon", timeout=10_000)
    changed = engram.store.get(memory.id)
    assert changed.importance == 0.9 and changed.pinned
    assert [c.actor for c in engram.store.history(memory.id)][-1] == "user"
    hits = engram.store.search("Where does my sister live? Lisbon", Scope(user=engram.user)).hits
    assert hits[0].memory.id == memory.id and hits[0].similarity is not None   # re-embedded

    window.memories.editor.setPlainText("")                           # bad input: kept, explained
    qtbot.mouseClick(window.memories.save, Qt.LeftButton)
    qtbot.waitUntil(lambda: "Not saved" in window.memories.message.text())
    assert engram.store.get(memory.id).text == "My sister lives in Lisbon"


def test_a_memory_jumps_to_the_message_it_came_from(qtbot, open_window, send):
    window = open_window(reply_tokens=4)
    engram = window.backend.engram
    send(window, "My cat is called Miso")
    source = window.chat.view.bubbles[-2]
    qtbot.waitUntil(lambda: engram.outbox.health().pending == 0, timeout=30_000)
    qtbot.keyClick(window.chat.composer, Qt.Key_N, Qt.ControlModifier)
    window.memories.refresh()
    memory = select_memory(qtbot, window, "My cat is called Miso")
    assert "message #" in window.memories.source.text()
    qtbot.mouseClick(window.memories.jump, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.session is not None and window.chat.view.find(source.key) is not None)
    assert memory.source_ids == (source.key,)


def test_a_file_changed_on_disk_shows_in_the_files_tab(qtbot, open_window, send, monkeypatch):
    window = open_window(reply_tokens=4)
    engram = window.backend.engram
    send(window, "Let us plan a trip")
    window.tabs.setCurrentWidget(window.files)
    folder = engram.files.folder(window.session.folder).path
    folder.mkdir(parents=True, exist_ok=True)

    (folder / "plan.md").write_text("---\ndescription: the plan\n---\n# Day 1\nLisbon\n", encoding="utf-8")
    qtbot.waitUntil(lambda: window.files.tree.topLevelItemCount() == 1, timeout=20_000)
    window.files.tree.setCurrentItem(window.files.tree.topLevelItem(0))
    qtbot.waitUntil(lambda: window.files.name == "plan.md", timeout=20_000)
    qtbot.waitUntil(lambda: "Lisbon" in window.files.editor.toPlainText()
                    and window.files.description.text() == "the plan", timeout=20_000)

    (folder / "plan.md").write_text("---\ndescription: the plan\n---\n# Day 1\nPorto\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "Porto" in window.files.editor.toPlainText(), timeout=20_000)   # no edits: reloads

    window.files.editor.setPlainText("# Day 1\nMy own plan\n")                              # edits here...
    (folder / "plan.md").write_text("# Day 1\nSomeone else's plan\n", encoding="utf-8")     # ...and on disk
    qtbot.waitUntil(lambda: window.files.conflict.isVisible(), timeout=20_000)
    assert window.files.editor.toPlainText() == "# Day 1\nMy own plan\n"
    window.files.save()
    qtbot.wait(300)
    assert "Someone else's plan" in (folder / "plan.md").read_text()                      # never overwritten
    window.files.save(force=True)                                                          # "Keep mine"
    qtbot.waitUntil(lambda: "My own plan" in (folder / "plan.md").read_text(), timeout=20_000)
    qtbot.waitUntil(lambda: not window.files.conflict.isVisible(), timeout=20_000)
    assert "saved" in window.files.state.text()

    opened = []
    monkeypatch.setattr("engram.ui.files_tab.QDesktopServices.openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    qtbot.mouseClick(window.files.open_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: opened == [str(folder)])


def test_a_noted_memory_says_which_model_noted_it_and_from_which_messages():
    from types import SimpleNamespace

    from engram.core.memory.scope import Scope
    from engram.ui.chat_names import ChatNames
    from engram.ui.memories_tab import source_text

    noted = SimpleNamespace(scope=Scope(user="u", session="s1"), source_ids=(3, 5),
                            source={"session": "s1", "made_by": "distillation", "model": "llama-3.2-3b"})
    named = {"s1": "“Trip” (3 Dec 2026)"}.get
    assert source_text(noted, named) == "chat “Trip” (3 Dec 2026) · noted by llama-3.2-3b from message #3, #5"
    archived = SimpleNamespace(scope=Scope(user="u", session="s1"), source_ids=(3,), source={"role": "user"})
    assert source_text(archived, ChatNames()) == "chat (deleted) · user message · message #3"


def test_a_long_memory_list_says_only_the_newest_are_shown(qtbot, open_window):
    from engram.core.memory.records import NewMemory
    from engram.ui.memories_tab import LIST_LIMIT

    window = open_window()
    engram = window.backend.engram
    engram.store.add_many([NewMemory(f"note {n}", Scope(user=engram.user), "fact") for n in range(LIST_LIMIT + 5)],
                          embed=False)
    window.memories.refresh()
    qtbot.waitUntil(lambda: window.memories.list.topLevelItemCount() == LIST_LIMIT)
    assert window.memories.count.text().startswith(f"The newest {LIST_LIMIT} are shown")
    window.memories.text.setText("note 50")                    # note 50, note 500..504
    qtbot.waitUntil(lambda: window.memories.list.topLevelItemCount() == 6)
    assert window.memories.count.text() == "6 memories"
