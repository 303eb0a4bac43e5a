"""Screenshots of the first-start choice, in English and in Chinese (run by hand, under Xvfb; not a test):

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/first_start_screenshot.py /tmp/shots en
    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/first_start_screenshot.py /tmp/shots zh_CN

A fresh install (empty config, data and models folders) with the shipped catalog; its hub is a
loopback server (tests/model_server.py) serving a real small GGUF (the bundled embedding model)
under the recommended model's path, slowly, so that the download is caught running. Saves
first-start-<language>.png (the choice), first-start-downloading-<language>.png and
models-<language>.png (the catalog, opened meanwhile).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
LANGUAGE = sys.argv[2] if len(sys.argv) > 2 else "en"
home = Path(tempfile.mkdtemp(prefix="engram-first-start-shots-"))
for name in ("DATA", "CONFIG", "MODELS"):
    os.environ[f"ENGRAM_{name}_DIR"] = str(home / name.lower())
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.models.catalog import catalog_path, load_catalog  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from model_server import ModelServer  # noqa: E402
from waiting import wait  # noqa: E402

server = ModelServer(pace_s=0.05).start()            # about 1 MiB/s
shipped = json.loads(catalog_path().read_text(encoding="utf-8"))
shipped["mirror"] = server.url                        # the hub, on loopback
for entry in load_catalog().of_kind("chat"):
    server.serve(entry.url, BUNDLED_EMBEDDING_MODEL)
for entry in shipped["models"]:                       # checked against the served file's announced sha256
    entry["sha256"] = None
(home / "catalog.json").write_text(json.dumps(shipped), encoding="utf-8")
os.environ["ENGRAM_MODEL_CATALOG"] = str(home / "catalog.json")

app = QApplication([])
window = create_window(ui_language=LANGUAGE)
window.resize(1380, 860)


def shot(name, widget=window):
    end = time.time() + 0.8
    while time.time() < end:
        app.processEvents(QEventLoop.AllEvents, 50)
    OUT.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(OUT / f"{name}-{LANGUAGE}.png"))
    print("saved", OUT / f"{name}-{LANGUAGE}.png")


card = window.first_start
wait(lambda: window.backend.ready and card.isVisible() and card.download_button.isEnabled())
shot("first-start")
card.download()
wait(lambda: card.progress.value() > 150)
shot("first-start-downloading")
window.download_model()                               # "Another model…": the catalog, with the sources
dialog = window.settings_dialog.models_dialog
wait(lambda: dialog.table.rowCount() > 0)
dialog.select(card.offered.entry.name)
shot("models", dialog)
window.close()
server.stop()
