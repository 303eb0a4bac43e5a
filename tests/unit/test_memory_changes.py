"""What changed in the memories since a mark (core/memory/changes.py): rows added, edited, pinned
and forgotten, through the list's filter, by this connection or another one."""

import pytest

from engram.core.memory import changes
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.both_backends


def test_changes_since_a_mark_name_only_what_changed(make_engram):
    engram = make_engram()
    store, ann = engram.store, Scope(user="ann")
    kept = store.add("I keep bees", ann, "fact")
    edited = store.add("My hives are blue", ann, "fact")
    store.add("Bob's note", Scope(user="bob"), "fact")
    mark = changes.mark(store)
    assert not changes.since(store, ann, mark)                      # nothing since: one lookup

    store.update(edited.id, text="My hives are green", pinned=True)
    added = store.add("Honey in June", ann, "task")
    store.add("Bob again", Scope(user="bob"), "fact")
    found = changes.since(store, ann, mark)
    assert {m.id: m.text for m in found.shown} == {edited.id: "My hives are green", added.id: "Honey in June"}
    assert found.gone == set() and found.mark > mark and kept.id not in {m.id for m in found.shown}

    only_facts = changes.since(store, ann, mark, kinds=("fact",), contains="HIVES")
    assert [m.id for m in only_facts.shown] == [edited.id] and only_facts.gone == {added.id}


def test_a_memory_forgotten_just_after_its_edit_is_seen_gone(make_engram):
    """The delete's history line must come after the mark even when the lines it erases were the
    newest (SQLite reuses the largest rowid of a table without AUTOINCREMENT)."""
    engram = make_engram()
    store, ann = engram.store, Scope(user="ann")
    memory = store.add("A passing thought", ann, "fact")
    store.update(memory.id, text="A passing thought, edited")
    mark = changes.mark(store)
    store.delete(memory.id)
    assert changes.since(store, ann, mark).gone == {memory.id}
