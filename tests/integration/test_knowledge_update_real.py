"""Issue 18's knowledge-update case with the bundled multilingual-e5-small (the real twin of
tests/unit/test_knowledge_update.py): the embedding model finds every address alike, so the
newest one comes first by validity, not by luck of wording."""

from __future__ import annotations

import json

import pytest
from fakes import FakeChatModel
from moves import HOMES, QUESTION, Mover, ask, home_of, tell_three_moves

from engram.cli import main
from engram.core.app import Engram
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions

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


def test_the_cli_shows_history_only_when_asked_and_marks_what_is_no_longer_true(isolated_dirs, real_embedder, capsys):
    engram = Engram(embedder=real_embedder, chat_model=FakeChatModel(Mover()))
    try:
        engram.settings.distill_memories = "on"
        tell_three_moves(engram)
    finally:
        engram.outbox.stop()
        engram.db.close()
    capsys.readouterr()

    def search(*flags: str) -> list[dict]:
        assert main(["memory", "search", "--user", "u", "--json", "-k", "20", *flags, QUESTION]) == 0
        return [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    current = [(home_of(m["text"]), m.get("outdated")) for m in search() if home_of(m["text"])]
    assert current and set(current) == {("Harbour Lane", None)}
    history = [(home_of(m["text"]), m["outdated"]) for m in search("--history") if home_of(m["text"])]
    assert history[0] == ("Harbour Lane", "")
    assert {home for home, why in history if why} == set(HOMES[:2])
    assert {why.split(" since")[0] for _, why in history if why} == {"superseded", "out of date"}
    assert main(["memory", "search", "--user", "u", "--history", "-k", "20", QUESTION]) == 0
    shown = [line for line in capsys.readouterr().out.splitlines() if "Elm Road" in line]
    assert shown and all(line.endswith("  [superseded]") or "  [out of date since " in line for line in shown)
