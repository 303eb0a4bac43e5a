"""The language the window speaks: the ``ui_language`` setting, or else the system's (QLocale.system()).

Engram's texts are translated with Qt's own tools (``make translations`` runs pyside6-lupdate and
pyside6-lrelease over resources/translations/); the words of Qt's standard buttons and dialogs
(Save, Cancel, the context menu of a text field) come from the translations that ship with PySide6.
A language without a translation falls back to English.
"""

from __future__ import annotations

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from engram.core.paths import RESOURCES_DIR

TRANSLATIONS_DIR = RESOURCES_DIR / "translations"
# Offered in Settings, each named in its own language (a person who cannot read the current one
# must still find theirs). "": follow the system.
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}

_installed: list[QTranslator] = []
current = "en"       # the language the window speaks, as install() found it


def install(app: QApplication, setting: str = "") -> str:
    """Install the translators for ``setting`` ("" = the system's language) in place of any installed
    before; returns the language the window now speaks ("en" when nothing else matches)."""
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    locale = QLocale(setting) if setting else QLocale.system()
    engram = QTranslator(app)
    if not engram.load(locale, "engram", "_", str(TRANSLATIONS_DIR)):
        locale = QLocale(QLocale.English)
        engram.load(locale, "engram", "_", str(TRANSLATIONS_DIR))    # English needs only its plurals
    qt = QTranslator(app)
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.TranslationsPath)):
        _installed.append(qt)
    _installed.append(engram)
    for translator in _installed:
        app.installTranslator(translator)
    global current
    current = engram.language().replace("-", "_") or "en"
    return current


def is_chinese(language: str) -> bool:
    return language.startswith("zh")
