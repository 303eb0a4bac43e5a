"""The turn controller on its own: a chat panel, a status bar and the real backend, offscreen, over
Engram with the fake chat model (tests/fakes.py). The real model's twin is tests/gui/test_chat.py,
through the whole window."""

from __future__ import annotations

import threading
import time

import pytest

from engram.core.app import Engram
from engram.core.errors import DataDirError, ModelError
from engram.ui.backend import Backend
from engram.ui.chat_panel import ChatPanel
from engram.ui.status_bar import StatusBar
from engram.ui.turn_controller import TurnController
from fakes import FakeChatModel, FakeEmbedder

REPLY = "Peanuts are out, so try an apple with some cheese."


class Turns:
    """A controller over a fresh data folder, with what its signals said."""

    def __init__(self, qtbot, replies):
        self.qtbot = qtbot
        self.model = FakeChatModel(replies)
        self.backend = Backend(opener=lambda data_dir: Engram(data_dir, embedder=FakeEmbedder(), chat_model=self.model))
        self.chat, self.status = ChatPanel(), StatusBar()
        qtbot.addWidget(self.chat)
        qtbot.addWidget(self.status)
        self.controller = TurnController(self.backend, self.chat, self.status)
        self.controller.model_name = "fake-chat"
        self.adopted, self.replied = [], []
        self.controller.adopted.connect(self.adopted.append)
        self.controller.replied.connect(self.replied.append)
        self.backend.open()
        qtbot.waitUntil(lambda: self.backend.ready)

    @property
    def engram(self):
        return self.backend.engram

    def send(self, text: str, session_id: str | None = None):
        self.controller.send(text, session_id)
        self.qtbot.waitUntil(lambda: not self.controller.busy, timeout=10_000)
        return self.chat.view.bubbles[-1]


@pytest.fixture
def make_turns(qtbot):
    made = []

    def make(replies=(REPLY,)) -> Turns:
        made.append(Turns(qtbot, replies))
        return made[-1]

    yield make
    for turns in made:
        turns.backend.close()


def test_a_reply_streams_in_pieces_and_its_bubble_becomes_the_stored_reply(qtbot, make_turns):
    go = threading.Event()
    turns = make_turns(lambda messages: go.wait(10) and REPLY)
    turns.chat.composer.setPlainText("Recommend me a snack.")
    turns.controller.send("Recommend me a snack.", None)
    assert turns.controller.busy and turns.chat.streaming and turns.status.state == "busy"
    assert turns.chat.composer.toPlainText() == ""
    pieces = []
    turns.controller.worker.signals.yielded.connect(pieces.append)
    turns.controller.send("A second message while the first streams.", None)      # ignored
    go.set()
    qtbot.waitUntil(lambda: not turns.controller.busy, timeout=10_000)

    assert len(pieces) > 5 and "".join(pieces) == REPLY
    user, reply = turns.chat.view.bubbles
    stored = turns.engram.sessions.messages(turns.adopted[0].id)
    assert [(m.role, m.content) for m in stored] == [("user", "Recommend me a snack."), ("assistant", REPLY)]
    assert (user.key, reply.key, reply.text) == (stored[0].id, stored[1].id, REPLY)
    assert turns.replied[0].reply.id == reply.key and reply.turn is turns.replied[0].record
    assert turns.adopted[0].title.startswith("Recommend me a snack")       # the chat the turn made
    assert not turns.chat.streaming and turns.status.state == "ready" and "fake-chat" in turns.status.model.text()


def test_stop_ends_the_reply_and_keeps_what_came(qtbot, make_turns):
    turns = make_turns(["word " * 2000])
    slow = turns.model.generate
    turns.model.generate = lambda messages, on_token, **kwargs: slow(
        messages, on_token=lambda piece: (time.sleep(0.002), on_token(piece)), **kwargs)
    turns.controller.send("Write a very long story.", None)
    reply = turns.chat.view.bubbles[-1]
    qtbot.waitUntil(lambda: len(reply.text) > 0, timeout=10_000)
    turns.controller.stop()
    assert reply.note.text() == "stopping…"
    qtbot.waitUntil(lambda: not turns.controller.busy, timeout=10_000)

    stored = turns.engram.sessions.messages(turns.adopted[0].id)[-1]
    assert stored.status == "stopped" and reply.note.text() == "stopped"
    assert 0 < len(stored.content) < len("word " * 2000) and stored.content == reply.text


def test_a_failed_reply_says_why_in_its_place_and_offers_retry_for_the_stored_words(qtbot, make_turns):
    def broken(messages):
        raise ModelError("the chat model stopped answering", hint="choose another model in Settings")

    turns = make_turns(broken)
    reply = turns.send("Plan my week.")

    assert reply.text.startswith("**Engram could not reply.** the chat model stopped answering")
    assert "Fix: choose another model in Settings" in reply.text and reply.note.text() == "error"
    assert turns.status.state == "error" and not turns.chat.streaming
    qtbot.waitUntil(lambda: len(turns.adopted) == 1)                   # the chat the turn made, words stored in it
    assert [m.content for m in turns.engram.sessions.messages(turns.adopted[0].id)] == ["Plan my week."]
    qtbot.waitUntil(lambda: bool(reply.answerable))
    assert turns.chat.composer.toPlainText() == ""


def test_words_that_were_not_stored_go_back_into_the_input_box(qtbot, make_turns):
    turns = make_turns()

    class FullDisk:
        def send(self, *args, **kwargs):
            raise DataDirError("the disk is full", hint="free some space")

    turns.engram.__dict__["turn_engine"] = FullDisk()
    session = turns.engram.sessions.get_or_create("s1", turns.engram.user)
    reply = turns.send("Remember my address.", session.id)

    assert "the disk is full" in reply.text and turns.status.state == "ready"   # not the model's fault
    qtbot.waitUntil(lambda: turns.chat.composer.toPlainText() == "Remember my address.")
    assert turns.chat.notice.isVisibleTo(turns.chat) and "back in the input box" in turns.chat.notice.label.text()
    assert not reply.answerable


def test_retry_replaces_the_last_reply_and_a_failed_retry_keeps_it(qtbot, make_turns):
    answers = iter(["An apple.", "A pear.", ModelError("the chat model is gone", hint="load it again")])

    def replies(messages):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    turns = make_turns(replies)
    first = turns.send("Name a fruit.")
    session_id = turns.adopted[0].id

    turns.controller.retry(session_id)
    assert first.isHidden() and turns.controller.busy
    qtbot.waitUntil(lambda: not turns.controller.busy, timeout=10_000)
    second = turns.chat.view.bubbles[-1]
    assert [b.role for b in turns.chat.view.bubbles] == ["user", "assistant"] and first not in turns.chat.view.bubbles
    assert second.text == "A pear." and second.key != first.key
    assert [m.content for m in turns.engram.sessions.messages(session_id)] == ["Name a fruit.", "A pear."]

    turns.controller.retry(session_id)
    qtbot.waitUntil(lambda: not turns.controller.busy, timeout=10_000)
    assert turns.chat.view.bubbles[-1] is second and not second.isHidden() and second.text == "A pear."
    assert "the chat model is gone" in turns.chat.notice.label.text() and "load it again" in turns.chat.notice.label.text()
    assert [m.content for m in turns.engram.sessions.messages(session_id)] == ["Name a fruit.", "A pear."]


def test_nothing_is_sent_before_the_data_is_open(qtbot):
    chat, status = ChatPanel(), StatusBar()
    qtbot.addWidget(chat)
    controller = TurnController(Backend(), chat, status)
    chat.composer.setPlainText("Hello")
    controller.send("Hello", None)
    assert not controller.busy and chat.composer.toPlainText() == "Hello"
    assert "still starting" in chat.notice.label.text() and chat.view.bubbles == []


@pytest.mark.parametrize("thinking", ["on", "off"])
def test_reasoning_streams_into_a_folded_block_above_the_reply_and_is_counted(qtbot, make_turns, thinking):
    turns = make_turns((f"<think>\nPeanuts are out, so fruit.\n</think>\n\n{REPLY}",))
    turns.engram.settings.chat_thinking = thinking
    turns.engram.apply_settings({"chat_thinking"})
    reply = turns.send("Recommend me a snack.")
    assert reply.text == REPLY and "Peanuts are out, so fruit" not in reply.text
    if thinking == "off":               # asked not to think: what it thought anyway is held back
        assert reply.reasoning_toggle.isHidden() and turns.status.reasoning.text() == ""
        return
    assert not reply.reasoning_toggle.isHidden() and reply.reasoning.isHidden()       # folded
    assert turns.status.reasoning.text() == "reasoning: 7 tokens"
    reply.reasoning_toggle.click()
    assert not reply.reasoning.isHidden()
    assert reply.reasoning.toPlainText().strip() == "Peanuts are out, so fruit."
    stored = turns.engram.sessions.messages(turns.adopted[0].id)
    assert stored[-1].content == REPLY
