"""Screenshots of the Models dialog mid-download (run by hand, under Xvfb; not a test):

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/models_screenshot.py /tmp/shots

The real window and the shipped catalog; the mirror is a loopback server (tests/model_server.py)
that serves a real small GGUF (the bundled embedding model, 24 MiB) under the path of Qwen3 1.7B,
slowly, so that the download is caught with its progress showing. Saves settings-models.png,
models-downloading.png and models-done.png into the folder given.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
home = Path(tempfile.mkdtemp(prefix="engram-models-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")
os.environ["ENGRAM_MODELS_DIR"] = str(home / "models")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.models.catalog import load_catalog  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import wait  # noqa: E402
from model_server import ModelServer  # noqa: E402

NAME = "qwen3-1.7b"
server = ModelServer(pace_s=0.03).start()             # about 2 MiB/s
server.serve(load_catalog().get(NAME).url, BUNDLED_EMBEDDING_MODEL)
settings = Settings.load()
settings.model_mirror = server.url
settings.save()

app = QApplication([])
window = create_window()
window.resize(1380, 860)


def shot(name, widget):
    end = time.time() + 0.6
    while time.time() < end:
        app.processEvents(QEventLoop.AllEvents, 50)
    OUT.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(OUT / f"{name}.png"))
    print("saved", OUT / f"{name}.png")


wait(lambda: window.backend.ready)
window.open_settings("Models")
shot("settings-models", window.settings_dialog)
window.settings_dialog.open_models()
dialog = window.settings_dialog.models_dialog
wait(lambda: dialog.table.rowCount() > 0)
dialog.select(NAME)
dialog.download()
wait(lambda: dialog.table.cellWidget(dialog._row_of(NAME), 7) is not None
     and dialog.table.cellWidget(dialog._row_of(NAME), 7).value() > 300)
shot("models-downloading", dialog)
wait(lambda: dialog.table.item(dialog._row_of(NAME), 7) is not None
     and dialog.table.item(dialog._row_of(NAME), 7).text() == "installed")
dialog.select(NAME)
shot("models-done", dialog)
window.close()
server.stop()
