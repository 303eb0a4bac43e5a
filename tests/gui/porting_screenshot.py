"""Screenshots of an import in progress (run by hand, under Xvfb; not a test):

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/porting_screenshot.py /tmp/shots

The real window and the bundled embedding model import a ChatGPT export of 120 conversations
written here (tests/chat_exports.py); saves import-progress.png (the screen, the dialog over the
window, caught mid-import) and import-done.png into the folder given.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
home = Path(tempfile.mkdtemp(prefix="engram-porting-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from chat_exports import chatgpt_conversation, three_conversations, write_chatgpt_zip  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import wait  # noqa: E402

TOPICS = ["sourdough starter", "marathon training", "tax return", "Japanese verbs", "garden tomatoes",
          "router settings", "birthday gift", "Rust lifetimes", "moving boxes", "piano scales"]
conversations = three_conversations() + [
    chatgpt_conversation(f"c-{n}", f"{TOPICS[n % 10].capitalize()} ({n // 10 + 1})", [
        ("user", f"Question {n} about {TOPICS[n % 10]}: what should I do first?"),
        ("assistant", f"For {TOPICS[n % 10]}, start small and keep notes; step {n} is to check what you have."),
        ("user", "Thanks, and after that?"),
        ("assistant", f"Then plan the next week around {TOPICS[n % 10]} and review on Sunday.")],
        start=1_700_000_000 + 3600 * n) for n in range(117)]
export = write_chatgpt_zip(home / "chatgpt-export.zip", conversations)

app = QApplication([])
window = create_window()
window.resize(1380, 860)


def shot(name):
    end = time.time() + 0.4
    while time.time() < end:
        app.processEvents(QEventLoop.AllEvents, 50)
    OUT.mkdir(parents=True, exist_ok=True)
    app.primaryScreen().grabWindow(0).save(str(OUT / f"{name}.png"))
    print("saved", OUT / f"{name}.png")


wait(lambda: window.backend.ready)
dialog = window.open_porting(importing=True)
dialog.path.setText(str(export))
dialog.start_button.click()
wait(lambda: dialog.bar.value() >= 300 and "Archiving" in dialog.status.text())
shot("import-progress")
wait(lambda: not dialog.running, timeout=600)
shot("import-done")
window.close()
