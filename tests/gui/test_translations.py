"""The window in the person's language: every text translatable with Qt's tools, a complete
Simplified Chinese translation, the language from the settings or else the system, and a font
that draws Chinese."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QAbstractButton, QApplication, QComboBox, QLabel, QLineEdit, QPlainTextEdit, QTabBar,
                               QTextBrowser, QTreeWidget, QWidget)

import engram
from engram.core.memory.scope import Scope
from engram.ui import language, theme

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
WORD = re.compile(r"[A-Za-z]{2,}")
# Words that stay as they are in the Chinese window: names, keys, file formats, units.
KEPT = {"Engram", "Enter", "Shift", "Esc", "Ctrl", "GGUF", "gguf", "Gemma", "Llama", "Instruct", "Qwen", "CPU",
        "SmolLM", "multilingual", "small",
        "GPU", "Markdown", "token", "MiniLM", "English", "GiB", "GB", "ms",
        # the download sources' names (Settings › Models, the first-start choice)
        "Hugging", "Face", "hf", "mirror", "com", "ModelScope",
        # Settings › Integrations: protocols, other programs and their configuration files, the API's model
        "OpenAI", "API", "MCP", "Claude", "Desktop", "VS", "Code", "Cursor", "claude", "desktop", "config",
        "json", "vscode", "cursor", "mcp", "engram",
        # Settings › Data › Use a server: the server's name and its address's scheme
        "PostgreSQL", "pgvector", "postgresql",
        # File › Import: the other program and the names of its export's files
        "ChatGPT", "zip", "conversations", "JSON"}


def translations_tool():
    spec = importlib.util.spec_from_file_location("translations_tool", ROOT / "tools" / "translations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shown_texts(root: QWidget) -> list[str]:
    """The texts a person sees in ``root`` now: labels, buttons, tabs, headers, placeholders of empty
    fields, choices, rendered text."""
    texts = [root.windowTitle()]
    for widget in root.findChildren(QWidget):
        if not widget.isVisible():
            continue
        if isinstance(widget, QLabel):
            texts.append(re.sub(r"<[^>]+>", "", widget.text()))
        elif isinstance(widget, QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, QTabBar):
            texts += [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QTreeWidget):
            texts += [widget.headerItem().text(c) for c in range(widget.columnCount())]
        elif isinstance(widget, QComboBox):
            texts.append(widget.currentText())
        elif isinstance(widget, QTextBrowser):
            texts.append(widget.toPlainText())
        elif isinstance(widget, (QLineEdit, QPlainTextEdit)) and not widget.isReadOnly():
            empty = not (widget.text() if isinstance(widget, QLineEdit) else widget.toPlainText())
            texts.append(widget.placeholderText() if empty else "")
    return [text for text in texts if text.strip()]


def english(texts: list[str], data: tuple[str, ...] = ()) -> list[str]:
    """The texts with English words in them (``data``, such as paths and model names, taken out first)."""
    left = []
    for text in texts:
        for value in data:
            text = text.replace(value, "")
        if set(WORD.findall(text)) - KEPT:
            left.append(text)
    return left


def test_the_translations_are_complete_and_match_the_code():
    """lupdate over the code into a copy of each .ts adds or drops nothing; every text is translated
    with its placeholders and tags; each .qm is its compiled .ts."""
    assert translations_tool().check() == []


def test_the_check_finds_untranslated_texts_and_lost_placeholders(tmp_path):
    ts = tmp_path / "engram_zh_CN.ts"
    ts.write_text("""<?xml version="1.0" encoding="utf-8"?><!DOCTYPE TS><TS version="2.1" language="zh_CN">
<context><name>X</name>
<message><source>Save</source><translation type="unfinished"></translation></message>
<message><source>Open</source><translation></translation></message>
<message><source>{name} · saved</source><translation>已保存</translation></message>
<message><source>&lt;b&gt;Hi&lt;/b&gt; {why}</source><translation>你好 {why}</translation></message>
<message numerus="yes"><source>%n memories</source><translation><numerusform>条记忆</numerusform></translation></message>
<message><source>Copy</source><translation>复制</translation></message>
</context></TS>""", encoding="utf-8")
    found = translations_tool().problems(ts)
    assert len(found) == 5, found
    assert "'Save' is not translated" in found[0] and "'Open' is not translated" in found[1]
    assert "['{name}'] became []" in found[2] and "tags" in found[3] and "['%n'] became []" in found[4]


def test_chosen_in_settings_the_window_speaks_chinese_after_a_restart(qtbot, open_window, isolated_dirs,
                                                                        english_afterwards):
    window = open_window()
    window.open_settings()
    dialog = window.settings_dialog
    dialog.ui_language.setCurrentIndex(dialog.ui_language.findData("zh_CN"))
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=10_000)
    assert "when Engram starts again" in dialog.notice.text()
    assert json.loads((isolated_dirs / "config" / "settings.json").read_text())["ui_language"] == "zh_CN"
    window.close()

    window = open_window(ui_language=None)          # as the settings say
    engram_ = window.backend.engram
    engram_.store.add("我对花生过敏", Scope(user=engram_.user), "fact")
    window.memories.refresh()
    qtbot.waitUntil(lambda: window.memories.list.topLevelItemCount() == 1, timeout=10_000)
    window.memories.list.setCurrentItem(window.memories.list.topLevelItem(0))
    assert window.tabs.tabText(0) == "记忆" and window.chat.send.text() == "发送"
    assert window.memories.count.text() == "1 条记忆"
    assert window.memories.list.topLevelItem(0).text(1) == "事实"
    data = (window.backend.engram.settings.path, str(window.backend.engram.data_dir), window.chat.model_name.text())
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        texts = shown_texts(window)
        assert english(texts, data) == []
        assert any(CJK.search(text) for text in texts)

    window.open_settings()
    dialog = window.settings_dialog
    assert dialog.windowTitle() == "设置" and dialog.ui_language.currentText() == "简体中文"
    for index in range(dialog.pages.count()):
        dialog.pages.setCurrentIndex(index)
        texts = shown_texts(dialog)
        assert english(texts, data) == []
        assert "保存" in texts and "关闭" in texts            # Qt's own buttons, from Qt's translations

    installed = [family for family in theme.CJK_FAMILIES if family in QFontDatabase.families()]
    assert QApplication.font().families()[:len(installed)] == installed       # Chinese glyphs, not Japanese ones


def test_english_has_its_plural_forms_and_chinese_its_one(qapp, english_afterwards):
    assert language.install(qapp, "en") == "en"
    assert [QCoreApplication.translate("MemoriesTab", "%n memories", None, n) for n in (1, 3)] == ["1 memory",
                                                                                                   "3 memories"]
    assert language.install(qapp, "zh_CN") == "zh_CN"
    assert QCoreApplication.translate("MemoriesTab", "%n memories", None, 3) == "3 条记忆"
    assert language.install(qapp, "fr") == "en"                  # no French yet: English
    assert QCoreApplication.translate("ChatPanel", "Send") == "Send"


@pytest.mark.parametrize("system, speaks, send", [("zh_CN.UTF-8", "zh_CN", "发送"), ("en_GB.UTF-8", "en", "Send"),
                                                  ("de_DE.UTF-8", "en", "Send")])
def test_with_no_setting_the_window_speaks_the_system_language(system, speaks, send):
    script = ("from PySide6.QtCore import QCoreApplication; from PySide6.QtWidgets import QApplication;"
              "from engram.ui import language; app = QApplication([]);"
              "print(language.install(app, ''), QCoreApplication.translate('ChatPanel', 'Send'))")
    env = {**os.environ, "LANG": system, "LC_ALL": system, "LANGUAGE": "", "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": str(Path(engram.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == [speaks, send], done.stderr


def test_the_models_dialog_speaks_chinese_notes_machine_speeds_sources_and_errors(qtbot, open_window,
                                                                                 english_afterwards):
    """Every text of the catalog's dialog in a Chinese window: the machine summary, each speed with
    its basis, the catalog's notes, the download sources and an error with its fix (no network: a
    model ModelScope lacks is refused before any connection)."""
    from engram.core.models.catalog import load_catalog

    window = open_window(ui_language="zh_CN")
    window.download_model()
    dialog = window.settings_dialog.models_dialog
    qtbot.waitUntil(lambda: dialog.table.rowCount() > 0, timeout=20_000)
    catalog = load_catalog()
    data = tuple(sorted({text for e in catalog.entries for text in (e.title, e.family, e.quantisation, e.licence,
                                                                       e.url, e.file_name)} |
                        {catalog.mirror, window.backend.engram.settings.path,
                         "&lt;|system|&gt;…&lt;|end|&gt;"}, key=len, reverse=True))      # Phi-4's own tokens
    dialog.select("phi-4-mini-instruct")
    fit_cells = [dialog.table.item(row, column).text() for row in range(dialog.table.rowCount()) for column in (1, 6, 7)]
    tips = [dialog.table.item(row, 6).toolTip() for row in range(dialog.table.rowCount())]
    headers = [dialog.table.horizontalHeaderItem(c).text() for c in range(dialog.table.columnCount())]
    assert english(shown_texts(dialog) + fit_cells + tips + headers, data) == []
    assert "内存" in dialog.machine.text() and "估算" in tips[0] and "轮次" in dialog.details.text()

    dialog.source.choose("modelscope")
    qtbot.waitUntil(lambda: "ModelScope 上没有" in dialog.details.text(), timeout=10_000)
    dialog.select("phi-4-mini-instruct")
    dialog.download()
    qtbot.waitUntil(lambda: dialog.notice.isVisible() and "ModelScope 上没有" in dialog.notice.text(), timeout=10_000)
    assert english([re.sub(r"<[^>]+>", " ", dialog.notice.text())], data) == []


def test_the_chinese_window_has_no_english_left_in_its_tabs_dialogs_and_the_texts_core_makes(
        qtbot, open_window, send, english_afterwards, monkeypatch):
    """Every surface a newcomer opens, with data in it: the tabs with a memory selected and a
    reply's context, every Settings page, the model catalog, the first-start choice, Import and
    Export, and the "Forget everywhere" question. Text built in the core (where a memory came
    from, the catalog's notes, the machine, errors) counts as much as the window's own; only
    what the person or a model wrote, paths and model names are left out."""
    from PySide6.QtWidgets import QMessageBox

    window = open_window(ui_language="zh_CN", reply_tokens=4)
    engram_ = window.backend.engram
    reply = send(window, "我养了三箱蜜蜂")
    qtbot.waitUntil(lambda: window.memories.list.topLevelItemCount() >= 2, timeout=30_000)
    sessions = engram_.sessions.list(engram_.user)
    data = tuple(sorted({engram_.settings.path, str(engram_.data_dir), window.chat.model_name.text(),
                         window.turn_controller.model_name, *(m.text for m in window.memories.list.memories()),
                         *(s.folder for s in sessions), *(s.title for s in sessions),
                         *(m.content for m in engram_.sessions.messages(sessions[0].id))} - {""},
                        key=len, reverse=True))
    texts = []
    window.memories.list.setCurrentItem(window.memories.list.topLevelItem(0))
    window.show_context(reply)
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        texts += shown_texts(window)
    boxes = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: boxes.append(box) or QMessageBox.Cancel)
    window.memories.editor.selectAll()
    window.memories._forget_everywhere()
    qtbot.waitUntil(lambda: bool(boxes), timeout=30_000)
    texts += [boxes[0].text(), boxes[0].informativeText(), boxes[0].detailedText()] + \
        [b.text() for b in boxes[0].buttons()] + ([boxes[0].checkBox().text()] if boxes[0].checkBox() else [])

    window.open_settings()
    dialog = window.settings_dialog
    for index in range(dialog.pages.count()):
        dialog.pages.setCurrentIndex(index)
        texts += shown_texts(dialog)
    for importing in (True, False):
        porting = window.open_porting(importing)
        texts += shown_texts(porting)
        porting.close()
    window.first_start.offer()
    texts += shown_texts(window.first_start)
    left = english(texts, data)
    assert left == [], '\n---\n'.join(left)
