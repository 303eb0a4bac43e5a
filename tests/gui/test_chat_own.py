"""Making a chat one's own in the window: memory off, instructions, the model picker, edited
messages and kept replies with their ‹ 1/2 › pager, text files dropped on a new chat, and the
keyboard. On fake models (what the model saw is what is checked); the last test on the demo model."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QDialog

from engram.ui.branches import Pager


@pytest.fixture
def fake_window(qtbot):
    """fake_window(replies) -> the shown MainWindow on fake models, its data open and its model ready."""
    from engram.core.app import Engram
    from engram.ui.main import create_window
    from fakes import FakeChatModel, FakeEmbedder

    windows = []

    def make(replies=("OK.",)):
        window = create_window(None, lambda folder: Engram(folder, embedder=FakeEmbedder(),
                                                           chat_model=FakeChatModel(replies)), "en")
        qtbot.addWidget(window)
        windows.append(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        qtbot.waitUntil(lambda: window.backend.ready and window.status.state == "ready", timeout=20_000)
        return window

    yield make
    for window in windows:
        window.close()


def type_and_send(qtbot, window, text: str):
    window.chat.composer.setPlainText(text)
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.turn is None, timeout=20_000)
    return window.chat.view.bubbles[-1]


def pagers(window) -> dict[int, str]:
    """The pagers shown, by the message they sit on: "2/2"."""
    return {b.key: p.label.text() for b in window.chat.view.bubbles for p in b.findChildren(Pager)
            if not p.isHidden()}


def test_memory_off_keeps_nothing_recalls_nothing_and_the_context_tab_says_so(qtbot, fake_window):
    window = fake_window()
    engram = window.backend.engram
    type_and_send(qtbot, window, "I am allergic to peanuts")
    qtbot.waitUntil(lambda: engram.outbox.health().pending == 0 and engram.store.count() >= 2, timeout=20_000)
    kept = engram.store.count()

    qtbot.keyClick(window.chat.composer, Qt.Key_N, Qt.ControlModifier)
    window.chat_options.memory.trigger()             # This chat › Memory in this chat: off, before a first message
    qtbot.waitUntil(lambda: window.session is not None and window.chat.memory_off.isVisible(), timeout=10_000)
    assert engram.turn_engine.chat_settings.get(window.session.id).memory is False
    reply = type_and_send(qtbot, window, "recommend a snack without peanuts")
    assert window.session.id == engram.sessions.get(window.session.id).id
    qtbot.waitUntil(lambda: engram.outbox.health().pending == 0, timeout=20_000)
    assert engram.store.count() == kept
    assert [m.content for m in engram.sessions.messages(window.session.id)][0] == "recommend a snack without peanuts"
    assert not reply.badge.isVisible()
    seen = engram.chat_model().calls[-1]
    assert all("allergic" not in m["content"] for m in seen), "nothing is recalled into a chat with memory off"
    reply.actions["Context"].click()
    qtbot.waitUntil(lambda: "Memory is off for this chat" in window.context.text(), timeout=10_000)
    assert window.tabs.currentWidget() is window.context


def test_a_chats_instructions_reach_the_model_and_show_in_the_context_tab(qtbot, fake_window, monkeypatch):
    from engram.ui import chat_options

    window = fake_window()
    type_and_send(qtbot, window, "hello")

    def typed(dialog):
        dialog.text.setPlainText("Answer like a pirate.")
        return QDialog.Accepted

    monkeypatch.setattr(chat_options.InstructionsDialog, "exec", typed)
    qtbot.keyClick(window.chat.composer, Qt.Key_I, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.chat_options.settings.instructions == "Answer like a pirate.", timeout=10_000)
    type_and_send(qtbot, window, "who are you")
    assert "Answer like a pirate." in window.backend.engram.chat_model().calls[-1][0]["content"]
    assert "Instructions for this chat:" in window.context.text() and "Answer like a pirate." in window.context.text()


def test_an_edited_message_branches_and_the_pager_shows_both_versions(qtbot, fake_window):
    window = fake_window(lambda messages: "re: " + messages[-1]["content"].split()[-1])
    engram = window.backend.engram
    type_and_send(qtbot, window, "tell me about cats")
    first = window.chat.view.bubbles[0]
    assert first.actions["Edit"].isVisibleTo(first)
    first.actions["Edit"].click()
    assert window.chat.composer.toPlainText() == "tell me about cats" and "Editing" in window.chat.notice.text()
    type_and_send(qtbot, window, "tell me about dogs")
    assert [b.text for b in window.chat.view.bubbles] == ["tell me about dogs", "re: dogs"]
    qtbot.waitUntil(lambda: list(pagers(window).values()) == ["2/2"], timeout=10_000)
    assert all("cats" not in m["content"] for m in engram.chat_model().calls[-1])

    pager = window.chat.view.bubbles[0].findChildren(Pager)[0]
    pager.back.click()
    qtbot.waitUntil(lambda: [b.text for b in window.chat.view.bubbles] == ["tell me about cats", "re: cats"],
                    timeout=10_000)
    qtbot.waitUntil(lambda: list(pagers(window).values()) == ["1/2"], timeout=10_000)
    assert [m.content for m in engram.sessions.messages(window.session.id)] == ["tell me about cats", "re: cats"]
    qtbot.keyClick(window.chat.composer, Qt.Key_Right, Qt.AltModifier)
    qtbot.waitUntil(lambda: [b.text for b in window.chat.view.bubbles][0] == "tell me about dogs", timeout=10_000)


def test_retry_keeps_the_earlier_reply_and_pages_to_it(qtbot, fake_window):
    window = fake_window(("First answer.", "Second answer."))
    type_and_send(qtbot, window, "answer me")
    qtbot.keyClick(window.chat.composer, Qt.Key_R, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.turn is None and window.chat.view.bubbles[-1].text == "Second answer.",
                    timeout=20_000)
    reply = window.chat.view.bubbles[-1]
    qtbot.waitUntil(lambda: pagers(window) == {reply.key: "2/2"}, timeout=10_000)
    reply.findChildren(Pager)[0].back.click()
    qtbot.waitUntil(lambda: window.chat.view.bubbles[-1].text == "First answer.", timeout=10_000)
    qtbot.waitUntil(lambda: list(pagers(window).values()) == ["1/2"], timeout=10_000)


def test_the_model_picker_gives_this_chat_its_own_model_off_the_gui_thread(qtbot, fake_window, monkeypatch, tmp_path):
    import engram.core.models.chat_model as chat_model
    from fakes import FakeChatModel

    def load(settings):
        model = FakeChatModel(("From the other model.",))
        model.name = Path(settings.chat_model).stem
        return model

    monkeypatch.setattr(chat_model, "load_chat_model", load)
    from engram.core.models import demo
    from engram.core.models.library import ModelLibrary

    other = tmp_path / "other-model.gguf"
    monkeypatch.setattr(ModelLibrary, "chat_models", lambda library: [(demo.NAME, demo.demo_model_path()),
                                                                      ("Other model", other)])
    window = fake_window(("From the default.",))
    type_and_send(qtbot, window, "hello")
    window.chat_options.refresh_models()
    qtbot.waitUntil(lambda: window.chat_options.models == [("Other model", str(other))], timeout=10_000)
    menu = window.chat_options.model_menu
    menu.aboutToShow.emit()
    texts = [a.text() for a in menu.actions()]
    assert texts == ["The model of Settings (fake-chat)", "Other model", "", "More models…"]
    next(a for a in menu.actions() if a.text() == "Other model").trigger()
    qtbot.waitUntil(lambda: window.chat.model_name.text() == "Other model" and window.status.state == "ready",
                    timeout=10_000)
    engram = window.backend.engram
    assert engram.turn_engine.chat_settings.get(window.session.id).model == str(other)
    assert type_and_send(qtbot, window, "and now").text == "From the other model."
    assert window.status.model.text().endswith("other-model")


def test_the_header_names_a_catalog_model_and_the_demo_model_as_the_catalog_does(qtbot, fake_window, tmp_path):
    from types import SimpleNamespace

    from engram.core.models import demo
    from engram.core.models.library import ModelLibrary

    window = fake_window()
    entry = next(e for e in ModelLibrary(window.backend.engram.settings).catalog.entries if e.name == "qwen3-4b")
    downloaded = tmp_path / entry.file_name
    for model, name in ((SimpleNamespace(name=downloaded.stem, path=downloaded), "Qwen3 4B"),
                        (SimpleNamespace(name=demo.FILE_NAME, path=demo.demo_model_path()), demo.NAME),
                        (SimpleNamespace(name="mine", path=tmp_path / "mine.gguf"), "mine")):
        window.chat_options.set_default_model(model)
        qtbot.waitUntil(lambda shown=name: window.chat.model_name.text() == shown, timeout=10_000)


def test_a_markdown_file_dropped_on_a_new_chat_lands_in_its_folder(qtbot, fake_window, tmp_path):
    window = fake_window()
    engram = window.backend.engram
    notes = tmp_path / "trip notes.md"
    notes.write_text("# Trip\n\nThe train leaves at 9.\n", encoding="utf-8")
    assert window.session is None
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(notes))])
    window.chat.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier))
    qtbot.waitUntil(lambda: window.session is not None, timeout=10_000)
    folder = engram.files.folder(window.session.folder)
    assert folder.locate("trip notes.md").read_text(encoding="utf-8") == notes.read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: engram.files.status(window.session.folder, "trip notes.md").chunks > 0, timeout=10_000)
    assert window.files.folder == window.session.folder
    assert window.status.currentMessage() == "Added trip notes.md to this chat's files"
    type_and_send(qtbot, window, "when does the train leave")
    assert engram.sessions.messages(window.session.id)[0].content == "when does the train leave"


def test_shortcuts_copy_the_last_reply_open_settings_and_list_themselves(qtbot, fake_window):
    from engram.ui.keyboard import SHORTCUTS, ShortcutsDialog

    window = fake_window(("The reply to copy.",))
    type_and_send(qtbot, window, "hello")
    QApplication.clipboard().clear()
    qtbot.keyClick(window.chat.composer, Qt.Key_C, Qt.ControlModifier | Qt.ShiftModifier)
    assert QApplication.clipboard().text() == "The reply to copy."
    qtbot.keyClick(window.chat.composer, Qt.Key_4, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.context
    qtbot.keyClick(window.chat.composer, Qt.Key_E, Qt.ControlModifier)
    assert window.chat.composer.toPlainText() == "hello"
    qtbot.keyClick(window.chat.composer, Qt.Key_Escape)
    assert window.chat.composer.toPlainText() == "" and window.branches.editing is None
    qtbot.keyClick(window.chat.composer, Qt.Key_F1)
    qtbot.waitUntil(lambda: any(isinstance(w, ShortcutsDialog) and w.isVisible()
                                for w in QApplication.topLevelWidgets()), timeout=5_000)
    listed = next(w for w in QApplication.topLevelWidgets() if isinstance(w, ShortcutsDialog))
    assert listed.table.rowCount() == len(SHORTCUTS) and listed.table.item(6, 1).text() == "Copy the last reply"
    listed.close()
    qtbot.keyClick(window.chat.composer, Qt.Key_Comma, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.settings_dialog is not None and window.settings_dialog.isVisible(), timeout=5_000)
    window.settings_dialog.close()
    assert [a.text() for a in window.menuBar().actions()][-1] == "&Help"


@pytest.mark.real_model
def test_on_the_demo_model_an_edit_and_a_retry_keep_every_version(qtbot, open_window, send):
    window = open_window()
    engram = window.backend.engram
    send(window, "Name a colour.")
    window.chat.view.bubbles[0].actions["Edit"].click()
    send(window, "Name a fruit.")
    qtbot.keyClick(window.chat.composer, Qt.Key_R, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.turn is None, timeout=60_000)
    qtbot.waitUntil(lambda: sorted(pagers(window).values()) == ["2/2", "2/2"], timeout=10_000)
    stored = engram.sessions.messages(window.session.id)
    assert [m.content for m in stored][0] == "Name a fruit." and len(stored) == 2
    record = engram.turns.for_reply(stored[1].id)
    assert all("colour" not in m["content"] for m in record.messages)
