"""Chatting in the real window: streaming, stopping, retrying, and memory across sessions."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.real_model


def test_tokens_stream_into_the_view_and_the_reply_is_stored(qtbot, open_window):
    window = open_window(reply_tokens=16)
    seen_while_streaming = []
    window.chat.composer.setPlainText("Tell me about the sea.")
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    assert window.chat.composer.toPlainText() == ""
    assert window.chat.streaming and window.chat.send.text() == "Stop"
    reply = window.chat.view.bubbles[-1]
    reply.body.document().contentsChanged.connect(
        lambda: window.turn is not None and seen_while_streaming.append(reply.body.toPlainText()))
    qtbot.waitUntil(lambda: window.turn is None, timeout=60_000)

    assert len(set(seen_while_streaming)) >= 2, "the reply should appear piece by piece while it streams"
    stored = window.backend.engram.sessions.messages(window.session.id)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert reply.key == stored[1].id and reply.text == stored[1].content
    assert not window.chat.streaming and window.status.state == "ready"
    assert "tokens/s" in window.status.speed.text()
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1)
    assert window.sessions.list.item(0).text().startswith("Tell me about the sea.")


def test_escape_stops_the_reply_and_keeps_what_came(qtbot, open_window):
    window = open_window(reply_tokens=400)
    window.chat.composer.setPlainText("Write a very long story about a lighthouse.")
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    reply = window.chat.view.bubbles[-1]
    qtbot.waitUntil(lambda: len(reply.text) > 0, timeout=60_000)
    qtbot.keyClick(window.chat.composer, Qt.Key_Escape)
    qtbot.waitUntil(lambda: window.turn is None, timeout=30_000)

    stored = window.backend.engram.sessions.messages(window.session.id)[-1]
    assert stored.status == "stopped"
    assert reply.note.text() == "stopped"
    assert 0 < len(stored.content) and stored.content == reply.text
    generation_tokens = window.backend.engram.turns.for_reply(stored.id).tokens["reply"]
    assert generation_tokens < 400


def test_a_new_session_recalls_the_peanut_allergy_and_the_context_tab_lists_it(qtbot, open_window, send):
    window = open_window()
    engram = window.backend.engram
    send(window, "I am allergic to peanuts.")
    first_session = window.session.id
    qtbot.waitUntil(lambda: engram.outbox.health().pending == 0 and engram.store.pending_embeddings() == 0
                    and engram.store.count() >= 2, timeout=30_000)

    qtbot.keyClick(window.chat.composer, Qt.Key_N, Qt.ControlModifier)
    assert window.session is None
    reply = send(window, "Recommend me a snack.")
    assert window.session.id != first_session
    assert reply.badge.isVisible() and "used" in reply.badge.text()

    qtbot.mouseClick(reply.badge, Qt.LeftButton)
    assert window.tabs.currentWidget() is window.context
    shown = window.context.text()
    assert "I am allergic to peanuts." in shown
    assert "Recalled memories" in shown and "similarity" in shown
    assert "Recommend me a snack." in shown and "Tokens by section" in shown and "Timings" in shown


def test_retry_replaces_the_last_reply_without_sending_the_message_again(qtbot, open_window, send):
    window = open_window()
    engram = window.backend.engram
    old = send(window, "Name a fruit.")
    old_key = old.key
    assert old.actions["Retry"].isVisible()
    qtbot.mouseClick(old.actions["Retry"], Qt.LeftButton)
    assert window.chat.streaming and old.isHidden()            # the new reply streams in its place
    assert [b.role for b in window.chat.view.bubbles if b is not old] == ["user", "assistant"]
    qtbot.waitUntil(lambda: window.turn is None, timeout=60_000)

    bubbles = window.chat.view.bubbles
    stored = engram.sessions.messages(window.session.id)
    assert [b.role for b in bubbles] == [m.role for m in stored] == ["user", "assistant"]
    assert [b.key for b in bubbles] == [m.id for m in stored] and stored[1].id != old_key
    assert bubbles[1].text == stored[1].content and bubbles[1].actions["Retry"].isVisible()
    assert window.context.text() and engram.turns.for_reply(stored[1].id).messages[-1]["content"] == "Name a fruit."


def test_sessions_rename_search_and_delete(qtbot, open_window, send, monkeypatch):
    from PySide6.QtWidgets import QInputDialog, QMessageBox

    window = open_window(reply_tokens=4)
    engram = window.backend.engram
    send(window, "Planning a trip to Lisbon")
    qtbot.keyClick(window.chat.composer, Qt.Key_N, Qt.ControlModifier)
    send(window, "Fixing a bug in the parser")
    qtbot.waitUntil(lambda: window.sessions.list.count() == 2)
    assert window.sessions.list.item(0).text().startswith("Fixing a bug")      # last used first

    lisbon = next(s for s in engram.sessions.list(engram.user) if s.title.startswith("Planning"))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Lisbon trip", True))
    window.sessions.ask_rename(lisbon.id)
    qtbot.waitUntil(lambda: engram.sessions.get(lisbon.id).title == "Lisbon trip")

    window.sessions.search.setText("parser")                       # matches what was said
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1)
    assert window.sessions.list.item(0).text().startswith("Fixing a bug")
    window.sessions.search.clear()
    qtbot.waitUntil(lambda: window.sessions.list.count() == 2)

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Cancel)
    window.sessions.ask_delete(lisbon.id)
    qtbot.wait(200)
    assert engram.sessions.get(lisbon.id)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    window.sessions.ask_delete(lisbon.id)
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1)
    assert [s.id for s in engram.sessions.list(engram.user)] != [lisbon.id]


def test_a_failed_retry_keeps_the_old_reply_and_says_why(qtbot, open_window, send, monkeypatch):
    from engram.core.errors import ModelError

    window = open_window(reply_tokens=4)
    old = send(window, "Name a fruit.")

    def broken(*args, **kwargs):
        raise ModelError("the model fell over")

    monkeypatch.setattr(window.backend.engram.turn_engine, "regenerate", broken)
    qtbot.mouseClick(old.actions["Retry"], Qt.LeftButton)
    qtbot.waitUntil(lambda: window.turn is None, timeout=30_000)
    assert [b.role for b in window.chat.view.bubbles] == ["user", "assistant"]
    assert window.chat.view.bubbles[-1] is old and not old.isHidden() and old.actions["Retry"].isVisible()
    assert "the model fell over" in window.chat.notice.text()


def test_retry_answers_a_message_whose_turn_failed(qtbot, open_window, send, monkeypatch):
    """The message is stored before the model is called; when the model then fails, Retry on the
    error answers that stored message (once the cause is fixed) instead of sending it again."""
    from engram.core.errors import ModelError

    window = open_window(reply_tokens=4)
    engine = window.backend.engram.turn_engine
    working = engine.chat_model
    broken = [True]

    def chat_model():
        if broken[0]:
            raise ModelError("the chat model file is missing")
        return working()

    monkeypatch.setattr(engine, "chat_model", chat_model)
    window.chat.composer.setPlainText("Name a fruit.")
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.turn is None, timeout=30_000)
    failed = window.chat.view.bubbles[-1]
    assert "could not reply" in failed.text
    qtbot.waitUntil(lambda: failed.actions["Retry"].isVisible())
    assert window.chat.composer.toPlainText() == ""                 # stored: not handed back to retype

    broken[0] = False
    qtbot.mouseClick(failed.actions["Retry"], Qt.LeftButton)
    qtbot.waitUntil(lambda: window.turn is None, timeout=60_000)
    stored = window.backend.engram.sessions.messages(window.session.id)
    assert [(m.role, m.content) for m in stored][0] == ("user", "Name a fruit.") and len(stored) == 2
    assert [b.key for b in window.chat.view.bubbles] == [m.id for m in stored]


def test_a_full_disk_gives_the_words_back_and_the_next_try_stays_in_the_same_chat(qtbot, open_window):
    window = open_window(reply_tokens=4)
    engram = window.backend.engram
    engram.db.execute(f"PRAGMA max_page_count = {engram.db.query_one('PRAGMA page_count')[0]}")
    words = "Here are my trip notes: " + "Lisbon, Porto, Sintra. " * 400
    window.chat.composer.setPlainText(words)
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.chat.composer.toPlainText() == words, timeout=30_000)
    assert "is full" in window.chat.view.bubbles[-1].text and "free some space" in window.chat.view.bubbles[-1].text
    assert window.status.state != "error"                     # the model is fine; the disk is not
    qtbot.waitUntil(lambda: window.session is not None)       # the chat the turn made is the one shown

    engram.db.execute("PRAGMA max_page_count = 1073741823")   # space again
    window.chat.composer.setPlainText("The short version: Lisbon.")
    qtbot.keyClick(window.chat.composer, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.turn is None and window.chat.view.bubbles[-1].key is not None, timeout=60_000)
    chats = engram.sessions.list(engram.user)
    assert len(chats) == 1 and [m.role for m in engram.sessions.messages(chats[0].id)] == ["user", "assistant"]
