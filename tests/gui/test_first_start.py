"""The first start, offscreen: a fresh install offers the model that suits this computer and this
person, one click downloads it (from loopback servers laid out like the hub and like ModelScope)
while the demo answers, and it is used once there; the choice is not offered again. Also the
Measure of issue 34: clicks and seconds from the first window to a download running, per source."""

from __future__ import annotations

import hashlib
import time

import pytest
from PySide6.QtCore import Qt

from engram.core.paths import BUNDLED_EMBEDDING_MODEL
from engram.core.settings import Settings
from engram.ui import language
from model_server import ModelServer, write_catalog

HUB_URL = "Qwen/Qwen3-4B-GGUF/resolve/bc640142c66e1fdd12af0bd68f40445458f3869b/Qwen3-4B-Q4_K_M.gguf"
MODELSCOPE = "Qwen/Qwen3-4B-GGUF/resolve/master/Qwen3-4B-Q4_K_M.gguf"


@pytest.fixture
def hosts(tmp_path, monkeypatch):
    """A hub and a ModelScope on loopback, each with a real GGUF at its own layout, slowed so that
    the download is seen running; the catalog has a Chinese-capable tool model and a faster
    English-only one without tools (as Gemma 3 1B beside Qwen)."""
    hub, mirror, modelscope = (ModelServer(pace_s=0.01).start() for _ in range(3))
    hub.serve(HUB_URL, BUNDLED_EMBEDDING_MODEL)
    mirror.serve(HUB_URL, BUNDLED_EMBEDDING_MODEL)                  # hf-mirror.com: the hub's paths
    modelscope.serve("models/" + MODELSCOPE, BUNDLED_EMBEDDING_MODEL)
    size = BUNDLED_EMBEDDING_MODEL.stat().st_size
    sha256 = hashlib.sha256(BUNDLED_EMBEDDING_MODEL.read_bytes()).hexdigest()
    catalog = write_catalog(tmp_path, hub.url, [
        {"name": "qwen3-4b", "title": "Qwen3 4B", "family": "Qwen3", "kind": "chat", "url": HUB_URL,
         "modelscope": MODELSCOPE, "sha256": sha256, "size": size, "ram_gb": 0.5, "tools": True,
         "languages": ["zh", "en"], "parameters_b": 4.0},
        {"name": "english-only", "title": "English only", "kind": "chat", "ram_gb": 0.4, "size": size // 2,
         "url": "org/e-GGUF/resolve/main/e.gguf", "languages": ["en"], "tools": False, "parameters_b": 1.0}],
        {"hf-mirror": mirror.url, "modelscope": modelscope.url + "/models"})
    monkeypatch.setenv("ENGRAM_MODEL_CATALOG", str(catalog))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    servers = {"huggingface": hub, "hf-mirror": mirror, "modelscope": modelscope}
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture
def card(qtbot, fake_backend, hosts, monkeypatch):
    from engram.ui.first_start import FirstStart

    monkeypatch.setattr(language, "current", "zh_CN")              # a Chinese window
    shown = FirstStart(fake_backend)
    qtbot.addWidget(shown)
    shown.offer()
    qtbot.waitUntil(lambda: shown.offered is not None, timeout=20_000)
    return shown


def test_a_chinese_window_is_offered_a_qwen_model_with_its_speed_and_basis(card):
    assert card.offered.entry.name == "qwen3-4b"                      # not the faster English-only one
    text = card.offer_text.text()
    assert "Qwen3 4B" in text and "tokens/s" in text and "GB/s" in text and "writes Chinese" in text
    assert card.download_button.isEnabled() and "Qwen3 4B" in card.download_button.text()


def test_one_click_downloads_it_and_it_is_used_once_there(qtbot, card, fake_backend, hosts, tmp_path):
    with qtbot.waitSignal(card.chosen, timeout=60_000) as chosen:
        qtbot.mouseClick(card.download_button, Qt.LeftButton)
        qtbot.waitUntil(lambda: card.progress.isVisible() and card.progress.value() > 0, timeout=20_000)
        assert "MiB/s from Hugging Face" in card.progress.format()
    assert chosen.args == [{"chat"}]
    path = str(tmp_path / "models" / "Qwen3-4B-Q4_K_M.gguf")
    assert Settings.load().chat_model == path and Settings.load().first_start == "download"
    assert fake_backend.engram.settings.chat_model == path and not card.isVisible()


def test_an_unreachable_hub_offers_the_mirrors_and_one_click_downloads_from_modelscope(qtbot, card, hosts):
    hosts["huggingface"].stop()                                      # the hub out of reach
    qtbot.mouseClick(card.download_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: card.problem.isVisible(), timeout=30_000)
    assert "cannot reach" in card.problem.text()
    [modelscope] = [b for b in card.problem.buttons if b.text() == "Use ModelScope"]
    with qtbot.waitSignal(card.chosen, timeout=60_000):
        qtbot.mouseClick(modelscope, Qt.LeftButton)
    assert Settings.load().model_source == "modelscope"
    assert [r["path"] for r in hosts["modelscope"].requests][0] == "/models/" + MODELSCOPE


def test_the_demo_choice_is_remembered_and_a_file_of_ones_own_is_used(qtbot, card, fake_backend, monkeypatch):
    qtbot.mouseClick(card.demo_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: Settings.load().first_start == "demo")
    assert not card.isVisible() and Settings.load().chat_model == ""

    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(BUNDLED_EMBEDDING_MODEL), ""))
    card.show()
    with qtbot.waitSignal(card.chosen, timeout=20_000):
        qtbot.mouseClick(card.file_button, Qt.LeftButton)
    assert Settings.load().chat_model == str(BUNDLED_EMBEDDING_MODEL) and Settings.load().first_start == "file"


@pytest.mark.parametrize("source", ["huggingface", "hf-mirror", "modelscope"])
def test_measure_clicks_and_seconds_from_the_first_window_to_a_download_running(qtbot, hosts, open_window, source,
                                                                                   english_afterwards):
    """The window opens on a fresh install; the person picks the source (none for the hub) and
    clicks Download: counted and timed until the first bytes of the model arrive."""
    started = time.perf_counter()
    window = open_window(ui_language="zh_CN")
    card = window.first_start
    qtbot.waitUntil(lambda: card.isVisible() and card.download_button.isEnabled(), timeout=30_000)
    clicks = 0
    if source != "huggingface":
        card.source.combo.setCurrentIndex(card.source.combo.findData(source))
        card.source.combo.activated.emit(card.source.combo.currentIndex())
        clicks += 2                                                  # open the list, pick the source
        qtbot.waitUntil(lambda: Settings.load().model_source == source)
    qtbot.mouseClick(card.download_button, Qt.LeftButton)
    clicks += 1
    qtbot.waitUntil(lambda: card.progress.value() > 0, timeout=30_000)
    seconds = time.perf_counter() - started
    print(f"\nMEASURE {source}: {clicks} clicks, {seconds:.1f} s from the window's creation to the model downloading")
    assert any(r["method"] == "GET" for r in hosts[source].requests)
    assert clicks <= 3 and seconds < 60
    assert all(not server.requests for name, server in hosts.items() if name != source)


def test_the_models_dialog_shows_the_download_the_first_start_began(qtbot, card, fake_backend):
    from PySide6.QtWidgets import QProgressBar

    from engram.ui.models_dialog import ModelsDialog

    qtbot.mouseClick(card.download_button, Qt.LeftButton)
    dialog = ModelsDialog(fake_backend)
    qtbot.addWidget(dialog)
    dialog.load()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 2)
    row = dialog._row_of("qwen3-4b")
    qtbot.waitUntil(lambda: isinstance(dialog.table.cellWidget(row, 7), QProgressBar), timeout=20_000)
    dialog.select("qwen3-4b")
    assert dialog.pause_button.isEnabled() and not dialog.download_button.isEnabled()    # one queue, one download


def test_once_chosen_the_first_start_is_not_offered_again(qtbot, open_window, hosts):
    window = open_window()
    qtbot.waitUntil(lambda: window.first_start.isVisible(), timeout=20_000)
    assert not window.chat.first_run.isVisible()                     # the demo's note waits its turn
    qtbot.mouseClick(window.first_start.demo_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: Settings.load().first_start == "demo")
    window.close()
    again = open_window()
    qtbot.waitUntil(lambda: again.chat.first_run.isVisible(), timeout=20_000)
    assert not again.first_start.isVisible() and "demo model" in again.chat.first_run.text()
