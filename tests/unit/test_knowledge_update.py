"""Issue 18's knowledge-update case with the fake embedder (its real twin:
tests/integration/test_knowledge_update_real.py): after two moves, "where do I live?" recalls the
newest address first and the older ones only as history."""

from __future__ import annotations

from moves import HOMES, QUESTION, Mover, ask, home_of, tell_three_moves

from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions


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


class AsksForHistory(Mover):
    """Mover, then to the question: a search_memory call for the current address, one for its
    history, then an answer."""

    CALLS = ('{"query": "where the person lives"}', '{"query": "where the person lives", "include_history": true}')

    def __call__(self, messages: list[dict]) -> str:
        if messages[-1]["content"] != QUESTION and "<tool_response>" not in messages[-1]["content"]:
            return super().__call__(messages)
        asked = sum("<tool_response>" in m["content"] for m in messages)
        if asked < len(self.CALLS):
            return f'<tool_call>{{"name": "search_memory", "arguments": {self.CALLS[asked]}}}</tool_call>'
        return "You live on Harbour Lane."


def test_the_model_asks_for_history_and_the_older_addresses_are_marked_so(make_engram):
    engram = make_engram(AsksForHistory(), distill_memories="on", recall_mode="on_demand", recall_max_results=6)
    tell_three_moves(engram)
    engram.sessions.get_or_create("chat-4", "u")
    record = engram.turn_engine.send("chat-4", QUESTION).record
    current, history = (call["result"] for call in record.tool_calls)

    def homes(result):
        return [(home_of(line), "; superseded)" in line or "; out of date since" in line)
                for line in result.splitlines() if home_of(line)]

    assert homes(current) and set(homes(current)) == {("Harbour Lane", False)}
    assert homes(history)[0] == ("Harbour Lane", False)
    assert {home for home, marked in homes(history) if marked} == set(HOMES[:2])
    assert {home for home, marked in homes(history) if not marked} == {"Harbour Lane"}
    assert '"include_history"' not in current and record.tool_calls[1]["arguments"]["include_history"] is True

