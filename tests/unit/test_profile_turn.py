"""The profile in turns: learned from the person's message, in every later chat's context (the
seeds' peanut example), after the stable prefix; hand edits reach the next turn; the person's
choice of learning; the model's profile_note tool; short replies never take a recall slot."""

from __future__ import annotations

from engram.core.profile.document import PROPOSED, ProfileLine


def system_of(engram) -> dict:
    return engram.chat_model().calls[-1][0]


def test_an_allergy_said_in_one_chat_is_in_the_context_of_a_snack_question_in_another(make_engram):
    engram = make_engram()
    first = engram.turn_engine.send(engram.sessions.get_or_create("s1", engram.user).id, "I'm allergic to peanuts.")
    assert [(c.action, c.line.text) for c in first.noted] == [("noted", "Allergic to peanuts.")]
    assert first.record.recall["profile"]["noted"][0]["text"] == "Allergic to peanuts."
    second = engram.turn_engine.send(engram.sessions.get_or_create("s2", engram.user).id, "Can you recommend a snack?")
    system = system_of(engram)
    assert "Allergic to peanuts." in system["content"]
    assert second.noted == [] and second.record.tokens["sections"]["profile"] > 0
    # The profile follows the stable part: the system prompt is the marked prefix, the profile after it.
    stable = system["content"][:system["stable"]]
    assert stable.startswith("You are Engram") and "peanuts" not in stable
    # the one line "Allergic to peanuts." stands in the file with where it came from
    (line,) = engram.profiles.active(engram.user)
    assert line.session == "s1" and line.message == first.user_message.id and line.by == "rules"


def test_a_hand_edit_of_the_file_reaches_the_next_turn(make_engram):
    engram = make_engram()
    session = engram.sessions.get_or_create("s", engram.user).id
    engram.turn_engine.send(session, "I'm allergic to peanuts.")
    path = engram.profiles.path(engram.user)
    path.write_text(path.read_text(encoding="utf-8").replace("peanuts", "cashews") + "- My sister is Ana\n",
                    encoding="utf-8")
    engram.turn_engine.send(session, "hello")
    content = system_of(engram)["content"]
    assert "Allergic to cashews." in content and "My sister is Ana" in content and "peanuts" not in content


def test_learning_off_learns_nothing_and_ask_waits_for_an_ok(make_engram):
    engram = make_engram(profile_learning="off")
    result = engram.turn_engine.send(engram.sessions.get_or_create("s", engram.user).id, "I'm allergic to peanuts.")
    assert result.noted == [] and engram.profiles.read(engram.user).lines == []

    engram = make_engram(profile_learning="ask")
    session = engram.sessions.get_or_create("s", engram.user).id
    (change,) = engram.turn_engine.send(session, "I'm allergic to peanuts.").noted
    assert change.action == "proposed" and change.line.category == PROPOSED
    engram.turn_engine.send(session, "hello")
    assert "peanuts" not in system_of(engram)["content"]
    engram.profiles.accept(engram.user, change.line.id)
    engram.turn_engine.send(session, "hello again")
    assert "Allergic to peanuts." in " ".join(m["content"] for m in engram.chat_model().calls[-1])


def test_retry_does_not_learn_the_message_twice_and_users_are_apart(make_engram):
    engram = make_engram()
    session = engram.sessions.get_or_create("s", engram.user).id
    engram.turn_engine.send(session, "I'm allergic to peanuts.")
    assert engram.turn_engine.regenerate(session).noted == []
    assert len(engram.profiles.active(engram.user)) == 1
    engram.turn_engine.send(engram.sessions.get_or_create("other", "bob").id, "Can you recommend a snack?")
    assert "peanuts" not in system_of(engram)["content"]


def test_over_budget_the_most_important_lines_stay_and_the_record_names_the_rest(make_engram):
    engram = make_engram(profile_tokens=70)
    for i in range(12):
        engram.profiles.note(engram.user, ProfileLine(f"Minor detail number {i} about the garden.", "other",
                                                       importance=1))
    engram.profiles.note(engram.user, ProfileLine("Allergic to peanuts.", "health", importance=5))
    result = engram.turn_engine.send(engram.sessions.get_or_create("s", engram.user).id, "hello")
    (section,) = [s for s in result.record.messages if s["role"] == "system"]
    assert "Allergic to peanuts." in section["content"]
    profile_tokens = result.record.tokens["sections"]["profile"]
    assert profile_tokens <= 70 + 8
    assert "Minor detail number 11 about the garden." not in section["content"]


def test_the_model_notes_and_corrects_lines_with_its_tool(make_engram):
    calls = iter(['<tool_call>{"name": "profile_note", "arguments": {"text": "Lives in Lyon.",'
                  ' "category": "identity", "replaces": 1}}</tool_call>', "Noted, Lyon."])
    engram = make_engram(lambda messages: next(calls))
    engram.profiles.note(engram.user, ProfileLine("Lives in Paris.", "identity"))
    result = engram.turn_engine.send(engram.sessions.get_or_create("s", engram.user).id, "We moved last month.")
    assert result.record.tool_calls[0]["result"].startswith("noted: [2] Lives in Lyon.")
    assert [line.text for line in engram.profiles.active(engram.user)] == ["Lives in Lyon."]


def test_a_reply_of_a_few_words_never_takes_a_recall_slot(make_engram):
    engram = make_engram(["There", "OK."], profile_learning="off")
    engram.turn_engine.send(engram.sessions.get_or_create("s1", engram.user).id, "My favourite snack is dried mango.")
    engram.outbox.drain()
    result = engram.turn_engine.send(engram.sessions.get_or_create("s2", engram.user).id, "There you go, what snack?")
    recalled = [m["text"] for m in result.record.recalled]
    assert "There" not in recalled


def test_a_line_added_during_a_chat_goes_with_the_message_and_the_system_message_stays(make_engram):
    engram = make_engram()
    session = engram.sessions.get_or_create("s", engram.user).id
    engram.profiles.note(engram.user, ProfileLine("Lives in Lyon.", "identity"))
    engram.turn_engine.send(session, "hello")
    before = system_of(engram)["content"]
    result = engram.turn_engine.send(session, "I'm allergic to peanuts.")
    call = engram.chat_model().calls[-1]
    assert call[0]["content"] == before                       # the prefix llama.cpp holds stays usable
    assert "New in the person's profile" in call[-1]["content"] and "Allergic to peanuts." in call[-1]["content"]
    assert result.record.tokens["sections"]["profile update"] > 0
    engram.turn_engine.send(engram.sessions.get_or_create("s2", engram.user).id, "hi")
    assert "Allergic to peanuts." in system_of(engram)["content"]          # a new chat has it in place
    (line,) = [line for line in engram.profiles.active(engram.user) if "Lyon" in line.text]
    engram.profiles.edit(engram.user, line.id, "Lives in Paris.")
    engram.turn_engine.send(session, "and now?")
    content = system_of(engram)["content"]
    assert "Lives in Paris." in content and "Lyon" not in content and "Allergic to peanuts." in content
