"""Screenshots of a document attached to a chat (run by hand, under Xvfb; not a test):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/documents_screenshot.py PAPER.pdf /tmp/shots

A fresh data folder and the real bundled models. The PDF is attached as the paperclip does; the
Files tab then shows it with its pages beside its markdown, and a question about it is answered
with the page's passage brought along, cited in the Context tab ("PAPER.pdf, p. N"). docs/ uses MinerU's
demo paper (opendatalab/MinerU, demo/pdfs/demo1.pdf), the same as tests/bench/documents_bench.py.
"""

from __future__ import annotations

import os
import sys
import tempfile
from functools import partial
from pathlib import Path

PAPER = Path(sys.argv[1])
OUT = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/shots")
home = Path(tempfile.mkdtemp(prefix="engram-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")

from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.settings import Settings  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import say_in, settle, wait  # noqa: E402

settings = Settings.load()
settings.chat_max_tokens = 60
settings.first_start = "demo"
settings.save()
app = QApplication([])
window = create_window(None, None, "en")
window.resize(1380, 860)
say = partial(say_in, window)


def shot(name: str) -> None:
    settle(2.5)         # the status bar's memory count is read every 2 s
    OUT.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(OUT / f"{name}.png"))
    print("saved", OUT / f"{name}.png")


def converted_and_embedded(engram, folder: str) -> bool:
    return bool(engram.files.chunk_memories(folder, f"{PAPER.name}.md")) \
        and engram.store.pending_embeddings() == 0 and engram.outbox.health().pending == 0


wait(lambda: window.backend.ready and window.status.state in ("ready", "error"))
engram = window.backend.engram
say("I'm reading a paper about planting forests and river flow; I'll attach it.")
folder = window.session.folder
window.attachments.add([str(PAPER)])
wait(lambda: converted_and_embedded(engram, folder), timeout=600)
window.tabs.setCurrentWidget(window.files)
window.files.refresh()
wait(lambda: window.files.tree.topLevelItemCount() > 0)
window.files.open(f"{PAPER.name}.md")
shot("document-attached")

say("According to the paper, how much of the rainfall at Cathedral Peak falls in summer?")
window.show_context(window.chat.view.bubbles[-1])
wait(lambda: window.context.record is not None)
shot("document-cited")
window.close()
