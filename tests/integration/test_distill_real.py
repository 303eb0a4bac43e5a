"""Distillation with the real demo chat model (SmolLM2-135M-Instruct) and real embeddings. The tiny
model's notes are poor, so this checks the plumbing only: grammar-constrained answers reach the store, or the
job fails cleanly through the outbox; the person's messages never change."""

from __future__ import annotations

import pytest

from engram.core.app import Engram
from engram.core.conversation.distill import DISTILL_JOB, DISTILLED_KINDS, distilled_through
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model


@pytest.fixture
def engram(real_embedder, real_chat_model):
    opened = Engram(embedder=real_embedder, chat_model=real_chat_model)
    opened.settings.distill_memories = "on"
    yield opened
    opened.outbox.stop()
    opened.db.close()           # the models are shared; their fixtures close them


def test_a_real_distillation_completes_or_fails_cleanly(engram):
    engram.sessions.get_or_create("s", "U")
    turns = [engram.turn_engine.send("s", text, max_tokens=8)
             for text in ("My name is Ada and I live in Lisbon.", "I am allergic to peanuts.",
                          "Remind me to call my sister on Friday.")]
    said = engram.sessions.messages("s")
    engram.outbox.run_due()

    [job] = [j for j in engram.outbox.jobs() if j.kind == DISTILL_JOB]
    assert job.state == "done" or (job.state == "pending" and job.last_error.startswith("ModelError: "))
    assert engram.sessions.messages("s") == said
    people = {t.user_message.id for t in turns}
    memories = engram.store.list(Scope(user="U"), kinds=DISTILLED_KINDS, limit=None)
    for memory in memories:
        assert memory.kind in DISTILLED_KINDS and memory.text.strip()
        assert memory.source_ids and set(memory.source_ids) <= people
        assert memory.source["session"] == "s" and memory.scope == Scope(user="U", session="s")
    assert distilled_through(engram.db, "s") == (max(people) if job.state == "done" else 0)
    print(f"\n{job.state}: {[(m.kind.value, m.text) for m in memories]} {job.last_error or ''}")
