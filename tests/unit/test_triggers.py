"""Trigger words and questions about the person (core/conversation/triggers.py), and recall_mode "triggered"
in the turn engine: recall runs only when a message asks about the past, and a trigger widens
the always-on search."""

from __future__ import annotations

import pytest

from engram.core.conversation.recall import WIDER_RESULTS, WIDER_THRESHOLD
from engram.core.settings import Settings
from engram.core.conversation.triggers import CHINESE, ENGLISH, TriggerWords

TRIGGERS = TriggerWords()


@pytest.mark.parametrize("text, words", [
    ("Do you remember my sister's name", ("remember",)),
    ("As I said BEFORE, it broke", ("before", "i said")),
    ("What did we discuss last   time?", ("last time",)),
    ("Remember?", ("remember",)),
    ("我之前说过我喜欢猫", ("之前", "说过")),
    ("我上次說過的那件事", ("上次", "说过")),                # Traditional, found as Simplified
    ("我remember你说过", ("remember", "说过")),              # English next to Chinese is still a whole word
    ("上次you said it was fine", ("you said", "上次")),
])
def test_trigger_words_are_found_in_english_and_chinese(text, words):
    assert TRIGGERS.find(text).words == words


@pytest.mark.parametrize("text", [
    "Beforehand, check the weather in Chicago",    # "before" and "ago" inside longer words
    "I remembered nothing",                         # another word: a list of one's own may add it
    "Write a poem about the sea",
    "法国的首都是哪里？",
])
def test_words_inside_other_words_or_none_at_all_trigger_nothing(text):
    assert not TRIGGERS.find(text).words


@pytest.mark.parametrize("text, about", [
    ("What is my dog's name?", True),
    ("where do I live", True),                     # a question without its mark
    ("When did I start running?", True),
    ("我住在哪里？", True),
    ("我的猫叫什么名字", True),
    ("How do I reverse a list in Python?", False),  # how to, not about the person
    ("What is the capital of France?", False),
    ("My cat is asleep.", False),                   # about the person, but no question
    ("一年有几个月？", False),
])
def test_a_question_about_the_person_asks_about_their_past(text, about):
    trigger = TRIGGERS.find(text)
    assert trigger.about_person is about and bool(trigger) is about


def test_lists_as_a_person_writes_them_are_cleaned_and_case_does_not_matter():
    triggers = TriggerWords.of(["  Back  Then ", "", "back then", "FOO"], ["當時", " ", "当时"])
    assert triggers.english == ("back then", "foo") and triggers.chinese == ("当时",)
    assert triggers.find("BACK then we had a FOO").words == ("back then", "foo")
    assert triggers.find("那时候当时").words == ("当时",)
    assert TriggerWords.of([], []).find("remember 上次").words == ()


def test_the_settings_hold_the_default_lists_and_refuse_a_list_of_non_words(tmp_path):
    settings = Settings.load(tmp_path)
    assert settings.recall_triggers_en == list(ENGLISH) and settings.recall_triggers_zh == list(CHINESE)
    assert {"之前", "那个", "我记得", "上次", "以前", "说过"} <= set(CHINESE)     # seed 001's list
    settings.recall_triggers_en = ["back then"]
    settings.save()
    assert Settings.load(tmp_path).recall_triggers_en == ["back then"]
    (tmp_path / "settings.json").write_text('{"recall_triggers_zh": ["之前", 3], "recall_triggers_en": "before"}')
    loaded = Settings.load(tmp_path)
    assert loaded.recall_triggers_zh == list(CHINESE) and loaded.recall_triggers_en == list(ENGLISH)
    assert "recall_triggers_en" in loaded.problem and "recall_triggers_zh" in loaded.problem


def told(engram, fact: str = "I am allergic to peanuts") -> None:
    engram.sessions.get_or_create("one", "u")
    engram.turn_engine.send("one", fact)
    engram.outbox.run_due()
    engram.sessions.get_or_create("two", "u")


def test_triggered_mode_searches_only_when_the_message_asks_about_the_past(make_engram):
    engram = make_engram(("Noted.",), recall_mode="triggered", window_messages=2)
    told(engram)
    plain = engram.turn_engine.send("two", "peanuts snack ideas")
    assert plain.record.recalled == [] and "```memory" not in plain.record.messages[-1]["content"]
    searched = {k: v for k, v in plain.record.recall.items() if k != "profile"}     # the profile is in every turn
    assert searched == {"mode": "triggered", "searched": False, "triggers": [], "about_person": False}
    assert plain.record.timings["search_ms"] == 0
    asked = engram.turn_engine.send("two", "Remember the peanuts thing?")
    assert [m["text"] for m in asked.record.recalled] == ["I am allergic to peanuts"]
    assert asked.record.recall["searched"] and asked.record.recall["triggers"] == ["remember"]
    assert "```memory" in asked.record.messages[-1]["content"]
    assert engram.turns.for_reply(asked.reply.id).recall == asked.record.recall     # stored with the reply
    about = engram.turn_engine.send("two", "我对什么过敏? peanuts")
    assert about.record.recall["about_person"] and about.record.recalled
    assert "search_memory" not in engram.chat_model().calls[-1][0]["content"]     # no tool: recall is injected


def test_the_trigger_lists_of_the_settings_are_the_ones_used(make_engram):
    engram = make_engram(("Noted.",), recall_mode="triggered", window_messages=2,
                         recall_triggers_en=["peanut story"], recall_triggers_zh=[])
    told(engram)
    assert not engram.turn_engine.send("two", "Remember the peanuts?").record.recall["searched"]
    assert engram.turn_engine.send("two", "the PEANUT story, peanuts").record.recalled


def test_a_trigger_widens_the_always_on_search(make_engram):
    engram = make_engram(("Noted.",), window_messages=2, recall_max_results=1)
    told(engram)
    plain = engram.turn_engine.send("two", "peanuts snack ideas").record.recall
    plain.pop("profile")                # the profile is in every turn: not recall's part
    assert plain == {"mode": "before_call", "searched": True, "triggers": [], "about_person": False,
                     "widened": False, "max_results": 1, "threshold": engram.settings.recall_threshold}
    wide = engram.turn_engine.send("two", "peanuts, as I said before").record.recall
    assert wide["widened"] and wide["max_results"] == 1 + WIDER_RESULTS
    assert wide["threshold"] == pytest.approx(engram.settings.recall_threshold * WIDER_THRESHOLD)


def test_a_wider_search_recalls_more(make_engram):
    engram = make_engram(("Noted.",), window_messages=2, recall_max_results=1)
    for n, fact in enumerate(("peanuts make me sick", "peanuts are in satay", "peanuts grow underground")):
        engram.sessions.get_or_create(f"s{n}", "u")
        engram.turn_engine.send(f"s{n}", fact)
    engram.outbox.run_due()
    engram.sessions.get_or_create("now", "u")
    assert len(engram.turn_engine.send("now", "peanuts").record.recalled) == 1
    assert len(engram.turn_engine.send("now", "peanuts, remember?").record.recalled) == 3
