"""Screenshots of the real window (run by hand, under Xvfb; not a test):

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/screenshots.py /tmp/shots [dark] [zh_CN]

Uses a fresh data folder and the real bundled models; saves chat, memories, files, context and
settings PNGs into the folder given (with zh_CN: the window in Chinese, with Chinese chats and files).
"""

from __future__ import annotations

import os
import sys
import tempfile
from functools import partial
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
DARK = "dark" in sys.argv[2:]
LANGUAGE = "zh_CN" if "zh_CN" in sys.argv[2:] else "en"
home = Path(tempfile.mkdtemp(prefix="engram-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")
os.environ.setdefault("ENGRAM_MODELS_DIR", str(Path(__file__).resolve().parents[2] / ".cache" / "models"))

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.ui import theme  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import say_in, settle, wait  # noqa: E402

settings = Settings.load()
settings.chat_max_tokens = int(os.environ.get("SHOT_TOKENS", "48"))
settings.ui_language = LANGUAGE
settings.save()
CONTENT = {
    "en": {"told": "I'm allergic to peanuts, and I love hiking in the mountains.",
           "memories": (("Allergic to peanuts", "fact", 0.95),
                        ("Loves hiking in the mountains", "preference", 0.7),
                        ("Prefers short answers with examples", "preference", 0.6)),
           "asked": "Can you recommend a snack for a long hike?",
           "plan": "---\ndescription: Saturday's hike, snacks and gear\n---\n# Saturday hike\n\n"
                   "## Snacks (no peanuts!)\n\n- dried apricots\n- sunflower-seed bars\n- cheese and crackers\n\n"
                   "## Gear\n\n| item | packed |\n|---|---|\n| water (2 l) | yes |\n| rain jacket | no |\n\n"
                   "```text\nstart 07:30 at the car park\n```\n",
           "trail": "# Trail\nRidge loop, 14 km.\n"},
    "zh_CN": {"told": "我对花生过敏，也很喜欢去山里徒步。",
              "memories": (("对花生过敏", "fact", 0.95), ("喜欢去山里徒步", "preference", 0.7),
                           ("喜欢简短、带例子的回答", "preference", 0.6)),
              "asked": "长途徒步带点什么零食好？",
              "plan": "---\ndescription: 周六徒步：零食和装备\n---\n# 周六徒步\n\n## 零食（不要花生！）\n\n"
                      "- 杏干\n- 葵花籽能量棒\n- 奶酪和饼干\n\n## 装备\n\n| 物品 | 已装好 |\n|---|---|\n"
                      "| 水（2 升） | 是 |\n| 雨衣 | 否 |\n\n```text\n07:30 在停车场出发\n```\n",
              "trail": "# 路线\n山脊环线，14 公里。\n"},
}[LANGUAGE]
app = QApplication([])
window = create_window()
window.resize(1380, 860)
if DARK:                                   # as on a desktop set to dark
    theme.restyle(app, dark=True)


say = partial(say_in, window)


def shot(name, widget=None):
    settle()
    OUT.mkdir(parents=True, exist_ok=True)
    name = f"{name}-dark" if DARK else name
    (widget or window).grab().save(str(OUT / f"{name}.png"))
    print("saved", OUT / f"{name}.png")


wait(lambda: window.backend.ready and window.status.state in ("ready", "error"))
engram = window.backend.engram
say(CONTENT["told"])
for text, kind, importance in CONTENT["memories"]:
    engram.store.add(text, Scope(user=engram.user, session=window.session.id), kind, importance=importance,
                     source_ids=(window.chat.view.bubbles[-2].key,))
wait(lambda: engram.outbox.health().pending == 0)
window.new_chat()
say(CONTENT["asked"])
window.chat.view.bubbles[-1].badge.click()
settle()
window.tabs.setCurrentWidget(window.memories)
window.memories.refresh()
settle(1.0)
shot("chat")

window.memories.list.setCurrentItem(window.memories.list.topLevelItem(0))
for index in range(window.memories.list.topLevelItemCount()):
    item = window.memories.list.topLevelItem(index)
    if item.data(0, Qt.UserRole).text == CONTENT["memories"][0][0]:
        window.memories.list.setCurrentItem(item)
shot("memories")

window.show_context(window.chat.view.bubbles[-1])
shot("context")

folder = engram.files.folder(window.session.folder).path
folder.mkdir(parents=True, exist_ok=True)
(folder / "hike-plan.md").write_text(CONTENT["plan"], encoding="utf-8")
(folder / "notes").mkdir(exist_ok=True)
(folder / "notes" / "trail.md").write_text(CONTENT["trail"], encoding="utf-8")
window.tabs.setCurrentWidget(window.files)
wait(lambda: window.files.tree.topLevelItemCount() >= 2, 20)
for index in range(window.files.tree.topLevelItemCount()):
    item = window.files.tree.topLevelItem(index)
    if item.data(0, Qt.UserRole) == "hike-plan.md":
        window.files.tree.setCurrentItem(item)
wait(lambda: window.files.name == "hike-plan.md", 20)
window.files.pages.setCurrentIndex(1)
shot("files")
window.files.pages.setCurrentIndex(0)
shot("files-editor")

window.open_settings()
window.settings_dialog.resize(720, 600)
shot("settings", window.settings_dialog)
window.settings_dialog.show_page("Memory")
shot("settings-memory", window.settings_dialog)
window.settings_dialog.show_page("Data")
shot("settings-data", window.settings_dialog)
window.settings_dialog.close()
window.close()
