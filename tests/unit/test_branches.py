"""Branches: an edited message and Retry keep the earlier versions; only the shown one is the chat."""

from __future__ import annotations

import pytest

from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.both_backends


def said(engram, session_id="s") -> list[str]:
    return [m.content for m in engram.sessions.messages(session_id)]


def archived(engram, session_id="s") -> set[str]:
    engram.outbox.run_due()
    return {m.text for m in engram.store.list(Scope(session=session_id), kinds=["message"], limit=None)}


def test_an_edit_starts_a_branch_and_paging_brings_the_old_one_back_with_its_record(make_engram):
    engram = make_engram(lambda messages: "re: " + messages[-1]["content"].split()[-1], window_messages=10)
    engram.sessions.get_or_create("s", "u")
    engine = engram.turn_engine
    engine.send("s", "hello one")
    second = engine.send("s", "about cats")
    engine.send("s", "more cats")
    assert archived(engram) == {"hello one", "re: one", "about cats", "re: cats", "more cats"}

    edited = engine.edit("s", second.user_message.id, "about dogs")
    assert said(engram) == ["hello one", "re: one", "about dogs", "re: dogs"]
    sent = engram.chat_model().calls[-1]
    assert all("cats" not in m["content"] for m in sent), "the replaced version is not the model's history"
    assert archived(engram) == {"hello one", "re: one", "about dogs", "re: dogs"}
    versions = engine.branches.versions("s")
    assert list(versions) == [edited.user_message.id]
    place = versions[edited.user_message.id]
    assert (place.count, place.shown) == (2, 1)

    engine.show_version("s", place.fork(0))
    assert said(engram) == ["hello one", "re: one", "about cats", "re: cats", "more cats", "re: cats"]
    assert engram.turns.for_reply(second.reply.id).user_message_id == second.user_message.id
    assert archived(engram) == {"hello one", "re: one", "about cats", "re: cats", "more cats"}
    place = engine.branches.versions("s")[second.user_message.id]
    assert (place.count, place.shown) == (2, 0)
    engine.send("s", "back to it")                     # the chat goes on in the version shown
    assert [m["content"] for m in engram.chat_model().calls[-1][1:-1]][-2:] == ["more cats", "re: cats"]


def test_retry_keeps_every_reply_and_shows_one_at_a_time(make_engram):
    engram = make_engram(("First.", "Second.", "Third."))
    engram.sessions.get_or_create("s", "u")
    engine = engram.turn_engine
    first = engine.send("s", "answer me")
    engine.regenerate("s")
    third = engine.regenerate("s")
    assert said(engram) == ["answer me", "Third."]
    place = engine.branches.versions("s")[third.reply.id]
    assert (place.count, place.shown) == (3, 2)
    engine.show_version("s", place.fork(0))
    assert said(engram) == ["answer me", "First."]
    assert engram.turns.for_reply(first.reply.id).reply_message_id == first.reply.id
    assert archived(engram) == {"answer me", "First."}
    assert [engine.branches.versions("s")[first.reply.id].shown] == [0]


def test_a_branch_inside_a_version_set_aside_comes_back_with_it(make_engram):
    engram = make_engram(("A.", "B.", "C."))
    engram.sessions.get_or_create("s", "u")
    engine = engram.turn_engine
    first = engine.send("s", "one")
    engine.regenerate("s")                     # two replies to "one"
    engine.edit("s", first.user_message.id, "uno")
    assert said(engram) == ["uno", "C."]
    outer = engine.branches.versions("s")
    assert len(outer) == 1                     # the replies' place is inside the version set aside
    engine.show_version("s", next(iter(outer.values())).fork(0))
    assert said(engram) == ["one", "B."]
    inner = engine.branches.versions("s")
    assert {(v.count, v.shown) for v in inner.values()} == {(2, 0), (2, 1)}


def test_a_summary_of_messages_set_aside_is_forgotten(make_engram):
    engram = make_engram(lambda messages: "ok", window_messages=10)
    engram.sessions.get_or_create("s", "u")
    engine = engram.turn_engine
    first = engine.send("s", "one")
    engine.send("s", "two")
    last = engram.sessions.messages("s")[-1].id
    summary = engram.store.add("they said one and two", Scope(user="u", session="s"), Kind.SUMMARY,
                               source={"through_message_id": last})
    engine.edit("s", first.user_message.id, "eins")
    assert engram.store.list(Scope(session="s"), kinds=[Kind.SUMMARY]) == []
    assert summary.id not in {m.id for m in engram.store.list(Scope(user="u"), limit=None)}


def test_only_a_persons_own_message_can_be_edited(make_engram):
    from engram.core.errors import InvalidInput

    engram = make_engram()
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "hi")
    with pytest.raises(InvalidInput, match="not one of your messages"):
        engram.turn_engine.edit("s", result.reply.id, "changed")
    with pytest.raises(InvalidInput, match="empty"):
        engram.turn_engine.edit("s", result.user_message.id, "  ")
    assert said(engram) == ["hi", "OK."]


def test_deleting_a_chat_deletes_its_versions_too(make_engram):
    engram = make_engram()
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "hi")
    engram.turn_engine.regenerate("s")
    assert engram.db.query_one("SELECT count(*) FROM forks")[0] == 1
    engram.delete_session("s")
    assert engram.db.query_one("SELECT count(*) FROM forks")[0] == 0


def test_forget_everywhere_reaches_the_versions_set_aside_and_the_instructions(make_engram):
    from engram.core.forget import FORGOTTEN, find, forget_everywhere

    engram = make_engram(("Noted.",))
    engram.sessions.get_or_create("s", "ann")
    first = engram.turn_engine.send("s", "my passport number is ZX9931457Q")
    engram.outbox.run_due()
    engram.turn_engine.edit("s", first.user_message.id, "never mind")
    engram.turn_engine.chat_settings.set("s", instructions="Remind me of ZX9931457Q at the border.")
    engram.outbox.run_due()
    assert {"chat version", "chat instructions"} <= {p.what for p in find(engram, "ZX9931457Q", "ann")}
    forget_everywhere(engram, "zx9931457q", "ann")
    assert find(engram, "ZX9931457Q", "ann") == []
    assert engram.turn_engine.chat_settings.get("s").instructions == f"Remind me of {FORGOTTEN} at the border."
    place = next(iter(engram.turn_engine.branches.versions("s").values()))
    engram.turn_engine.show_version("s", place.fork(0))
    shown = engram.sessions.messages("s")
    assert shown[0].content == f"my passport number is {FORGOTTEN}"
    assert all("ZX9931457Q" not in m["content"] for m in engram.turns.for_reply(shown[1].id).messages)
