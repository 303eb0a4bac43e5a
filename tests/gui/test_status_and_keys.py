"""The status bar's memory health (real outbox, a job that fails then recovers) and the keyboard."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

pytestmark = pytest.mark.real_model


def test_failed_memory_work_is_shown_with_its_error_and_can_be_retried(qtbot, open_window):
    window = open_window()
    outbox = window.backend.engram.outbox
    broken = [True]

    def flaky(payload):
        if broken[0]:
            raise RuntimeError("disk on fire")

    outbox.handlers["flaky"] = flaky
    outbox.max_attempts = 1
    outbox.enqueue("flaky", {"n": 1})
    qtbot.waitUntil(lambda: "1 failed" in window.status.health.text(), timeout=15_000)
    assert window.status.health.property("state") == "bad"
    assert window.status.retry_action.isEnabled() and window.status.errors_action.isEnabled()
    assert any("disk on fire" in (job.last_error or "") for job in window.status._errors)

    broken[0] = False
    window.status.retry_action.trigger()
    qtbot.waitUntil(lambda: window.status.health.text() == "Memory: up to date", timeout=15_000)
    assert outbox.health().failed == 0


def test_keyboard_ctrl_f_searches_ctrl_n_starts_a_chat_shift_enter_adds_a_line(qtbot, open_window, send):
    window = open_window(reply_tokens=4)
    send(window, "first chat")
    composer = window.chat.composer
    composer.setFocus()
    qtbot.keyClick(composer, Qt.Key_F, Qt.ControlModifier)
    assert QApplication.focusWidget() is window.sessions.search

    window.chat.composer.setFocus()
    qtbot.keyClick(composer, Qt.Key_N, Qt.ControlModifier)
    assert window.session is None and window.chat.title.text() == "New chat"
    composer.setPlainText("line one")
    composer.moveCursor(composer.textCursor().MoveOperation.End)
    qtbot.keyClick(composer, Qt.Key_Return, Qt.ShiftModifier)
    qtbot.keyClicks(composer, "line two")
    assert composer.toPlainText() == "line one\nline two" and window.turn is None


def test_the_window_fits_a_768_pixel_screen_even_with_a_long_file_in_the_preview(qtbot, open_window):
    """A 1366×768 laptop is common: no tab may ask for more height than it has (a preview as tall
    as its file once pushed the status bar off the screen)."""
    window = open_window()
    window.tabs.setCurrentWidget(window.files)
    window.files.editor.setPlainText("\n\n".join(f"## Part {n}\n\nA line of notes." for n in range(80)))
    window.files.pages.setCurrentIndex(1)   # the preview shows what the editor holds
    qtbot.waitUntil(lambda: window.files.preview.height() > 1000)
    assert window.minimumSizeHint().height() <= 700


def test_a_stalled_worker_shows_in_the_status_bar_with_its_reason(qtbot):
    from engram.core.conversation.outbox import OutboxHealth
    from engram.ui.status_bar import StatusBar

    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.set_health(OutboxHealth(3, 0, 0, [], "DataDirError: the disk holding /data is full"))
    assert bar.health.text() == "Memory: stopped, see errors, 3 pending" and bar.health.property("state") == "bad"
    assert bar.errors_action.isEnabled() and not bar.retry_action.isEnabled()
    bar.set_health(OutboxHealth(0, 0, 0, []))
    assert bar.health.text() == "Memory: up to date" and bar.health.property("state") == "ok"


def test_the_status_bar_names_the_device_the_chat_model_runs_on(qtbot):
    from engram.core.models.gpu import Device, Placement
    from engram.ui.status_bar import StatusBar

    bar = StatusBar()
    qtbot.addWidget(bar)
    vulkan = Device("Vulkan", "Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", True, 2**33, 2**34)
    bar.set_device(Placement(vulkan, 20, 30))
    assert bar.device.text() == "Vulkan (20/30 layers)"
    assert bar.device.toolTip() == "The chat model runs on: Vulkan: llvmpipe (LLVM 15.0.6, 256 bits) — 20/30 layers"
    bar.set_device(Placement(vulkan, 0, 30, fallback="out of device memory"))
    assert bar.device.text() == "CPU" and "the GPU failed: out of device memory" in bar.device.toolTip()
    bar.set_device(None)
    assert bar.device.text() == ""


def test_the_window_shows_that_this_build_runs_the_model_on_the_cpu(qtbot, open_window):
    window = open_window()
    qtbot.waitUntil(lambda: window.status.state == "ready", timeout=30_000)
    assert window.status.device.text() == "CPU" and window.status.device.toolTip() == "The chat model runs on: CPU"


def test_a_session_file_that_could_not_be_indexed_shows_in_the_status_bar(qtbot):
    from engram.core.conversation.outbox import OutboxHealth
    from engram.ui.status_bar import StatusBar

    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.set_health(OutboxHealth(0, 0, 0, []), files_problem="2026-11-29_1404_trip/long.md: the disk is full")
    assert bar.health.text() == "Memory: files not indexed, see errors" and bar.health.property("state") == "bad"
    assert bar.errors_action.isEnabled()


def test_the_search_index_rebuilt_in_the_background_shows_in_the_status_bar(qtbot):
    from engram.core.conversation.outbox import OutboxHealth
    from engram.ui.status_bar import StatusBar

    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.set_health(OutboxHealth(0, 0, 0, []), rebuilding=True)
    assert bar.health.text() == "Memory: rebuilding the search index" and bar.health.property("state") == "ok"
    assert "old one" in bar.health.toolTip() and not bar.errors_action.isEnabled()
    bar.set_health(OutboxHealth(0, 0, 0, []), rebuild_failed="deadlock detected")
    assert bar.health.text() == "Memory: search index not rebuilt, see errors" and bar.health.property("state") == "bad"
    assert bar.errors_action.isEnabled() and not bar.retry_action.isEnabled()
    bar.errors_action.trigger()
    box = bar.findChild(QMessageBox)
    qtbot.waitUntil(box.isVisible)
    assert "could not be rebuilt" in box.text() and "deadlock detected" in box.detailedText()
    box.close()


def test_the_window_shows_why_the_search_index_was_not_rebuilt(qtbot, open_window):
    """What the vector index keeps of its last rebuild (pgvector's, tested on a server in
    test_pgvector_graph.py) reaches the window's status through its periodic health check."""
    window = open_window()
    qtbot.waitUntil(lambda: window.status.health.text() == "Memory: up to date", timeout=15_000)
    window.backend.engram.store.vectors.rebuild_failed = "deadlock detected"
    window.refresh_health()
    qtbot.waitUntil(lambda: "search index not rebuilt" in window.status.health.text(), timeout=10_000)
    assert window.status._rebuild_failed == "deadlock detected"


def test_a_notice_gives_its_text_the_width_and_puts_its_buttons_under_it(qtbot):
    """A long notice with buttons (the demo model's first-run notice) in a chat panel 490 pixels
    wide: its text had a column a sixth as wide, beside the buttons."""
    from engram.ui.notice import Notice

    notice = Notice()
    qtbot.addWidget(notice)
    notice.show_message("This is the tiny demo model: it answers in short English sentences, often"
                        " wrongly. " * 3, actions=[("Download a model…", lambda: None), ("Choose a GGUF model…", lambda: None)])
    notice.resize(490, notice.heightForWidth(490) if notice.hasHeightForWidth() else 200)
    qtbot.waitUntil(notice.isVisible)
    notice.layout().activate()
    assert notice.label.width() > 0.8 * notice.width()
    assert all(button.y() >= notice.label.geometry().bottom() for button in notice.buttons)
