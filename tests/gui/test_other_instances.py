"""Another Engram on the same database (a command, a second window, another device): the window
shows what it wrote without being asked, and says where a chat's files are when they are on
another device."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engram.core.app import Engram
from engram.core.conversation.sessions import Session
from engram.core.files import FileIndex
from engram.core.files.device import Device
from engram.core.memory.scope import Scope
from engram.ui.sessions_panel import SessionsPanel
from fakes import FakeEmbedder

pytestmark = pytest.mark.real_model


def shown_memories(window) -> list[str]:
    tab = window.memories.list
    return [tab.topLevelItem(i).data(0, Qt.UserRole).text for i in range(tab.topLevelItemCount())]


def shown_sessions(window) -> list[str]:
    return [window.sessions.list.item(i).text() for i in range(window.sessions.list.count())]


def test_what_another_engram_writes_appears_without_asking(qtbot, open_window):
    window = open_window()
    engram = window.backend.engram
    with Engram(engram.data_dir, embedder=FakeEmbedder()) as other:     # e.g. `engram memory add` meanwhile
        other.store.add("My sister lives in Porto", Scope(user=engram.user), "fact")
        other.sessions.get_or_create("s-other", engram.user, title="Planned on the desktop")
    qtbot.waitUntil(lambda: "My sister lives in Porto" in shown_memories(window), timeout=10_000)
    qtbot.waitUntil(lambda: any("Planned on the desktop" in s for s in shown_sessions(window)), timeout=10_000)


def test_a_chat_whose_folder_is_on_another_device_says_so(qtbot, open_window, tmp_path):
    window = open_window()
    engram = window.backend.engram
    session = engram.sessions.get_or_create("s-desk", engram.user, title="Trip on the desk")
    desk = FileIndex(engram.store, tmp_path / "desk" / "sessions", device=Device("desk-id", "the desk"))
    desk.write(session.folder, "plan.md", "# Trip\nthe night train\n", "Trip plan")
    window.open_session(session.id)
    qtbot.waitUntil(lambda: not window.files.on_device.isHidden(), timeout=10_000)   # the tab need not be in front
    assert "the desk" in window.files.on_device.text()
    assert not window.files.new_button.isEnabled() and not window.files.open_button.isEnabled()
    assert not engram.files.folder(session.folder).path.exists()


def test_the_same_chats_read_again_remake_no_row(qtbot):
    """While another Engram imports, the chats are read anew after its writes, several times a
    second: the same listing leaves the rows alone (remaking hundreds of them stalled the window),
    and a changed one shows, with the open chat still selected."""
    panel = SessionsPanel()
    qtbot.addWidget(panel)
    chats = [Session(f"s-{n}", "u", "", f"Chat {n}", False, f"folder-{n}", "2026-12-01T10:00:00.000Z",
                     "2026-12-01T10:00:00.000Z") for n in range(300)]
    panel.show_sessions(chats, "s-7")
    rows = [panel.list.item(n) for n in range(panel.list.count())]
    panel.show_sessions(list(chats), "s-7")
    assert [panel.list.item(n) for n in range(panel.list.count())] == rows       # the very same rows
    assert panel.list.currentItem().data(Qt.UserRole) == "s-7"
    panel.show_sessions(list(chats), "s-9")                                       # another chat opened meanwhile
    assert panel.list.currentItem().data(Qt.UserRole) == "s-9" and panel.list.item(0) is rows[0]
    renamed = Session("s-0", "u", "", "Trip to Porto", True, "folder-0", chats[0].created_at, chats[0].updated_at)
    panel.show_sessions([renamed, *chats[1:]], "s-9")
    assert panel.list.item(0).text().startswith("Trip to Porto\n") and panel.list.count() == 300
    assert panel.list.currentItem().data(Qt.UserRole) == "s-9"
