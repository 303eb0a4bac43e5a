"""Screenshots of the profile in the real window (run by hand, under Xvfb; not a test):

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python tests/gui/profile_screenshot.py /tmp/shots [dark] [zh_CN]

The seeds' example on a fresh data folder with the real bundled models: "I'm allergic to peanuts."
in one chat (the reply shows "Noted", with Undo and Edit), then "Can you recommend a snack?" in a
new chat (the Context tab shows the profile in its context). A few lines are added as other ways
would add them (by hand in the file, one waiting for an OK, one that a newer one replaced) so that
the Profile tab shows each kind. Then, with learning set to ask first, a new line waits for an OK
under its reply. Saves profile-noted, profile-context, profile, profile-earlier, profile-edit,
profile-waiting and profile-settings PNGs (with zh_CN: the window in Chinese, with Chinese words,
suffixed -zh_CN; with dark, as on a desktop set to dark, suffixed -dark).
"""

from __future__ import annotations

import os
import sys
import tempfile
from functools import partial
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots")
LANGUAGE = "zh_CN" if "zh_CN" in sys.argv[2:] else "en"
DARK = "dark" in sys.argv[2:]
home = Path(tempfile.mkdtemp(prefix="engram-profile-shots-"))
os.environ["ENGRAM_DATA_DIR"] = str(home / "data")
os.environ["ENGRAM_CONFIG_DIR"] = str(home / "config")
os.environ.setdefault("ENGRAM_MODELS_DIR", str(Path(__file__).resolve().parents[2] / ".cache" / "models"))

from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.profile.document import ProfileLine  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.ui import theme  # noqa: E402
from engram.ui.main import create_window  # noqa: E402
from waiting import say_in, settle, wait  # noqa: E402

settings = Settings.load()
settings.chat_max_tokens = int(os.environ.get("SHOT_TOKENS", "40"))
settings.ui_language = LANGUAGE
settings.save()
CONTENT = {
    "en": {"told": "I'm allergic to peanuts.", "asked": "Can you recommend a snack?", "later": "I'm allergic to cats.",
           "by_hand": "## Health\n\n- Takes insulin every evening.\n",
           "old": ("Lives in Paris.", "Moving"), "new": ("Lives in Lyon.", "Moving to Lyon"),
           "proposed": ("Vegetarian since 2019.", "Dinner ideas"), "edit": "Allergic to peanuts and cashews."},
    "zh_CN": {"told": "我对花生过敏", "asked": "推荐个零食", "later": "我对猫过敏",
              "by_hand": "## 健康\n\n- 每天晚上打胰岛素。\n",
              "old": ("住在上海。", "搬家"), "new": ("住在杭州。", "搬到杭州"),
              "proposed": ("从 2019 年开始吃素。", "晚饭吃什么"), "edit": "对花生和腰果过敏。"},
}[LANGUAGE]
suffix = ("" if LANGUAGE == "en" else f"-{LANGUAGE}") + ("-dark" if DARK else "")
app = QApplication([])
window = create_window()
window.resize(1380, 860)
if DARK:
    theme.restyle(app, dark=True)


say = partial(say_in, window)


def shot(name, widget=None):
    settle()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}{suffix}.png"
    (widget or window).grab().save(str(path))
    print("saved", path)


wait(lambda: window.backend.ready and window.status.state in ("ready", "error"))
engram = window.backend.engram
say(CONTENT["told"])
first = window.session
window.tabs.setCurrentWidget(window.profile)
shot("profile-noted")

window.new_chat()
say(CONTENT["asked"])
window.show_context(window.chat.view.bubbles[-1])
shot("profile-context")

# The other ways a line comes: a newer line replacing an older one, a proposal, a hand edit.
user, profiles = engram.user, engram.profiles
for (text, title), by in ((CONTENT["old"], "rules"), (CONTENT["new"], "model")):
    profiles.note(user, ProfileLine(text, "identity", slot="home", by=by, source=title, session=first.id, message=1))
profiles.propose(user, ProfileLine(CONTENT["proposed"][0], "diet", by="rules", source=CONTENT["proposed"][1],
                                   session=first.id, message=1))
path = profiles.path(user)
path.write_text(path.read_text(encoding="utf-8") + "\n" + CONTENT["by_hand"], encoding="utf-8")
window.tabs.setCurrentWidget(window.profile)
wait(lambda: len(window.profile.rows) == 5, 20)
shot("profile")
window.profile.earlier_toggle.click()
shot("profile-earlier")
allergy = next(row for row in window.profile.rows.values() if row.line.by == "rules" and row.line.slot != "home"
               and row.line.category == "health")
window.profile.edit_line(allergy.line.id)
allergy.editor.setText(CONTENT["edit"])
shot("profile-edit")
window.profile.stop_editing()

window.open_settings(page="Memory")
dialog = window.settings_dialog
dialog.resize(720, 760)
dialog.profile_learning.setCurrentIndex(dialog.profile_learning.findData("ask"))
page = dialog.pages.currentWidget()
page.ensureWidgetVisible(dialog.profile_tokens)
shot("profile-settings", dialog)
dialog.save()
wait(lambda: engram.profile_learning.mode == "ask", 20)
dialog.close()
window.new_chat()
say(CONTENT["later"])
wait(lambda: window.tabs.tabText(window.tabs.indexOf(window.profile)).endswith("(2)"), 20)
shot("profile-waiting")
window.close()
