"""The profile in the whole window, over a fresh data folder (fake models): "Noted" under the reply
of a message that says something lasting, with Undo and Edit; "Waiting for your OK" with Accept
and Reject when learning asks first; the profile in the Context tab; its settings applied at once.
The real model's twin is tests/gui/profile_screenshot.py, run by hand."""

from __future__ import annotations

import json
import threading

import pytest

from engram.core.app import Engram
from engram.core.profile.document import ProfileLine
from engram.core.profile.provider import ProfileProvider
from engram.ui.backend import Backend
from engram.ui.main_window import MainWindow
from engram.ui.profile_noted import NotedNotice
from fakes import FakeChatModel, FakeEmbedder

REPLY = "Noted, I will keep that in mind."


@pytest.fixture
def window(qtbot):
    model = FakeChatModel([REPLY])
    backend = Backend(opener=lambda data_dir: Engram(data_dir, embedder=FakeEmbedder(), chat_model=model))
    shown = MainWindow(backend)
    qtbot.addWidget(shown)
    shown.show()
    backend.open()
    qtbot.waitUntil(lambda: backend.ready and shown.status.state == "ready", timeout=10_000)
    # The API host's thread (off here) says so to the window: not after the window is gone.
    qtbot.waitUntil(lambda: not any(t.name == "engram-api-host" for t in threading.enumerate()), timeout=10_000)
    shown.model = model
    yield shown
    shown.close()


def say(qtbot, window, text: str):
    window.send(text)
    qtbot.waitUntil(lambda: window.turn is None, timeout=10_000)
    return window.chat.view.bubbles[-1]


def noted(bubble) -> NotedNotice:
    [notice] = [w for w in bubble.footers if isinstance(w, NotedNotice)]
    return notice


def profile(window) -> list[tuple[str, str]]:
    engram = window.backend.engram
    return [(line.category, line.text) for line in engram.profiles.read(engram.user).lines]


def test_a_message_that_says_something_lasting_shows_noted_and_undo_takes_it_back(qtbot, window):
    reply = say(qtbot, window, "I'm allergic to peanuts.")
    notice = noted(reply)
    assert notice.text() == "Noted: Allergic to peanuts."
    [row] = notice.rows
    assert [n for n, b in row.buttons.items() if not b.isHidden()] == ["Undo", "Edit"]
    assert profile(window) == [("health", "Allergic to peanuts.")]
    window.tabs.setCurrentWidget(window.profile)
    qtbot.waitUntil(lambda: [r.text.text() for r in window.profile.rows.values()] == ["Allergic to peanuts."],
                    timeout=5_000)

    row.buttons["Undo"].click()
    qtbot.waitUntil(lambda: profile(window) == [], timeout=5_000)
    qtbot.waitUntil(lambda: row.state == "undone", timeout=5_000)
    assert "taken back" in notice.text() and all(b.isHidden() for b in row.buttons.values())
    qtbot.waitUntil(lambda: window.profile.rows == {}, timeout=5_000)

    plain = say(qtbot, window, "What a nice day.")               # nothing lasting: no notice
    assert plain.footers == []


def test_edit_opens_the_line_in_the_profile_tab(qtbot, window):
    notice = noted(say(qtbot, window, "I'm allergic to peanuts."))
    line_id = notice.rows[0].change.line.id
    notice.rows[0].buttons["Edit"].click()
    assert window.tabs.currentWidget() is window.profile
    qtbot.waitUntil(lambda: window.profile.editing == line_id, timeout=5_000)
    row = window.profile.rows[line_id]
    assert row.editor is not None and row.editor.text() == "Allergic to peanuts." and not row.editor_row.isHidden()
    row.editor.setText("Allergic to peanuts and all tree nuts.")
    row.editor.returnPressed.emit()
    qtbot.waitUntil(lambda: profile(window) == [("health", "Allergic to peanuts and all tree nuts.")], timeout=5_000)


def test_asked_first_the_line_waits_for_an_ok_under_the_reply(qtbot, window):
    engram = window.backend.engram
    engram.settings.profile_learning = "ask"
    engram.apply_settings({"profile_learning"})
    notice = noted(say(qtbot, window, "I'm allergic to peanuts."))
    assert notice.text() == "Waiting for your OK: Allergic to peanuts." and notice.property("state") == "proposed"
    assert profile(window) == [("proposed", "Allergic to peanuts.")]
    profile_tab = window.tabs.indexOf(window.profile)
    qtbot.waitUntil(lambda: window.tabs.tabText(profile_tab) == "Profile (1)", timeout=5_000)   # the inbox
    row = notice.rows[0]
    assert [n for n, b in row.buttons.items() if not b.isHidden()] == ["Accept", "Reject", "Edit"]
    row.buttons["Accept"].click()
    qtbot.waitUntil(lambda: profile(window) == [("health", "Allergic to peanuts.")], timeout=5_000)
    qtbot.waitUntil(lambda: row.state == "accepted", timeout=5_000)
    assert notice.property("state") == "noted"
    qtbot.waitUntil(lambda: window.tabs.tabText(profile_tab) == "Profile", timeout=5_000)

    engram.profiles.remove(engram.user, row.change.line.id)
    second = noted(say(qtbot, window, "I'm allergic to cats."))
    second.rows[0].buttons["Reject"].click()
    qtbot.waitUntil(lambda: second.rows[0].state == "rejected", timeout=5_000)
    assert profile(window) == []


def test_a_failed_undo_says_why_and_keeps_its_button(qtbot, window):
    notice = noted(say(qtbot, window, "I'm allergic to peanuts."))
    engram = window.backend.engram
    path = engram.profiles.path(engram.user)
    path.write_bytes(b"\xff\xfe not text")                     # broken by hand meanwhile
    row = notice.rows[0]
    row.buttons["Undo"].click()
    qtbot.waitUntil(lambda: "not UTF-8" in notice.text(), timeout=5_000)
    assert row.state == "noted" and not row.buttons["Undo"].isHidden() and row.buttons["Undo"].isEnabled()


def test_a_chat_opened_again_shows_what_its_messages_noted(qtbot, window):
    say(qtbot, window, "I'm allergic to peanuts.")
    session = window.session.id
    window.new_chat()
    assert window.chat.view.bubbles[-1].footers == []
    window.open_session(session)
    qtbot.waitUntil(lambda: len(window.chat.view.bubbles) == 2, timeout=5_000)
    notice = noted(window.chat.view.bubbles[-1])
    assert notice.text() == "Noted: Allergic to peanuts."
    assert [n for n, b in notice.rows[0].buttons.items() if not b.isHidden()] == ["Edit"]   # Undo was the turn's


def test_the_context_tab_shows_the_profile_its_tokens_and_what_its_budget_left_out(qtbot, window):
    engram = window.backend.engram
    for text, importance in (("Allergic to peanuts.", 5), ("Has a cat called Miso who likes to sit on keyboards"
                                                           " and chew on charging cables all day long.", 1)):
        engram.profiles.note(engram.user, ProfileLine(text, "health", importance=importance))
    engram.settings.profile_tokens = 60
    engram.apply_settings({"profile_tokens"})
    say(qtbot, window, "Can you recommend a snack?")
    left_out = "Left out to fit the profile's budget (the least important first): Has a cat called Miso"
    qtbot.waitUntil(lambda: left_out in window.context.text(), timeout=5_000)    # once the tab read the file
    text = window.context.text()
    assert "Your profile" in text and "Lines of your profile: 1" in text
    assert str(engram.profiles.path(engram.user)) in text
    record = window.context.record
    assert f"profile\n{record.tokens['sections']['profile']}" in text and record.tokens["sections"]["profile"] > 0
    system = window.model.calls[-1][0]["content"]
    assert "Allergic to peanuts." in system and "Miso" not in system
    # The record names the lines by id (their words are in the messages, where forgetting finds them).
    assert "Miso" not in json.dumps(record.recall) and "peanuts" not in json.dumps(record.recall)

    line_id = record.recall["profile"]["context"]["lines"][0]
    engram.profiles.edit(engram.user, line_id, "Allergic to peanuts and cashews.")   # shown as the file says now
    qtbot.waitUntil(lambda: "Allergic to peanuts and cashews." in window.context.text(), timeout=5_000)
    engram.profiles.remove(engram.user, line_id)
    qtbot.waitUntil(lambda: f"line #{line_id}, no longer in your profile" in window.context.text(), timeout=5_000)


def test_the_settings_round_trip_and_apply_without_a_restart(qtbot, window, isolated_dirs):
    window.open_settings(page="Memory")
    dialog = window.settings_dialog
    assert dialog.profile_learning.currentData() == "auto" and dialog.profile_tokens.value() == 400
    dialog.profile_learning.setCurrentIndex(dialog.profile_learning.findData("ask"))
    dialog.profile_tokens.setValue(250)
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=10_000)
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["profile_learning"] == "ask" and saved["profile_tokens"] == 250
    engram = window.backend.engram
    assert engram.profile_learning.mode == "ask"
    [provider] = [p for p in engram.turn_engine.providers if isinstance(p, ProfileProvider)]
    assert provider.budget_tokens == 250
    dialog.close()

    assert noted(say(qtbot, window, "I'm allergic to peanuts.")).rows[0].change.action == "proposed"
    window.open_settings()
    assert dialog.profile_learning.currentText() == "Ask me first" and dialog.profile_tokens.value() == 250
    dialog.profile_learning.setCurrentIndex(dialog.profile_learning.findData("off"))
    dialog.save()
    qtbot.waitUntil(lambda: engram.profile_learning.mode == "off", timeout=10_000)
    dialog.close()
    assert say(qtbot, window, "I'm allergic to cats.").footers == []
