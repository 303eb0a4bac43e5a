"""Thinking (chat_thinking): off by default and then asked off, on for chat only; the reasoning
streams apart from the answer and is never stored, archived, recalled, summarised or distilled,
nor sent as the API's content. With the fake chat model, whose replies go through the real
ReasoningSplit (tests/fakes.py)."""

from __future__ import annotations

import json

import openai
import pytest

from engram.core.conversation.distill import EXTRACT
from engram.core.conversation.summary import INSTRUCTIONS
from engram.core.errors import InvalidInput
from engram.core.conversation.memory_options import MemoryOptions
from engram.core.memory.scope import Scope
from engram.core.settings import Settings
from engram.integrations.api_key import api_key
from engram.integrations.api_server import ApiServer

SECRET = "the secret plan is tulips"
THINKS = f"<think>\n{SECRET}\n</think>\n\nThe train leaves at 9."


def replies(messages: list[dict]) -> str:
    """A reasoning model: it thinks before every answer, the summary's and the notes' too."""
    system = background(messages[0]["content"])
    if system == INSTRUCTIONS:
        return f"<think>{SECRET}</think>The person asked about trains."
    if system == EXTRACT:
        return f"<think>{SECRET}</think>" + json.dumps({"memories": [
            {"kind": "fact", "text": "The person takes the 9 o'clock train.", "from": [1], "importance": 3,
             "profile": "none"}]})
    return THINKS


def background(system: str) -> str:
    """The instructions of a summary or of a distillation (with or without the profile's field), else ``system``."""
    return EXTRACT if system.startswith(EXTRACT) else system


def everything_stored(engram) -> str:
    """Every text Engram keeps: messages, turn records, memories of every kind."""
    texts = [m.content for s in engram.sessions.list("u") for m in engram.sessions.messages(s.id)]
    texts += [m.text for m in engram.store.list(Scope(user="u"), limit=None)]
    rows = engram.db.conn.execute("SELECT * FROM turns").fetchall()
    return "\n".join(texts) + json.dumps([list(r) for r in rows], default=str)


def test_thinking_is_off_unless_asked_and_a_wrong_value_is_refused():
    assert Settings().chat_thinking == "off" and not MemoryOptions.from_settings(Settings()).thinking
    assert MemoryOptions.from_settings(Settings(chat_thinking="on")).thinking
    with pytest.raises(InvalidInput, match="chat_thinking"):
        MemoryOptions.from_settings(Settings(chat_thinking="maybe"))


@pytest.mark.parametrize("thinking", ["off", "on"])
def test_reasoning_is_never_the_message_nor_stored_anywhere(make_engram, thinking):
    engram = make_engram(replies, chat_thinking=thinking, distill_memories="on", summary_threshold=4,
                         summary_keep=1)
    engram.sessions.get_or_create("s", "u")
    shown, thought = [], []
    for n in range(3):
        result = engram.turn_engine.send("s", f"when is the train {n}?", on_token=shown.append,
                                         on_reasoning=thought.append)
        engram.outbox.run_due()
    assert result.reply.content == "The train leaves at 9." and SECRET not in "".join(shown)
    # On: the model was let think and the reasoning came apart; off: it was asked not to, and its
    # stray block was held back all the same.
    assert result.reasoning == (SECRET if thinking == "on" else "")
    assert "".join(thought).split() == (SECRET.split() * 3 if thinking == "on" else [])
    model = engram.chat_model()
    chats = [t for call, t in zip(model.calls, model.thinking) if background(call[0]["content"]) not in
             (INSTRUCTIONS, EXTRACT)]
    others = [t for call, t in zip(model.calls, model.thinking) if background(call[0]["content"]) in
              (INSTRUCTIONS, EXTRACT)]
    assert chats == [thinking == "on"] * 3
    assert others and not any(others)         # summaries and notes ask for no thinking
    assert engram.store.list(Scope(user="u"), kinds=["summary"]) and engram.store.list(Scope(user="u"), kinds=["fact"])
    assert SECRET not in everything_stored(engram) and "<think>" not in everything_stored(engram)
    assert result.record.tokens["reasoning"] == len(SECRET.split()) + 2      # the block's tokens, tags too


def test_the_api_sends_reasoning_as_reasoning_content_never_as_content(make_engram):
    engram = make_engram((THINKS,), chat_thinking="on")
    server = ApiServer(lambda: engram, port=0).start()
    try:
        client = openai.OpenAI(base_url=server.url, api_key=api_key(engram.data_dir), max_retries=0, timeout=30)
        answer = client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "train?"}])
        message = answer.choices[0].message
        assert message.content == "The train leaves at 9." and message.model_extra["reasoning_content"] == SECRET
        chunks = list(client.chat.completions.create(model="engram", stream=True,
                                                     messages=[{"role": "user", "content": "train?"}]))
        deltas = [c.choices[0].delta for c in chunks]
        assert "".join(d.content or "" for d in deltas) == "The train leaves at 9."
        assert "".join((d.model_extra or {}).get("reasoning_content") or "" for d in deltas).strip() == SECRET
    finally:
        server.stop()
    engram.settings.chat_thinking = "off"
    engram.apply_settings({"chat_thinking"})
    server = ApiServer(lambda: engram, port=0).start()
    try:
        client = openai.OpenAI(base_url=server.url, api_key=api_key(engram.data_dir), max_retries=0, timeout=30)
        message = client.chat.completions.create(model="engram",
                                                 messages=[{"role": "user", "content": "x"}]).choices[0].message
        assert message.content == "The train leaves at 9." and "reasoning_content" not in (message.model_extra or {})
    finally:
        server.stop()
