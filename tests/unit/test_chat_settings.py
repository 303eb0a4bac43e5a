"""A chat's own settings: memory off, instructions, a model of its own."""

from __future__ import annotations

import pytest

from engram.core.conversation.distill import EXTRACT
from engram.core.errors import InvalidInput
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.both_backends


def test_memory_off_stores_the_words_but_archives_learns_and_recalls_nothing(make_engram):
    engram = make_engram(lambda messages: '{"memories": []}' if messages[0]["content"].startswith(EXTRACT)
                         else "Noted.", window_messages=10, distill_memories="on")
    engram.sessions.get_or_create("other", "u")
    engram.turn_engine.send("other", "I am allergic to peanuts")
    engram.outbox.run_due()
    kept = engram.store.count()
    engram.sessions.get_or_create("s", "u")
    assert engram.turn_engine.chat_settings.set("s", memory=False).memory is False

    result = engram.turn_engine.send("s", "my secret is that I am allergic to peanuts")
    engram.outbox.run_due()
    assert [m.content for m in engram.sessions.messages("s")] == ["my secret is that I am allergic to peanuts",
                                                                   "Noted."]
    assert engram.store.count() == kept, "nothing from a chat with memory off is kept in memory"
    assert result.record.recalled == [] and result.record.recall["chat"] == {"memory": False}
    assert result.record.recall["searched"] is False
    assert all("Recalled" not in m["content"] and m["content"].count("peanuts") <= 1
               for m in engram.chat_model().calls[-1])
    assert engram.outbox.health().pending == 0

    engram.sessions.get_or_create("next", "u")
    engram.turn_engine.send("next", "a new chat")      # the chat before it would be distilled now
    engram.outbox.run_due()
    assert all("secret" not in m.text for m in engram.store.list(Scope(user="u"), limit=None))

    engram.turn_engine.chat_settings.set("s", memory=True)
    for said in ("now remember this", "and this", "and that"):
        engram.turn_engine.send("s", said)
    engram.outbox.run_due()
    assert "now remember this" in {m.text for m in engram.store.list(Scope(session="s"), kinds=["message"])}
    extracted = [call for call in engram.chat_model().calls if call[0]["content"].startswith(EXTRACT)]
    assert extracted and all("secret" not in m["content"] for call in extracted for m in call), \
        "what was said with memory off is never distilled, not even once memory is on again"


def test_a_chats_instructions_follow_the_system_prompt_only_in_that_chat(make_engram):
    engram = make_engram()
    for chat in ("s", "t"):
        engram.sessions.get_or_create(chat, "u")
    engram.turn_engine.chat_settings.set("s", instructions="  Answer like a pirate.  ")
    result = engram.turn_engine.send("s", "hello")
    system = engram.chat_model().calls[-1][0]
    assert system["role"] == "system" and system["content"].index("Answer like a pirate.") > 0
    assert result.record.tokens["sections"]["instructions"] > 0
    assert result.record.recall["chat"] == {"instructions": "Answer like a pirate."}
    engram.turn_engine.send("t", "hello")
    assert "pirate" not in engram.chat_model().calls[-1][0]["content"]
    with pytest.raises(InvalidInput, match="limit"):
        engram.turn_engine.chat_settings.set("s", instructions="x" * 5000)
    assert engram.turn_engine.chat_settings.get("s").instructions == "Answer like a pirate."


def test_a_chats_model_answers_it_and_the_others_keep_the_settings_one(make_engram, monkeypatch, tmp_path):
    from fakes import FakeChatModel

    import engram.core.models.chat_model as chat_model

    engram = make_engram(("From the default.",))
    default = engram.chat_model()
    loaded = []

    def load(settings):
        model = FakeChatModel(("From the chat's own.",) if settings.chat_model else ("From the default.",))
        model.name = settings.chat_model
        loaded.append(model)
        return model

    monkeypatch.setattr(chat_model, "load_chat_model", load)
    own = tmp_path / "own.gguf"
    for chat in ("s", "t"):
        engram.sessions.get_or_create(chat, "u")
    engram.turn_engine.chat_settings.set("s", model=str(own))
    result = engram.turn_engine.send("s", "hi")
    assert result.reply.content == "From the chat's own." and result.record.recall["chat"] == {"model": str(own)}
    assert engram.any_chat_model() is loaded[0], "background work uses the model held, not another"
    assert engram.turn_engine.send("t", "hi").reply.content == "From the default."
    assert default not in loaded and len(loaded) == 2      # the settings' one, loaded again in its place
    assert engram.turn_engine.chat_settings.get("t").model == ""
