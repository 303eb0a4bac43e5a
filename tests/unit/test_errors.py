"""An error's message without its fix, and the facade that closes whatever way its block ends."""

from __future__ import annotations

import apsw
import pytest

from engram.cli import main
from engram.core.app import Engram
from engram.core.errors import EngramError, InvalidInput, NotFound
from engram.core.memory.scope import Scope
from fakes import FakeChatModel, FakeEmbedder


def test_the_message_leaves_the_fix_to_be_shown_apart():
    error = InvalidInput("the message is empty", hint="type something to say")
    assert error.message == "the message is empty"
    assert str(error) == "the message is empty\n  fix: type something to say"
    assert NotFound("there is no session 's1'").message == str(NotFound("there is no session 's1'"))


def test_a_message_on_several_lines_is_kept_whole():
    error = EngramError("the database file is damaged:\npage 4 is unreadable", hint="restore a backup")
    assert error.message == "the database file is damaged:\npage 4 is unreadable"


def test_message_of_any_error():
    assert EngramError.message_of(InvalidInput("too long", hint="shorten it")) == "too long"
    assert EngramError.message_of(OSError(2, "No such file or directory")) == "[Errno 2] No such file or directory"
    assert EngramError.message_of(RuntimeError()) == ""


class ClosableChatModel(FakeChatModel):
    closed = False

    def close(self) -> None:
        self.closed = True


def test_the_facade_closes_its_outbox_models_and_database_when_the_block_ends():
    model = ClosableChatModel()
    with Engram(embedder=FakeEmbedder(), chat_model=model) as engram:
        engram.outbox.start()
        engram.store.add("I am allergic to peanuts", Scope(user=engram.user))
        assert engram.outbox.running
    assert model.closed and not engram.outbox.running
    with pytest.raises(apsw.ConnectionClosedError):
        engram.db.query("SELECT 1")


def test_the_facade_closes_when_the_block_fails_and_the_error_goes_on():
    model = ClosableChatModel()
    with pytest.raises(NotFound), Engram(embedder=FakeEmbedder(), chat_model=model) as engram:
        engram.sessions.get("missing")
    assert model.closed
    with pytest.raises(apsw.ConnectionClosedError):
        engram.db.query("SELECT 1")


@pytest.mark.parametrize("argv, code", [
    (["memory", "list"], 0),
    (["memory", "history", "7"], 2),
    (["sessions", "list"], 0),
    (["sessions", "show", "missing"], 2),
    (["prefs", "set", "tone", "warm"], 0),
    (["outbox", "status"], 0),
    (["files", "list", "--session", "missing"], 2),
    (["forget", "--text", "peanuts", "--yes"], 0),
])
def test_every_command_closes_what_it_opened(monkeypatch, capsys, argv, code):
    opened, closed = [], []
    original_init, original_close = Engram.__init__, Engram.close

    def init(self, *args, **kwargs):
        kwargs["meaning"] = False           # no embedding model needed to see the facade close
        original_init(self, *args, **kwargs)
        opened.append(self)

    def close(self):
        closed.append(self)
        original_close(self)

    monkeypatch.setattr(Engram, "__init__", init)
    monkeypatch.setattr(Engram, "close", close)
    assert main(argv) == code
    assert opened and closed == opened
