"""Issue 18's knowledge-update case with the bundled multilingual-e5-small (the real twin of
tests/unit/test_knowledge_update.py): the embedding model finds every address alike, so the
newest one comes first by validity, not by luck of wording."""

from __future__ import annotations

import pytest
from fakes import FakeChatModel
from moves import HOMES, QUESTION, Mover, ask, home_of, tell_three_moves

from engram.core.app import Engram
from engram.core.memory.scope import Scope
from engram.core.memory.search.fusion import SearchOptions

pytestmark = pytest.mark.real_model


def test_the_newest_address_is_recalled_and_the_older_ones_only_as_history(isolated_dirs, real_embedder):
    engram = Engram(embedder=real_embedder, chat_model=FakeChatModel(Mover()))
    try:
        engram.settings.distill_memories = "on"
        tell_three_moves(engram)
        homes = [home_of(m["text"]) for m in ask(engram)]
        assert homes[0] == "Harbour Lane" and set(homes) - {None} == {"Harbour Lane"}

        history = engram.store.search(QUESTION, Scope(user="u"), SearchOptions(k=20, include_superseded=True)).hits
        places = [home_of(h.memory.text) for h in history]
        assert set(places) - {None} == set(HOMES)
        assert max(i for i, p in enumerate(places) if p == "Harbour Lane") < min(
            i for i, p in enumerate(places) if p in HOMES[:2])
    finally:
        engram.outbox.stop()
        engram.db.close()       # the embedding model is the session's; its fixture closes it
