"""Default prompts in the person's language, the person's own prompts winning, and tools on or off."""

from __future__ import annotations

import pytest

from engram.core.errors import InvalidInput
from engram.core.conversation.memory_options import MemoryOptions, tools_wanted
from engram.core.conversation.prompts import EN, FILE_TOOLS, RECALL, SYSTEM, ZH, recall_prompt, system_prompt, turn_language
from engram.core.memory.scope import Scope
from engram.core.settings import Settings


@pytest.mark.parametrize("text, language", [
    ("我用Python写代码", ZH), ("Bart在圣诞节晚会上跳舞", ZH), ("给我推荐点零食吧", ZH), ("帮我debug这个function", ZH),
    ("What does 你好 mean?", EN), ("I love 饺子", EN), ("Recommend a snack", EN), ("12345", EN),
    ("東京に行きたいです", EN),           # Japanese: kana outnumber the Han characters
])
def test_the_language_of_a_message(text, language):
    assert turn_language("", text) == language


@pytest.mark.parametrize("preference, language", [
    ("中文", ZH), ("简体中文", ZH), ("Chinese", ZH), ("Simplified Chinese", ZH), ("zh-CN", ZH), ("普通话", ZH),
    ("English", EN), ("French", EN),
])
def test_the_language_preference_wins_over_the_message(preference, language):
    assert turn_language(preference, "我对花生过敏" if language == EN else "I am allergic to peanuts") == language


def test_defaults_follow_the_language_and_the_persons_own_prompt_wins():
    assert system_prompt(Settings().system_prompt, ZH) == SYSTEM[ZH]     # a settings file stores the default
    assert system_prompt(SYSTEM[ZH], EN) == SYSTEM[EN]
    assert system_prompt("", ZH) == SYSTEM[ZH]
    assert system_prompt("You are a pirate.", ZH) == "You are a pirate."
    assert recall_prompt(Settings().recall_prompt, ZH) == RECALL[ZH]
    assert recall_prompt("Old notes:", ZH) == "Old notes:"


def test_a_chinese_message_gets_chinese_prompts(make_engram):
    engram = make_engram()
    engram.store.add("我对花生过敏", Scope(user="u", session="old"), "message")
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "我对花生过敏吗？")
    system, user = engram.chat_model().calls[-1][0]["content"], engram.chat_model().calls[-1][-1]["content"]
    assert system.startswith(SYSTEM[ZH]) and FILE_TOOLS[ZH] in system and FILE_TOOLS[EN] not in system
    assert user.startswith(RECALL[ZH]) and "我对花生过敏" in user


def test_the_language_preference_and_the_persons_own_prompt(make_engram):
    engram = make_engram(system_prompt="Talk like a pirate.")
    engram.preferences.set("u", "language", "English")
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "我对花生过敏吗？")
    system = engram.chat_model().calls[-1][0]["content"]
    assert system.startswith("Talk like a pirate.") and FILE_TOOLS[EN] in system


def test_tools_are_off_for_the_demo_model_unless_asked_for():
    assert not tools_wanted(Settings())                                   # auto + the demo model
    assert tools_wanted(Settings(chat_model="/models/qwen3-4b.gguf"))
    assert tools_wanted(Settings(chat_tools="on")) and not tools_wanted(Settings(chat_model="m.gguf", chat_tools="off"))
    with pytest.raises(InvalidInput, match="chat_tools"):
        MemoryOptions.from_settings(Settings(chat_tools="sometimes"))


def test_auto_gives_tools_to_the_models_the_catalog_says_can_call_them_in_their_format():
    assert tools_wanted(Settings(chat_model="/m/Llama-3.2-3B-Instruct-Q4_K_M.gguf"))
    assert not tools_wanted(Settings(chat_model="/m/google_gemma-3-1b-it-Q4_K_M.gguf"))
    gemma = MemoryOptions.from_settings(Settings(chat_model="/m/google_gemma-3-1b-it-Q4_K_M.gguf", chat_tools="on"))
    assert gemma.tools and gemma.tool_format == "json"
    mistral = MemoryOptions.from_settings(Settings(chat_model="/m/Mistral-7B-Instruct-v0.3-Q4_K_M.gguf"))
    assert mistral.tools and mistral.tool_format == "mistral"
    assert MemoryOptions.from_settings(Settings(chat_model="/m/mine.gguf")).tool_format == "hermes"
    unreadable = Settings(chat_model="/m/mine.gguf", model_catalog="/nowhere/catalog.json")
    assert tools_wanted(unreadable) and MemoryOptions.from_settings(unreadable).tool_format == "hermes"


def test_without_tools_the_prompt_has_no_tools_and_recall_still_works(make_engram):
    engram = make_engram(chat_tools="off", recall_mode="on_demand")
    engram.store.add("I am allergic to peanuts", Scope(user="u", session="old"), "message")
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "am I allergic to peanuts?")
    system, user = engram.chat_model().calls[-1][0]["content"], engram.chat_model().calls[-1][-1]["content"]
    assert "tool" not in system and "files_" not in system and "tools" not in result.record.tokens["sections"]
    assert "I am allergic to peanuts" in user           # on_demand without tools: injected instead
