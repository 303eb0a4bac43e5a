"""Screenshots of a chat made one's own (run by hand, under Xvfb; not a test):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/chat_own_screenshot.py /tmp/shots [zh_CN]

A fresh data folder and the real bundled models: an edited message with its ‹ 2/2 › pager, a chat
with memory off and the Context tab saying so, and the model picker open in the chat's header
(Settings name a copy of the demo model, "my-model"; the chat is given the demo model itself).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
LANGUAGE = "zh_CN" if "zh_CN" in sys.argv[2:] else "en"
home = Path(tempfile.mkdtemp(prefix="engram-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")

from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.models.demo import demo_model_path  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import say_in, settle, wait  # noqa: E402

settings = Settings.load()
settings.chat_max_tokens = 40
settings.first_start = "demo"
settings.chat_model = str(shutil.copy(demo_model_path(), home / "my-model.gguf"))
settings.save()
app = QApplication([])
window = create_window(None, None, LANGUAGE)
window.resize(1380, 860)


say = partial(say_in, window)


def shot(name, menu=None):
    """The window; with ``menu`` (a header button), the screen with that button's menu open."""
    if menu is not None:
        menu.menu().popup(menu.mapToGlobal(menu.rect().bottomLeft()))
    settle(1.0)
    OUT.mkdir(parents=True, exist_ok=True)
    image = window.grab() if menu is None else app.primaryScreen().grabWindow(0).copy(window.frameGeometry())
    name = name if LANGUAGE == "en" else f"{name}-{LANGUAGE}"
    image.save(str(OUT / f"{name}.png"))
    print("saved", OUT / f"{name}.png")
    if menu is not None:
        menu.menu().close()


wait(lambda: window.backend.ready and window.status.state in ("ready", "error"))
engram = window.backend.engram
say("Suggest a name for a grey cat.")
window.chat.view.bubbles[0].actions["Edit"].click()
say("Suggest a name for a ginger cat.")
wait(lambda: window.branches.pagers)
# The Memories tab follows the archive: the picture waits until it shows every memory the chat made.
wait(lambda: engram.outbox.health().pending == 0 and engram.store.count() > 0
     and window.memories.list.topLevelItemCount() == engram.store.count())
shot("chat-branch")

window.new_chat()
window.chat_options.memory.trigger()
wait(lambda: window.chat.memory_off.isVisible())
say("Plan a surprise party for my sister.")
window.show_context(window.chat.view.bubbles[-1])
wait(lambda: window.context.record is not None)
shot("chat-memory-off", menu=window.chat.this_chat)

wait(lambda: window.chat_options.models)
window.chat_options.choose_model(window.chat_options.models[0][1])
wait(lambda: window.status.state == "ready" and window.chat.model_name.text().startswith("SmolLM2"))
shot("chat-model-picker", menu=window.chat.model_name)
window.close()
