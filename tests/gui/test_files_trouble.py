"""What the window shows when a chat's files are in trouble: an index that cannot be written, and
a deleted chat's folder moved to the trash (or not)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engram.core.files import INDEX_NAME, TRASH_DIR

pytestmark = pytest.mark.real_model


def open_chat_with_files(qtbot, window, title: str):
    """A chat with a hand-written file in its folder, open in the window with the Files tab shown."""
    engram = window.backend.engram
    session = engram.sessions.get_or_create(None, engram.user, title=title)
    folder = engram.files.folder(session.folder).path
    folder.mkdir(parents=True)
    (folder / "plan.md").write_text("# Day 1\nLisbon\n")
    window.open_session(session.id)
    window.tabs.setCurrentWidget(window.files)
    qtbot.waitUntil(lambda: window.files.folder == session.folder, timeout=10_000)
    return session, folder


def test_the_files_tab_shows_an_index_that_cannot_be_written_until_it_can(qtbot, open_window):
    window = open_window()
    session, folder = open_chat_with_files(qtbot, window, "Index trouble")
    banner = window.files.index_problem

    (folder / INDEX_NAME).mkdir()                                   # while the window watches
    qtbot.waitUntil(lambda: banner.isVisible(), timeout=20_000)
    assert "memories.md could not be written" in banner.text() and "is in the way" in banner.text()
    qtbot.waitUntil(lambda: window.files.tree.topLevelItemCount() == 1, timeout=10_000)
    assert window.files.tree.topLevelItem(0).text(0) == "plan.md"  # the files are listed as before
    (folder / INDEX_NAME).rmdir()
    qtbot.waitUntil(lambda: not banner.isVisible(), timeout=20_000)
    assert "- **plan.md**: Day 1" in (folder / INDEX_NAME).read_text()

    window.backend.watcher.stop()                                   # from here on only "Try again" clears it
    (folder / INDEX_NAME).unlink()
    (folder / INDEX_NAME).mkdir()
    window.backend.engram.files.write(session.folder, "more.md", "# More\n")     # as the model would
    qtbot.waitUntil(lambda: banner.isVisible(), timeout=10_000)
    (folder / INDEX_NAME).rmdir()
    qtbot.wait(300)
    assert banner.isVisible()
    assert banner.buttons[0].text() == "Try again"
    qtbot.mouseClick(banner.buttons[0], Qt.LeftButton)
    qtbot.waitUntil(lambda: not banner.isVisible(), timeout=10_000)
    assert (folder / INDEX_NAME).is_file()


def test_deleting_a_chat_says_where_its_files_go_and_moves_them_there(qtbot, open_window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    window = open_window()
    engram = window.backend.engram
    session, folder = open_chat_with_files(qtbot, window, "Lisbon trip")
    window.refresh_sessions()
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1, timeout=10_000)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a: asked.append(text) or QMessageBox.Yes)

    window.sessions.ask_delete(session.id)
    trash = engram.data_dir / TRASH_DIR
    assert f"Its folder of files ({session.folder}) is moved to the trash folder {trash}" in asked[0]
    qtbot.waitUntil(lambda: window.sessions.list.count() == 0, timeout=10_000)
    assert not folder.exists() and window.files.folder is None
    [trashed] = trash.iterdir()
    assert (trashed / "plan.md").read_text() == "# Day 1\nLisbon\n"
    assert f"its files are in {trashed}" in window.status.currentMessage()

    session, folder = open_chat_with_files(qtbot, window, "Porto trip")
    trash.rename(trash.with_name("emptied"))
    trash.write_text("in the way")                                  # the move fails ...
    window.sessions.ask_delete(session.id)
    qtbot.waitUntil(lambda: window.chat.notice.isVisible(), timeout=10_000)
    assert "The chat was deleted, but its folder of files was not moved to the trash" in window.chat.notice.text()
    assert str(folder) in window.chat.notice.text()                 # ... and says where the files still are
    assert (folder / "plan.md").exists() and engram.sessions.list(engram.user) == []
