"""Screenshots of what a newcomer meets (run by hand, under Xvfb; not a test):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/newcomer_screenshot.py /tmp/shots [zh_CN]

A fresh data folder and the real bundled models: a first chat; a new chat that recalls it (its
Context tab names the first chat by title and day); "Forget everywhere" on part of a pinned,
edited memory (the question, then the memory that keeps the rest); the Settings › Memory page.
With zh_CN the window speaks Chinese and the chats are in Chinese.
"""

from __future__ import annotations

import os
import sys
import tempfile
from functools import partial
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
LANGUAGE = "zh_CN" if "zh_CN" in sys.argv[2:] else "en"
home = Path(tempfile.mkdtemp(prefix="engram-newcomer-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")
os.environ.setdefault("ENGRAM_MODELS_DIR", str(Path(__file__).resolve().parents[2] / ".cache" / "models"))

from PySide6.QtCore import QCoreApplication  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import say_in, settle, wait  # noqa: E402

CONTENT = {"en": {"told": "I'm allergic to peanuts and cashews (severe).", "part": "allergic to peanuts",
                  "asked": "Can you recommend a snack for my hike tomorrow?"},
           "zh_CN": {"told": "我对花生和腰果过敏（很严重）。", "part": "对花生",
                     "asked": "明天徒步带什么零食好？"}}[LANGUAGE]
settings = Settings.load()
settings.chat_max_tokens = int(os.environ.get("SHOT_TOKENS", "40"))
settings.ui_language = LANGUAGE
settings.save()
app = QApplication([])
window = create_window()
window.resize(1380, 860)


say = partial(say_in, window)


def shot(name, widget=None):
    settle()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"newcomer-{name}{'-zh' if LANGUAGE != 'en' else ''}.png"
    (widget or window).grab().save(str(path))
    print("saved", path)


wait(lambda: window.backend.ready and window.status.state in ("ready", "error"))
engram = window.backend.engram
say(CONTENT["told"])
wait(lambda: engram.outbox.health().pending == 0)
window.tabs.setCurrentWidget(window.memories)
shot("first-chat")

window.new_chat()
say(CONTENT["asked"])
window.show_context(window.chat.view.bubbles[-1])
window.context.view.find(QCoreApplication.translate("ContextTab", "Recalled memories"))
window.context.view.verticalScrollBar().setValue(window.context.view.verticalScrollBar().value() + 300)
shot("recall")

# The archived message, edited and pinned by the person, then part of it forgotten everywhere.
told = next(m for m in engram.store.list(Scope(user=engram.user), contains=CONTENT["told"][:10]) if m.kind == "message")
edited = engram.store.update(told.id, text=CONTENT["told"].rstrip(".。") + (" — carry an EpiPen" if LANGUAGE == "en"
                                                                           else "——随身带肾上腺素笔"), pinned=True)
window.tabs.setCurrentWidget(window.memories)
wait(lambda: window.memories.list.item_of(edited.id) is not None
     and window.memories.list.memory_of(window.memories.list.item_of(edited.id)).pinned)
window.memories.list.setCurrentItem(window.memories.list.item_of(edited.id))
cursor = window.memories.editor.textCursor()
start = window.memories.editor.toPlainText().index(CONTENT["part"])
cursor.setPosition(start)
cursor.setPosition(start + len(CONTENT["part"]), QTextCursor.KeepAnchor)
window.memories.editor.setTextCursor(cursor)


def answer(box):
    box.show()
    shot("forget-question", box)
    box.hide()
    return QMessageBox.Yes


QMessageBox.exec = answer
window.memories.forget_everywhere.click()
wait(lambda: window.memories.message.text() != "" and not window.memories.message.text().endswith("…"), 60)
wait(lambda: window.memories.list.item_of(edited.id) is not None
     and "[forgotten]" in window.memories.list.memory_of(window.memories.list.item_of(edited.id)).text)
window.memories.list.setCurrentItem(window.memories.list.item_of(edited.id))
shot("forget-done")

window.open_settings()
window.settings_dialog.resize(720, 620)
window.settings_dialog.show_page("Memory")
shot("settings-memory", window.settings_dialog)
window.settings_dialog.close()
window.close()
