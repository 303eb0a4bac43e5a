"""A screenshot of Settings › Integrations with the API running (run by hand, under Xvfb; not a test):

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/integrations_screenshot.py /tmp/shots

The real window on a fresh data folder; the API is turned on from the page (on a free port) and
the key shown. Saves settings-integrations.png into the folder given.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
home = Path(tempfile.mkdtemp(prefix="engram-integrations-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")
os.environ.setdefault("ENGRAM_MODELS_DIR", str(Path(__file__).resolve().parents[2] / ".cache" / "models"))

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.ui.main import create_window  # noqa: E402
from waiting import wait  # noqa: E402

app = QApplication([])
window = create_window()
window.resize(1380, 860)
wait(lambda: window.backend.ready)
window.open_settings("Integrations")
dialog = window.settings_dialog
dialog.resize(760, 700)
page = dialog.integrations
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
page.port.setValue(port)
page.enabled.setChecked(True)
wait(lambda: window.api.now[0] == "on" and page.key.text())
end = time.time() + 0.6
while time.time() < end:
    app.processEvents(QEventLoop.AllEvents, 50)
OUT.mkdir(parents=True, exist_ok=True)
dialog.grab().save(str(OUT / "settings-integrations.png"))
print("saved", OUT / "settings-integrations.png")
window.close()
