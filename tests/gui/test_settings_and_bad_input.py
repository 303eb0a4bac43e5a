"""Settings that last across restarts, and bad input in the window: clear words, no crash, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QFileDialog

from engram.ui.composer import MAX_PASTE_CHARS

pytestmark = pytest.mark.real_model


def test_settings_survive_a_restart(qtbot, open_window, isolated_dirs):
    window = open_window()
    window.open_settings()
    dialog = window.settings_dialog
    dialog.max_results.setValue(7)
    dialog.window_size.setValue(12)
    assert dialog.search_scope.currentText() == "All your chats"              # words, not the setting's value
    dialog.search_scope.setCurrentIndex(dialog.search_scope.findData("user,session"))
    assert dialog.distill.currentData() == "auto"
    dialog.distill.setCurrentIndex(dialog.distill.findData("on"))
    assert dialog.thinking.currentData() == "off"
    dialog.thinking.setCurrentIndex(dialog.thinking.findData("on"))
    dialog.language.setText("Français")
    dialog.detail.setCurrentText("brief")
    assert dialog.gpu_layers.setting() == "auto" and dialog.gpu_layers.text() == "auto"
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=10_000)
    assert window.backend.engram.memory_options.recall_max_results == 7     # applied without a restart
    assert window.backend.engram.memory_options.distill                    # "on", though the demo model runs
    assert window.backend.engram.memory_options.thinking
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["recall_max_results"] == 7 and saved["search_scope"] == "user,session"
    assert saved["chat_gpu_layers"] == "auto" and saved["embedding_gpu_layers"] == "auto"
    window.close()

    again = open_window()
    again.open_settings()
    dialog = again.settings_dialog
    qtbot.waitUntil(lambda: dialog.language.text() == "Français")
    assert dialog.max_results.value() == 7 and dialog.window_size.value() == 12
    assert dialog.search_scope.currentData() == "user,session" and dialog.detail.currentText() == "brief"
    assert dialog.distill.currentData() == "on" and dialog.thinking.currentData() == "on"
    assert again.backend.engram.settings.window_messages == 12


def test_gpu_layers_are_auto_all_or_a_number_typed_or_stepped(qtbot):
    """(Saving a new value reloads the chat model, which the window tests share: the box alone.)"""
    from engram.ui.settings_dialog import GpuLayersBox

    box = GpuLayersBox("embedding")
    qtbot.addWidget(box)
    box.set_setting("auto")
    assert box.text() == "auto" and box.setting() == "auto"
    box.stepUp()
    assert box.text() == "all" and box.setting() == -1
    box.stepUp()
    assert box.setting() == 0
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "all")
    box.interpretText()
    assert box.setting() == -1
    box.set_setting(24)
    assert box.text() == "24" and box.setting() == 24


def test_a_file_that_is_not_gguf_is_refused_as_a_model_in_place(qtbot, open_window, isolated_dirs, monkeypatch):
    window = open_window()
    not_a_model = isolated_dirs / "notes.gguf"
    not_a_model.write_text("just some text", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(not_a_model), ""))
    window.open_settings(page="Models")
    dialog = window.settings_dialog
    dialog.chat_model.choose()
    qtbot.waitUntil(lambda: "not a GGUF model file" in dialog.chat_model.info.text(), timeout=10_000)
    dialog.save()
    assert "cannot be used" in dialog.notice.text()
    assert window.backend.engram.settings.chat_model == ""
    assert not (isolated_dirs / "config" / "settings.json").exists()
    assert window.status.state == "ready"

    dialog.chat_model.set_path("")                                   # back to the demo model: fine
    qtbot.waitUntil(lambda: "demo" in dialog.chat_model.info.text())
    dialog.embedding_model.set_path(str(Path(__file__).resolve().parents[2] / "resources/models"
                                         / "all-MiniLM-L6-v2.Q8_0.gguf"))
    qtbot.waitUntil(lambda: "512 tokens of context" in dialog.embedding_model.info.text(), timeout=10_000)


def test_a_data_folder_that_is_not_writable_is_explained(qtbot, isolated_dirs):
    from engram.ui.main import create_window

    blocker = isolated_dirs / "a-file"
    blocker.write_text("not a folder")
    window = create_window(str(blocker / "data"))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.chat.notice.isVisible(), timeout=10_000)
    assert "could not open its data" in window.chat.notice.text() and "not writable" in window.chat.notice.text()
    assert window.status.state == "error" and not window.backend.ready
    window.chat.composer.setPlainText("hello?")
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    assert window.chat.composer.toPlainText() == "hello?"            # kept: nothing can be sent yet
    window.close()


def test_moving_the_data_folder_into_a_non_empty_folder_is_refused_and_keeps_everything(qtbot, open_window, send,
                                                                                         isolated_dirs):
    window = open_window(reply_tokens=4)
    send(window, "Remember the blue door")
    source = window.backend.engram.data_dir
    occupied = isolated_dirs / "occupied"
    occupied.mkdir()
    (occupied / "something.txt").write_text("mine")
    results = []
    window.move_data_dir(str(occupied), results.append)
    qtbot.waitUntil(lambda: bool(results) and window.backend.ready, timeout=20_000)
    assert "not an empty folder" in str(results[0])
    assert (occupied / "something.txt").read_text() == "mine" and len(list(occupied.iterdir())) == 1
    assert window.backend.engram.data_dir == source
    assert window.backend.engram.sessions.list(window.backend.engram.user)[0].title == "Remember the blue door"

    target = isolated_dirs / "moved"
    results.clear()
    window.move_data_dir(str(target), results.append)
    qtbot.waitUntil(lambda: bool(results) and window.backend.ready, timeout=20_000)
    assert results[0] == target.resolve() and window.backend.engram.data_dir == target.resolve()
    assert window.backend.engram.sessions.list(window.backend.engram.user)[0].title == "Remember the blue door"
    assert not source.exists()
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["data_dir"] == str(target.resolve())


def test_a_huge_paste_is_refused_with_a_reason_and_the_box_keeps_its_text(qtbot, open_window):
    window = open_window()
    composer = window.chat.composer
    composer.setPlainText("my draft")
    huge = QMimeData()
    huge.setText("x" * (MAX_PASTE_CHARS + 1))
    composer.insertFromMimeData(huge)
    assert composer.toPlainText() == "my draft"
    assert window.chat.notice.isVisible() and "clipboard still has it" in window.chat.notice.text()


def test_a_message_too_long_for_the_model_is_kept_and_explained(qtbot, open_window, send):
    window = open_window()
    long_text = "word " * 20_000
    reply = send(window, long_text)
    assert reply.property("status") == "error" and "context" in reply.text
    stored = window.backend.engram.sessions.messages(window.session.id if window.session else
                                                     window.backend.engram.sessions.list("default")[0].id)
    assert stored[0].content == long_text                              # the words were saved first
