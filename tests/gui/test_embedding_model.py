"""The embedding model in the window: a broken one leaves a working window with a warning, and
another one is taken into use from Settings without a restart (or refused in place)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from engram.core.paths import BUNDLED_EMBEDDING_MODEL
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions

pytestmark = pytest.mark.real_model


def test_a_broken_embedding_model_leaves_a_working_window_until_settings_fix_it(qtbot, open_window, send,
                                                                                  isolated_dirs):
    broken = isolated_dirs / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    (isolated_dirs / "config").mkdir(exist_ok=True)
    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"embedding_model": str(broken)}))
    window = open_window(shared_embedder=False)
    engram = window.backend.engram

    banner = window.words_only
    assert banner.isVisible() and not banner.close_button.isVisible()
    assert "embedding model did not load" in banner.text() and str(broken) in banner.text()
    assert "words only" in banner.text()
    qtbot.waitUntil(lambda: "words only" in window.status.health.text(), timeout=10_000)

    reply = send(window, "I am allergic to peanuts.")
    assert reply.key is not None and window.status.state == "ready"
    qtbot.waitUntil(lambda: engram.outbox.health().pending == 0 and engram.store.count() >= 1, timeout=30_000)
    # (the person's words are archived; the demo model's reply may be one the archive leaves out)
    assert banner.isVisible()                                  # sending hides other notices, never this one
    me = Scope(user=engram.user)
    said = "I am allergic to peanuts."        # the demo model's reply may mention peanuts too
    assert said in [h.memory.text for h in engram.store.search("peanuts", me).hits[:2]]

    qtbot.mouseClick(next(b for b in banner.buttons if b.text() == "Try again"), Qt.LeftButton)
    assert "Loading" in banner.text()
    qtbot.waitUntil(lambda: "did not load" in banner.text(), timeout=10_000)    # the same file, the same answer
    assert engram.embedder is None

    settings_button = next(b for b in banner.buttons if b.text() == "Settings…")
    qtbot.mouseClick(settings_button, Qt.LeftButton)
    dialog = window.settings_dialog
    assert dialog.isVisible() and dialog.pages.tabText(dialog.pages.currentIndex()) == "Models"
    assert "did not load" in dialog.notice.text()
    dialog.embedding_model.set_path("")                       # "Use default": the bundled model
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=30_000)
    assert engram.embedder is not None and not banner.isVisible()
    qtbot.waitUntil(lambda: window.status.health.text() == "Memory: up to date", timeout=30_000)
    assert engram.store.pending_embeddings() == 0
    hits = engram.store.search("which foods should I avoid?", me, SearchOptions(mode="meaning", k=2)).hits
    assert said in [h.memory.text for h in hits] and all(h.similarity is not None for h in hits)


def test_a_model_that_does_not_load_is_refused_in_place_and_the_one_in_use_stays(qtbot, open_window, isolated_dirs):
    window = open_window()
    engram = window.backend.engram
    in_use = engram.embedder
    truncated = isolated_dirs / "truncated.gguf"              # its header reads well; llama.cpp cannot load it
    truncated.write_bytes(BUNDLED_EMBEDDING_MODEL.read_bytes()[: 2 << 20])
    window.open_settings(page="Models")
    dialog = window.settings_dialog
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "used as soon as it is saved" in texts and "restart" not in texts

    dialog.embedding_model.set_path(str(truncated))
    qtbot.waitUntil(lambda: "384 dimensions" in dialog.embedding_model.info.text(), timeout=10_000)
    dialog.save()
    qtbot.waitUntil(lambda: "could not load" in dialog.embedding_model.info.text(), timeout=30_000)
    assert "nothing was saved" in dialog.notice.text()
    assert engram.embedder is in_use and engram.settings.embedding_model == ""
    assert not (isolated_dirs / "config" / "settings.json").exists()
    assert not window.words_only.isVisible()


def test_embedding_gpu_layers_are_set_in_settings_and_reload_the_embedding_model(qtbot, open_window, isolated_dirs,
                                                                                 monkeypatch):
    import engram.core.app as app

    loaded = []
    real = app.GGUFEmbedder

    def recorded(path, gpu_layers):
        loaded.append(gpu_layers)
        return real(path, gpu_layers=gpu_layers)

    monkeypatch.setattr(app, "GGUFEmbedder", recorded)
    window = open_window(reply_tokens=64, shared_embedder=False)     # (a number the dialog shows as it is)
    engram = window.backend.engram
    in_use, engine = engram.embedder, engram.turn_engine
    window.open_settings(page="Models")
    dialog = window.settings_dialog
    box = dialog.embedding_gpu_layers
    assert box.setting() == "auto" and box.text() == "auto" and "embedding model" in box.toolTip()
    assert dialog.gpu_layers.setting() == "auto" and "chat model" in dialog.gpu_layers.toolTip()
    box.set_setting(0)
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=30_000)
    assert loaded == ["auto", 0] and engram.embedder is not in_use
    assert engram.settings.embedding_gpu_layers == 0 and engram.settings.chat_gpu_layers == "auto"
    assert engram.turn_engine is engine and window.status.state == "ready"      # nothing else reloaded
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["embedding_gpu_layers"] == 0
    dialog.close()
    window.open_settings(page="Models")
    assert window.settings_dialog.embedding_gpu_layers.text() == "0"
