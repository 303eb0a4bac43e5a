"""The Models dialog, offscreen: the catalog with what suits this machine, a download from a
loopback mirror of a real GGUF with progress, pause and resume, then Use."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressBar

from engram.core.paths import BUNDLED_EMBEDDING_MODEL
from engram.core.settings import Settings
from engram.ui.models_dialog import ModelsDialog
from model_server import ModelServer, write_catalog

URL = "test/minilm-GGUF/resolve/main/minilm.gguf"


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    server = ModelServer(pace_s=0.01).start()          # about 6 MiB/s: slow enough to watch
    server.serve(URL, BUNDLED_EMBEDDING_MODEL)
    catalog = write_catalog(tmp_path, server.url, [
        {"name": "small-chat", "title": "Small chat", "kind": "chat", "url": "test/c/resolve/main/c.gguf",
         "size": 300 * 2**20, "ram_gb": 0.8},
        {"name": "giant-chat", "title": "Giant chat", "kind": "chat", "url": "test/g/resolve/main/g.gguf",
         "size": 500 * 10**9, "ram_gb": 600.0},
        {"name": "minilm", "title": "MiniLM download", "kind": "embedding", "url": URL}])
    monkeypatch.setenv("ENGRAM_MODEL_CATALOG", str(catalog))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    yield server
    server.stop()


@pytest.fixture
def dialog(qtbot, fake_backend, mirror):
    shown = ModelsDialog(fake_backend)
    qtbot.addWidget(shown)
    shown.show()
    shown.load()
    qtbot.waitUntil(lambda: shown.table.rowCount() == 3)
    return shown


def cell(dialog, name, column):
    return dialog.table.item(dialog._row_of(name), column).text()


def bar(dialog, name):
    widget = dialog.table.cellWidget(dialog._row_of(name), 7)
    return widget if isinstance(widget, QProgressBar) else None


def test_the_catalog_shows_what_suits_this_machine(dialog):
    assert [dialog.table.item(r, 0).text() for r in range(3)] == ["Small chat", "Giant chat", "MiniLM download"]
    assert cell(dialog, "small-chat", 6).startswith("★ recommended · ≈ ") and cell(dialog, "small-chat", 6).endswith(
        " tokens/s") and cell(dialog, "giant-chat", 6).startswith("✗ too big")
    assert "GB/s" in dialog.table.item(dialog._row_of("small-chat"), 6).toolTip()       # the estimate's basis
    assert cell(dialog, "minilm", 6) == "✓ fits"
    assert "This computer:" in dialog.machine.text() and "GiB of memory" in dialog.machine.text()
    dialog.select("giant-chat")
    assert dialog.download_button.isEnabled() and not dialog.use_button.isEnabled()
    assert "test/g/resolve/main/g.gguf" in dialog.details.text()


def test_a_download_shows_progress_pauses_resumes_completes_and_is_used(qtbot, dialog, fake_backend, mirror, tmp_path):
    dialog.select("minilm")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: bar(dialog, "minilm") is not None and 0 < bar(dialog, "minilm").value() < 500,
                    timeout=20_000)
    assert "MiB/s" in bar(dialog, "minilm").format() and "left" in bar(dialog, "minilm").format()
    assert dialog.pause_button.isEnabled() and not dialog.download_button.isEnabled()

    qtbot.mouseClick(dialog.pause_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: bar(dialog, "minilm") is not None
                    and bar(dialog, "minilm").format().startswith("paused at"), timeout=20_000)
    assert 0 < bar(dialog, "minilm").value() < 1000
    dialog.select("minilm")
    assert dialog.download_button.text() == "Resume" and dialog.cancel_button.isEnabled()
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: cell(dialog, "minilm", 7) == "installed", timeout=30_000)
    assert mirror.ranges()[-1].startswith("bytes=") and mirror.ranges()[-1] != "bytes=0-"

    dialog.select("minilm")
    assert dialog.use_button.isEnabled()
    with qtbot.waitSignal(dialog.applied, timeout=20_000) as applied:
        qtbot.mouseClick(dialog.use_button, Qt.LeftButton)
    assert applied.args == [{"embedding"}]
    path = str(tmp_path / "models" / "minilm.gguf")
    assert fake_backend.engram.settings.embedding_model == path and Settings.load().embedding_model == path
    qtbot.waitUntil(lambda: cell(dialog, "minilm", 7) == "in use")


def test_a_failed_download_says_why_in_the_dialog(qtbot, dialog, mirror):
    dialog.select("giant-chat")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.notice.isVisible() and "HTTP 404" in dialog.notice.label.text(), timeout=20_000)
    assert "Download from" in dialog.notice.label.text()


def test_settings_models_page_opens_the_dialog(qtbot, fake_backend, mirror):
    from engram.ui.settings_dialog import SettingsDialog

    settings = SettingsDialog(fake_backend)
    qtbot.addWidget(settings)
    settings.load()
    settings.open_models()
    qtbot.waitUntil(lambda: settings.models_dialog.isVisible() and settings.models_dialog.table.rowCount() == 3)


def test_settings_models_page_offers_the_download_source_and_keeps_the_dialogs_in_step(qtbot, fake_backend, mirror):
    from engram.ui.settings_dialog import SettingsDialog

    settings = SettingsDialog(fake_backend)
    qtbot.addWidget(settings)
    settings.load()
    assert settings.source.source() == "huggingface" and not settings.source.custom.isVisible()
    settings.open_models()
    dialog = settings.models_dialog
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 3)
    settings.source.choose("hf-mirror")
    qtbot.waitUntil(lambda: Settings.load().model_source == "hf-mirror")
    qtbot.waitUntil(lambda: dialog.source.source() == "hf-mirror" and "hf-mirror.com" in dialog.machine.text())
    dialog.source.choose("modelscope")
    qtbot.waitUntil(lambda: settings.source.source() == "modelscope")
    dialog.select("small-chat")
    assert "is not on ModelScope" in dialog.details.text()        # no path there: said where the URL would be
    picker = settings.source
    picker.combo.setCurrentIndex(picker.combo.findData("custom"))
    picker.save()                                                  # no base URL yet: nothing saved
    assert picker.custom.isVisibleTo(settings) and Settings.load().model_source == "modelscope"
    picker.custom.setText(mirror.url)
    picker.save()
    qtbot.waitUntil(lambda: (Settings.load().model_source, Settings.load().model_mirror) == ("custom", mirror.url))
