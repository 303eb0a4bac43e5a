"""The recency half-life is set in Settings › Memory, saved, and used by the next search."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.real_model


def test_the_recency_half_life_is_saved_and_the_next_search_uses_it(qtbot, open_window, send, isolated_dirs,
                                                                    monkeypatch):
    window = open_window()
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog.half_life.value() == 90                   # the default, shown
    dialog.half_life.setValue(14)
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=10_000)
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["recency_half_life_days"] == 14

    engram = window.backend.engram
    searched = []
    search = engram.store.search
    monkeypatch.setattr(engram.store, "search", lambda query, scope, options, **kw: (
        searched.append(options), search(query, scope, options, **kw))[1])
    send(window, "Do you remember where I live?")
    assert searched and {options.recency_half_life_days for options in searched} == {14}
    window.close()

    again = open_window()
    again.open_settings()
    assert again.settings_dialog.half_life.value() == 14
