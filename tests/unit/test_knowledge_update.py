"""Issue 18's knowledge-update case with the fake embedder (its real twin:
tests/integration/test_knowledge_update_real.py): after two moves, "where do I live?" recalls the
newest address first and the older ones only as history."""

from __future__ import annotations

from moves import HOMES, QUESTION, Mover, ask, home_of, tell_three_moves

from engram.core.memory.scope import Scope
from engram.core.memory.search.fusion import SearchOptions


def test_the_newest_address_is_recalled_and_the_older_ones_only_as_history(make_engram):
    engram = make_engram(Mover(), distill_memories="on")
    tell_three_moves(engram)

    recalled = ask(engram)
    homes = [home_of(m["text"]) for m in recalled]
    assert homes[0] == "Harbour Lane" and set(homes) - {None} == {"Harbour Lane"}

    history = engram.store.search(QUESTION, Scope(user="u"), SearchOptions(k=20, include_superseded=True)).hits
    places = [home_of(h.memory.text) for h in history]
    assert places[0] == "Harbour Lane" and set(places) - {None} == set(HOMES)
    newest = max(i for i, place in enumerate(places) if place == "Harbour Lane")
    older = [h.memory for h, place in zip(history, places) if place in HOMES[:2]]
    assert min(places.index(home) for home in HOMES[:2]) > newest
    # the notes were superseded, the person's own words kept as valid until the move
    assert all(m.superseded_by is not None if m.kind != "message" else m.valid_to is not None for m in older)
    assert {m.kind.value for m in older} == {"fact", "message"}
