"""The Memories tab follows every change to the memories without a reload: a turn archived, a
note distilled, another process writing; rows change in place and the selection stays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model
FOLLOW_MS = 5_000      # a bound for a stuck test; the list asks twice a second (tests/bench/ui_bench.py)
ANOTHER_PROCESS = """
import sys
sys.path.insert(0, sys.argv[1])
from engram.core.app import Engram
from engram.core.memory.scope import Scope
from fakes import FakeEmbedder
with Engram(sys.argv[2], embedder=FakeEmbedder()) as engram:
    engram.store.add(sys.argv[4], Scope(user=sys.argv[3]), "fact")
"""


def shown(window) -> list[str]:
    rows = window.memories.list
    return [rows.topLevelItem(i).data(0, Qt.UserRole).text for i in range(rows.topLevelItemCount())]


def stored(engram) -> list[str]:
    return [m.text for m in engram.store.list(Scope(user=engram.user), limit=None, pinned_first=True)]


def test_the_tab_follows_a_turn_a_note_and_another_process_without_a_reload(qtbot, open_window, send, monkeypatch):
    window = open_window(reply_tokens=4)
    engram = window.backend.engram
    qtbot.waitUntil(lambda: window.memories.list.mark is not None)       # the first reading, done
    reloads = []
    monkeypatch.setattr(window.memories.list, "fill", lambda *a, f=window.memories.list.fill: (reloads.append(1), f(*a)))
    send(window, "I keep bees in my garden")
    qtbot.waitUntil(lambda: len(stored(engram)) >= 2 and shown(window) == stored(engram), timeout=30_000)

    # A note as distillation stores it, on a thread of its own, while the tab shows the first row.
    window.memories.list.setCurrentItem(window.memories.list.topLevelItem(1))
    selected = window.memories.current.id
    engram.store.add("Keeps bees", Scope(user=engram.user), Kind.FACT, actor="model",
                     source={"made_by": "distillation"})
    qtbot.waitUntil(lambda: "Keeps bees" in shown(window), timeout=FOLLOW_MS)
    assert window.memories.current.id == selected and window.memories.list.selected_id() == selected
    assert window.memories.count.text() == f"{len(stored(engram))} memories"

    root = str(Path(__file__).parents[1])
    subprocess.run([sys.executable, "-c", ANOTHER_PROCESS, root, str(engram.data_dir), engram.user,
                    "My hives are on the roof"], check=True, env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    qtbot.waitUntil(lambda: "My hives are on the roof" in shown(window), timeout=FOLLOW_MS)
    assert shown(window) == stored(engram) and window.memories.list.selected_id() == selected
    assert reloads == []          # each change came as rows, not as the whole list again


def test_rows_edited_pinned_and_forgotten_elsewhere_change_in_place(qtbot, open_window):
    window = open_window()
    engram = window.backend.engram
    scope = Scope(user=engram.user)
    older = engram.store.add("Older note", scope, "fact", created_at="2026-01-01T00:00:00")
    newer = engram.store.add("Newer note", scope, "fact")
    window.memories.refresh()
    qtbot.waitUntil(lambda: shown(window) == ["Newer note", "Older note"])
    window.memories.list.setCurrentItem(window.memories.list.topLevelItem(0))

    engram.store.update(older.id, pinned=True)                 # pinned memories come first
    qtbot.waitUntil(lambda: shown(window) == ["Older note", "Newer note"], timeout=FOLLOW_MS)
    assert window.memories.list.topLevelItem(0).text(0).startswith("★")
    assert window.memories.current.id == newer.id              # still selected

    engram.store.update(newer.id, text="Newer note, corrected")
    qtbot.waitUntil(lambda: window.memories.editor.toPlainText() == "Newer note, corrected", timeout=FOLLOW_MS)
    engram.store.delete(newer.id)
    qtbot.waitUntil(lambda: shown(window) == ["Older note"], timeout=FOLLOW_MS)
    assert window.memories.current is None and "forgotten" in window.memories.message.text()
