"""The window's look: Fusion, the system's light or dark palette, Engram's stylesheet and icons, and
a font family that also draws Chinese well."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from engram.core.paths import RESOURCES_DIR

STYLE_FILE = RESOURCES_DIR / "styles" / "engram.qss"
ICONS_DIR = RESOURCES_DIR / "icons"
# Simplified Chinese families, best first (Linux, then Windows, macOS). Named, so that Chinese is
# drawn with its own glyph shapes, not with those of whichever CJK font the system falls back to
# first (often the Japanese one, whose shapes differ).
CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "Microsoft YaHei UI", "Microsoft YaHei",
                "PingFang SC", "WenQuanYi Micro Hei")


def icon(name: str) -> QIcon:
    return QIcon(str(ICONS_DIR / f"{name}.svg"))


def is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


DARK = {QPalette.Window: "#1f2024", QPalette.WindowText: "#e6e6e9", QPalette.Base: "#17181b",
        QPalette.AlternateBase: "#2a2c33", QPalette.Text: "#e6e6e9", QPalette.Button: "#2a2c31",
        QPalette.ButtonText: "#e6e6e9", QPalette.Highlight: "#6f5cf0", QPalette.HighlightedText: "#ffffff",
        QPalette.Mid: "#4a4c55", QPalette.Midlight: "#33353c", QPalette.Dark: "#9a9ca6",
        QPalette.ToolTipBase: "#2a2c31", QPalette.ToolTipText: "#e6e6e9", QPalette.PlaceholderText: "#80828c",
        QPalette.Link: "#8fb4ff"}

LIGHT = {QPalette.Window: "#f6f6f8", QPalette.WindowText: "#1d1d22", QPalette.Base: "#ffffff",
         QPalette.AlternateBase: "#f0eefc", QPalette.Text: "#1d1d22", QPalette.Button: "#ffffff",
         QPalette.ButtonText: "#1d1d22", QPalette.Highlight: "#6a4de0", QPalette.HighlightedText: "#ffffff",
         QPalette.Mid: "#cfd0d6", QPalette.Midlight: "#e6e6ec", QPalette.Dark: "#6b6d78",
         QPalette.PlaceholderText: "#9a9ca6", QPalette.Link: "#3a63c8"}


def palette(roles: dict) -> QPalette:
    p = QPalette()
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    return p


def restyle(app: QApplication, dark: bool) -> None:
    """Palette first, then the stylesheet (its palette(...) colours are read when it is applied)."""
    app.setPalette(palette(DARK if dark else LIGHT))
    app.setStyleSheet(STYLE_FILE.read_text(encoding="utf-8") if STYLE_FILE.is_file() else "")


def font(chinese: bool) -> QFont:
    """The system's font with the installed CJK families: first when the window speaks Chinese (their
    Latin letters suit it too), else right after the system's own family, for Chinese in chats and memories."""
    base = QFontDatabase.systemFont(QFontDatabase.GeneralFont)
    installed = set(QFontDatabase.families())
    cjk = [family for family in CJK_FAMILIES if family in installed]
    chosen = QFont(base)
    chosen.setFamilies(cjk + [base.family()] if chinese else [base.family()] + cjk)
    return chosen


def apply(app: QApplication, chinese: bool = False) -> None:
    """Style the application and follow the system when it switches between light and dark."""
    app.setStyle("Fusion")
    app.setFont(font(chinese))
    app.setWindowIcon(icon("engram"))
    restyle(app, is_dark())
    QGuiApplication.styleHints().colorSchemeChanged.connect(lambda *_: restyle(app, is_dark()))
