"""A document attached to a chat reaches the reply of the real demo model, with the bundled
embedder: the passage a question is about comes with it, citing the page, and an everyday message
brings none (the fake-model tests are in tests/unit/test_documents.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.core.app import Engram

pytestmark = pytest.mark.real_model
DATA = Path(__file__).resolve().parents[1] / "data" / "documents"


def test_a_paraphrased_question_brings_the_documents_page_and_small_talk_brings_none(real_embedder, tmp_path, monkeypatch):
    from engram.core.models.chat_model import load_chat_model
    from engram.core.settings import Settings

    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "data"))
    model = load_chat_model(Settings())
    engram = Engram(embedder=real_embedder, chat_model=model)
    try:
        folder = engram.sessions.get_or_create("d-1", "U").folder
        engram.documents.add(folder, DATA / "test.pdf")
        assert engram.outbox.drain(timeout=120) and engram.store.pending_embeddings() == 0
        result = engram.turn_engine.send("d-1", "Why would several cooperating AI assistants work better than one?",
                                         max_tokens=8)
        [passage] = [m for m in result.record.recalled if m["via"] == "chat_files"][:1]
        assert passage["text"].startswith("test.pdf, p. 1\n") and passage["similarity"] > 0
        assert '- test.pdf, p. 1: "' in result.record.messages[-1]["content"]
        for everyday in ("Hello, how are you today?", "我今天很累，推荐一部电影吧"):      # about nothing in it
            again = engram.turn_engine.send("d-1", everyday, max_tokens=8)
            assert not [m for m in again.record.recalled if m["via"] == "chat_files"], everyday
    finally:
        engram.outbox.stop()
        engram.db.close()       # the embedder is shared by the session and closed by its fixture
        model.close()
