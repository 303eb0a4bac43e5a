"""The turn engine with fake models: window, archive, summary, recall, tools, stop, budget."""

from __future__ import annotations

import re
import threading

import pytest

from engram.core.conversation.archive import ARCHIVE_JOB
from engram.core.errors import InvalidInput, ModelError, NotFound
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions

pytestmark = pytest.mark.both_backends


def window_of(call: list[dict]) -> list[dict]:
    """The window part of the messages sent: everything between the system message and the last."""
    return [m for m in call[:-1] if m["role"] != "system"]


def stop_after(pieces: int):
    """An on_token callback and the stop event it sets once ``pieces`` pieces have streamed."""
    stop, seen = threading.Event(), []

    def on_token(piece: str) -> None:
        seen.append(piece)
        if len(seen) == pieces:
            stop.set()

    return on_token, stop


def test_the_user_message_is_stored_before_the_model_runs(make_engram):
    def explode(messages):
        raise ModelError("the model fell over")

    engram = make_engram(explode)
    engram.sessions.get_or_create("s", "u")
    with pytest.raises(ModelError):
        engram.turn_engine.send("s", "please keep this")
    assert [m.content for m in engram.sessions.messages("s")] == ["please keep this"]
    assert engram.outbox.health().pending == 1          # its archive job is queued with it
    engram.outbox.run_due()
    assert engram.store.list(Scope(user="u"), kinds=["message"])[0].text == "please keep this"


def test_the_window_holds_at_most_n_messages_and_nothing_is_lost(make_engram):
    engram = make_engram(lambda messages: f"reply to {messages[-1]['content'].split()[-1]}", window_messages=4)
    engram.sessions.get_or_create("s", "u")
    for n in range(10):
        result = engram.turn_engine.send("s", f"message w{n}")
        window = window_of(engram.chat_model().calls[-1])
        assert len(window) == min(4, 2 * n)
        assert result.record.tokens["sections"]["window"] > 0 or n == 0
    engram.outbox.run_due()
    assert engram.sessions.count_messages("s") == 20
    for n in range(10):   # messages long out of the window are archived and found by words
        hits = engram.store.search(f"w{n}", Scope(user="u"), SearchOptions(mode="words", k=5)).hits
        assert {h.memory.text for h in hits} >= {f"message w{n}", f"reply to w{n}"}


def test_the_window_start_moves_in_steps_so_the_prompt_prefix_stays_put(make_engram):
    engram = make_engram(lambda messages: "ok " + messages[-1]["content"].split()[-1], window_messages=8)
    engram.sessions.get_or_create("s", "u")
    firsts, sizes = [], []
    for n in range(12):
        engram.turn_engine.send("s", f"message w{n}")
        window = window_of(engram.chat_model().calls[-1])
        sizes.append(len(window))
        firsts.append(window[0]["content"] if window else None)
    assert max(sizes) == 8 and min(sizes[5:]) == 6
    # half a window (4 messages, 2 turns) at a time: the first message stays for two turns
    assert firsts[5:] == ["message w2", "message w2", "message w4", "message w4", "message w6", "message w6",
                          "message w8"]


def test_after_60_messages_a_summary_exists_and_is_in_the_context(make_engram):
    def model(messages):
        if "Summarise the conversation" in messages[0]["content"]:
            return "The person counted words from w0 upwards."
        return "ok " + messages[-1]["content"].split()[-1]

    engram = make_engram(model, window_messages=20, summary_threshold=50, summary_keep=10)
    engram.sessions.get_or_create("s", "u")
    for n in range(30):
        engram.turn_engine.send("s", f"please note w{n}")
        engram.outbox.run_due()
    summaries = engram.store.list(Scope(session="s"), kinds=[Kind.SUMMARY])
    assert len(summaries) == 1 and summaries[0].text == "The person counted words from w0 upwards."
    assert len(summaries[0].source_ids) == 52 - 10      # summarised at 52 messages, keeping the last 10

    result = engram.turn_engine.send("s", "what did we do?")
    sent = engram.chat_model().calls[-1]
    assert "Summary of the earlier conversation:\nThe person counted words" in sent[0]["content"]
    assert result.record.tokens["sections"]["summary"] > 0
    assert len(window_of(sent)) <= 20
    through = summaries[0].source["through_message_id"]
    assert all(m_id > through for m_id in
               [m.id for m in engram.sessions.messages("s") if m.content in {w["content"] for w in window_of(sent)}])
    engram.outbox.run_due()
    all_messages = engram.sessions.messages("s")
    assert len(all_messages) == 62
    for n in range(30):
        hits = engram.store.search(f"w{n}", Scope(user="u"), SearchOptions(mode="words", k=10, kinds=("message",)))
        assert {h.memory.text for h in hits.hits} >= {f"please note w{n}", f"ok w{n}"}


def test_recalled_memories_are_fenced_data_after_the_window_and_before_the_words(make_engram):
    engram = make_engram(("Noted.",), window_messages=2)
    engram.sessions.get_or_create("one", "u")
    engram.turn_engine.send("one", "I am allergic to peanuts")
    engram.outbox.run_due()
    engram.sessions.get_or_create("two", "u")
    result = engram.turn_engine.send("two", "any peanuts snack ideas")
    sent = engram.chat_model().calls[-1]
    last = sent[-1]["content"]
    assert last.endswith("any peanuts snack ideas")
    assert re.search(r'```memory\n- "I am allergic to peanuts" \(the person said, \d{1,2} [A-Z][a-z]{2} \d{4}\)\n```', last)
    assert "one" not in last.split("```memory")[1]                  # no session id: replies copied them
    assert sent[0]["role"] == "system" and "allergic" not in sent[0]["content"]
    recalled = result.record.recalled
    assert recalled and recalled[0]["text"] == "I am allergic to peanuts" and recalled[0]["session"] == "one"
    assert recalled[0]["via"] == "before_call" and recalled[0]["score"] > 0
    assert result.record.messages == sent
    # the injected block is never stored as a message or a memory
    assert [m.content for m in engram.sessions.messages("two")] == ["any peanuts snack ideas", "Noted."]
    engram.outbox.run_due()
    assert not any("```" in m.text for m in engram.store.list(Scope(user="u"), limit=None))


def test_the_same_words_said_in_several_chats_are_recalled_once(make_engram):
    engram = make_engram(("Noted.",), window_messages=2, recall_max_results=2)
    for n, said in enumerate(("I am allergic to peanuts.", "i am allergic to  peanuts", "I am allergic to peanuts!",
                              "Peanut butter was my favourite as a child")):
        engram.sessions.get_or_create(f"s{n}", "u")
        engram.turn_engine.send(f"s{n}", said)
    engram.outbox.run_due()
    engram.sessions.get_or_create("today", "u")
    recalled = [m["text"] for m in engram.turn_engine.send("today", "peanuts allergic snack").record.recalled]
    assert len(recalled) == 2 and "Peanut butter was my favourite as a child" in recalled
    assert sum("allergic" in text for text in recalled) == 1


@pytest.mark.sqlite_only
def test_a_full_disk_stops_the_turn_before_the_model_and_stores_nothing(make_engram):
    from engram.core.errors import DataDirError

    engram = make_engram(("Noted.",))
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "hello")
    engram.db.execute(f"PRAGMA max_page_count = {engram.db.query_one('PRAGMA page_count')[0]}")
    calls = len(engram.chat_model().calls)
    with pytest.raises(DataDirError, match="is full"):
        engram.turn_engine.send("s", "a long message " * 800)
    assert len(engram.chat_model().calls) == calls            # the model was never asked
    assert [m.content for m in engram.sessions.messages("s")] == ["hello", "Noted."]


@pytest.mark.sqlite_only
def test_a_disk_full_after_the_model_replied_says_the_message_was_kept(make_engram):
    """The disk fills while the model writes: the message stored before it stays, and the error
    says so rather than "nothing was changed" (issue 33, defect 11)."""
    from engram.core.errors import DataDirError

    def fill_then_reply(messages):
        engram.db.execute(f"PRAGMA max_page_count = {engram.db.query_one('PRAGMA page_count')[0]}")
        return "long" * 20_000      # one token of the fake model, 80 kB

    engram = make_engram(fill_then_reply)
    engram.sessions.get_or_create("s", "u")
    with pytest.raises(DataDirError, match="is full: your message was kept; the reply was not stored"):
        engram.turn_engine.send("s", "remember my words")
    assert [m.content for m in engram.sessions.messages("s")] == ["remember my words"]


def test_what_the_window_holds_is_not_recalled_again(make_engram):
    engram = make_engram(("Noted.",), window_messages=10)
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "peanuts are my enemy")
    engram.outbox.run_due()
    result = engram.turn_engine.send("s", "peanuts again")
    assert result.record.recalled == []


def test_another_user_never_recalls_my_memories(make_engram):
    engram = make_engram(("Noted.",))
    engram.sessions.get_or_create("u1", "u")
    engram.turn_engine.send("u1", "I am allergic to peanuts")
    engram.outbox.run_due()
    engram.sessions.get_or_create("v1", "v")
    result = engram.turn_engine.send("v1", "peanuts allergic snack")
    assert result.record.recalled == []
    assert "peanuts" not in result.record.messages[-1]["content"].replace("peanuts allergic snack", "")


def test_search_scope_session_keeps_recall_inside_the_session(make_engram):
    engram = make_engram(("Noted.",), search_scope="user,session", window_messages=1)
    for s in ("a", "b"):
        engram.sessions.get_or_create(s, "u")
    engram.turn_engine.send("a", "the blue door code")
    engram.outbox.run_due()
    assert engram.turn_engine.send("b", "door code").record.recalled == []
    engram.turn_engine.send("a", "filler words here")
    engram.outbox.run_due()
    assert [m["text"] for m in engram.turn_engine.send("a", "door code").record.recalled] == ["the blue door code"]


def test_on_demand_recall_runs_the_search_memory_tool_and_hides_its_markup(make_engram):
    call = '<tool_call>{"name": "search_memory", "arguments": {"query": "peanuts"}}</tool_call>'
    engram = make_engram(("Noted.", "Let me check. " + call, "Avoid peanuts then."), recall_mode="on_demand")
    engram.sessions.get_or_create("one", "u")
    engram.turn_engine.send("one", "I am allergic to peanuts")
    engram.outbox.run_due()
    engram.sessions.get_or_create("two", "u")
    streamed: list[str] = []
    result = engram.turn_engine.send("two", "recommend a snack", on_token=streamed.append)
    assert "".join(streamed) == "Let me check. Avoid peanuts then."
    assert "tool_call" not in "".join(streamed)
    assert result.reply.content == "Let me check. Avoid peanuts then."
    calls = engram.chat_model().calls
    assert "search_memory" in calls[-2][0]["content"]                     # described in the system prompt
    assert "<tool_response>" in calls[-1][-1]["content"] and "allergic to peanuts" in calls[-1][-1]["content"]
    assert result.record.tool_calls[0]["name"] == "search_memory"
    assert [m["via"] for m in result.record.recalled] == ["search_memory"]
    assert "recall" not in [m["role"] for m in calls[-2]] and "```memory" not in calls[-2][-1]["content"]
    assert [m.content for m in engram.sessions.messages("two")] == ["recommend a snack", result.reply.content]


def test_a_bad_tool_call_is_answered_and_the_loop_is_bounded(make_engram):
    engram = make_engram(('<tool_call>{"name": "nope", "arguments": {}}</tool_call>',), recall_mode="hybrid")
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "hello")
    assert len(result.record.tool_calls) == engram.turn_engine.max_tool_rounds
    assert "no tool named 'nope'" in result.record.tool_calls[0]["result"]
    assert result.reply.content == "" and result.reply.status == "complete"


def test_stop_keeps_the_partial_reply_marked_stopped(make_engram):
    engram = make_engram(("one two three four five six seven eight",))
    engram.sessions.get_or_create("s", "u")
    on_token, stop = stop_after(3)
    result = engram.turn_engine.send("s", "count", on_token=on_token, stop=stop)
    assert result.stopped and result.reply.status == "stopped"
    assert result.reply.content == "one two three"
    assert engram.sessions.messages("s")[-1].status == "stopped"
    engram.outbox.run_due()
    assert engram.store.list(Scope(session="s"), kinds=["message"], contains="one two three")


def test_preferences_go_into_the_system_prompt(make_engram):
    engram = make_engram(("OK.",))
    engram.preferences.set("u", "language", "中文")
    engram.preferences.set("u", "emoji", "no")
    engram.preferences.set("u", "detail", "brief")
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "hi")
    system = result.record.messages[0]["content"]
    assert "language: 中文" in system and "no emoji" in system and "brief answers" in system
    assert result.record.tokens["sections"]["preferences"] > 0


def test_the_budget_drops_the_oldest_window_messages_first(make_engram):
    engram = make_engram(("word " * 5,), context_tokens=700, window_messages=50)
    engram.sessions.get_or_create("s", "u")
    for n in range(8):
        result = engram.turn_engine.send("s", f"w{n} " + "filler " * 80, max_tokens=100)
    assert result.record.tokens["cut"], "the window should have been cut to fit"
    assert result.record.tokens["context"] <= result.record.tokens["budget"]
    assert window_of(result.record.messages)[-1]["content"].startswith("word")   # newest kept


def test_the_turn_record_is_stored_with_the_reply(make_engram):
    engram = make_engram(("Hello there.",))
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "hi")
    stored = engram.turns.for_reply(result.reply.id)
    assert stored.to_json() == result.record.to_json()
    assert set(stored.timings) >= {"embed_ms", "search_ms", "prompt_ms", "generate_ms", "tokens_per_second"}
    assert stored.tokens["sections"]["system"] > 0 and stored.tokens["reply"] == 2


def message_memories(engram, session_id: str) -> dict[int, str]:
    """The archive's memories of a session, by the id of the message each was made from."""
    return {m.source["message_id"]: m.text
            for m in engram.store.list(Scope(session=session_id), kinds=["message"], limit=None)}


def test_regenerate_replaces_the_reply_and_never_repeats_the_message(make_engram):
    engram = make_engram(("The first answer.", "A second answer.", "The next answer."), window_messages=10)
    engram.sessions.get_or_create("s", "u")
    first = engram.turn_engine.send("s", "what is a lighthouse")
    engram.outbox.run_due()
    assert message_memories(engram, "s") == {first.user_message.id: "what is a lighthouse",
                                             first.reply.id: "The first answer."}

    again = engram.turn_engine.regenerate("s")
    assert again.user_message == first.user_message and again.reply.content == "A second answer."
    sent = engram.chat_model().calls[-1]
    assert window_of(sent) == [] and sent[-1]["content"].endswith("what is a lighthouse")
    assert [(m.role, m.content) for m in engram.sessions.messages("s")] == [
        ("user", "what is a lighthouse"), ("assistant", "A second answer.")]
    with pytest.raises(NotFound):
        engram.turns.for_reply(first.reply.id)
    assert [r.reply_message_id for r in engram.turns.for_session("s")] == [again.reply.id]
    archive_jobs = [job.payload["message_id"] for job in engram.outbox.jobs() if job.kind == ARCHIVE_JOB]
    assert sorted(archive_jobs) == [first.user_message.id, first.reply.id, again.reply.id]
    engram.outbox.run_due()
    assert message_memories(engram, "s") == {first.user_message.id: "what is a lighthouse",
                                             again.reply.id: "A second answer."}

    engram.turn_engine.send("s", "and then")
    assert window_of(engram.chat_model().calls[-1]) == [{"role": "user", "content": "what is a lighthouse"},
                                                        {"role": "assistant", "content": "A second answer."}]


def test_a_reply_replaced_while_the_archive_stores_it_is_forgotten_too(make_engram):
    engram = make_engram(("Old answer.", "New answer."))
    engram.sessions.get_or_create("s", "u")
    first = engram.turn_engine.send("s", "hello there")
    add = engram.store.add

    def add_after_a_retry(text, *args, **kwargs):
        if text == "Old answer.":           # the archive has read the reply; Retry replaces it now
            engram.turn_engine.regenerate("s")
        return add(text, *args, **kwargs)

    engram.store.add = add_after_a_retry
    engram.outbox.run_due()
    new = engram.sessions.messages("s")[-1]
    assert new.content == "New answer."
    assert message_memories(engram, "s") == {first.user_message.id: "hello there", new.id: "New answer."}


def test_recall_never_brings_back_the_reply_being_replaced(make_engram):
    engram = make_engram(("Try peanut butter crackers as a snack.", "Try apples."), window_messages=10)
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "a peanut snack please")
    engram.outbox.run_due()
    again = engram.turn_engine.regenerate("s")
    assert again.record.recalled == []
    assert all("crackers" not in m["content"] for m in engram.chat_model().calls[-1])


def test_regenerate_needs_a_message_and_answers_one_whose_turn_failed(make_engram):
    broken = [True]

    def model(messages):
        if messages[-1]["content"] == "this one fails" and broken[0]:
            raise ModelError("the model fell over")
        return "OK."

    engram = make_engram(model)
    engram.sessions.get_or_create("s", "u")
    with pytest.raises(InvalidInput, match="no message to answer again"):
        engram.turn_engine.regenerate("s")
    engram.turn_engine.send("s", "hi")
    with pytest.raises(ModelError):
        engram.turn_engine.send("s", "this one fails")
    assert [m.content for m in engram.sessions.messages("s")] == ["hi", "OK.", "this one fails"]
    broken[0] = False   # e.g. another chat model chosen: Retry answers the stored message, not a copy
    again = engram.turn_engine.regenerate("s")
    assert again.user_message.content == "this one fails" and again.reply.content == "OK."
    assert [m.content for m in engram.sessions.messages("s")] == ["hi", "OK.", "this one fails", "OK."]


def test_a_failed_regenerate_keeps_the_old_reply(make_engram):
    calls: list[int] = []

    def model(messages):
        calls.append(1)
        if len(calls) > 1:
            raise ModelError("the model fell over")
        return "Kept answer."

    engram = make_engram(model)
    engram.sessions.get_or_create("s", "u")
    first = engram.turn_engine.send("s", "hi")
    with pytest.raises(ModelError):
        engram.turn_engine.regenerate("s")
    assert [m.content for m in engram.sessions.messages("s")] == ["hi", "Kept answer."]
    assert engram.turns.for_reply(first.reply.id).reply_message_id == first.reply.id


def test_stop_during_regenerate_keeps_the_partial_new_reply(make_engram):
    engram = make_engram(("The old reply.", "one two three four five six seven eight"))
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "count")
    on_token, stop = stop_after(3)
    result = engram.turn_engine.regenerate("s", on_token=on_token, stop=stop)
    assert result.stopped and result.reply.content == "one two three"
    assert [(m.content, m.status) for m in engram.sessions.messages("s")] == [
        ("count", "complete"), ("one two three", "stopped")]
