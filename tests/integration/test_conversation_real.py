"""Cross-session recall with the real demo chat model and real embeddings.

We assert on the context the model was given (the turn record), not on what the tiny model says.
"""

from __future__ import annotations

import pytest

from engram.core.app import Engram
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model
MAX_TOKENS = 16


@pytest.fixture(scope="module")
def real_chat_model():
    from engram.core.models.chat_model import load_chat_model
    from engram.core.settings import Settings

    model = load_chat_model(Settings())
    yield model
    model.close()


@pytest.fixture
def engram(real_embedder, real_chat_model):
    opened = Engram(embedder=real_embedder, chat_model=real_chat_model)
    yield opened
    opened.outbox.stop()
    opened.db.close()           # the models are shared by the module; they are closed by their fixtures


@pytest.mark.parametrize("fact, question", [("I am allergic to peanuts", "Recommend me a snack"),
                                            ("我对花生过敏", "推荐个零食")])
def test_what_u_said_in_one_session_is_recalled_in_another_but_never_for_v(engram, fact, question):
    engram.sessions.get_or_create("u-1", "U")
    first = engram.turn_engine.send("u-1", fact, max_tokens=MAX_TOKENS)
    assert first.reply.content == first.generation.text.strip()
    engram.outbox.run_due()                              # archive and embed both messages

    engram.sessions.get_or_create("u-2", "U")
    second = engram.turn_engine.send("u-2", question, max_tokens=MAX_TOKENS)
    recalled = {m["text"]: m for m in second.record.recalled}
    assert fact in recalled, second.record.recalled
    assert recalled[fact]["session"] == "u-1" and recalled[fact]["similarity"] > 0      # by meaning: no shared word
    sent_last = second.record.messages[-1]["content"]
    assert sent_last.endswith(question) and f'\n- "{fact}" (the person said, ' in sent_last
    assert second.record.timings["embed_ms"] > 0 and second.record.timings["tokens_per_second"] > 0
    assert engram.turns.for_reply(second.reply.id).recalled == second.record.recalled

    engram.sessions.get_or_create("v-1", "V")
    other = engram.turn_engine.send("v-1", question, max_tokens=MAX_TOKENS)
    assert other.record.recalled == []
    assert all(fact not in m["content"] for m in other.record.messages)


def test_regenerate_replaces_the_reply_with_a_new_real_one(engram):
    engram.sessions.get_or_create("r-1", "U")
    first = engram.turn_engine.send("r-1", "Name a colour.", max_tokens=MAX_TOKENS)
    engram.outbox.run_due()
    streamed: list[str] = []
    again = engram.turn_engine.regenerate("r-1", on_token=streamed.append, max_tokens=MAX_TOKENS)
    assert again.reply.id != first.reply.id and again.reply.content == "".join(streamed).strip() != ""
    assert again.record.messages[-1]["content"].endswith("Name a colour.")
    assert [(m.id, m.role) for m in engram.sessions.messages("r-1")] == [(first.user_message.id, "user"),
                                                                         (again.reply.id, "assistant")]
    assert engram.turns.for_reply(again.reply.id).reply_message_id == again.reply.id
    engram.outbox.run_due()
    archived = {m.source["message_id"] for m in engram.store.list(Scope(session="r-1"), kinds=["message"], limit=None)}
    assert archived == {first.user_message.id, again.reply.id}


@pytest.mark.parametrize("fact, plain, asking", [
    ("I am allergic to peanuts", "Recommend me a snack", "Remember what I am allergic to?"),
    ("我对花生过敏", "推荐个零食", "我之前说过我对什么过敏？")])
def test_triggered_recall_searches_only_when_the_person_asks_about_the_past(engram, fact, plain, asking):
    engram.settings.recall_mode = "triggered"
    engram.sessions.get_or_create("t-1", "U")
    engram.turn_engine.send("t-1", fact, max_tokens=MAX_TOKENS)
    engram.outbox.run_due()
    engram.sessions.get_or_create("t-2", "U")
    quiet = engram.turn_engine.send("t-2", plain, max_tokens=MAX_TOKENS).record
    assert not quiet.recall["searched"] and quiet.recalled == [] and quiet.timings["embed_ms"] == 0
    assert "recalled" not in quiet.tokens["sections"]
    asked = engram.turn_engine.send("t-2", asking, max_tokens=MAX_TOKENS).record
    assert asked.recall["searched"] and asked.recall["widened"]
    assert fact in [m["text"] for m in asked.recalled] and asked.timings["embed_ms"] > 0
