"""The window's look: Fusion, the system's light or dark palette, Engram's stylesheet and icons."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from engram.core.paths import RESOURCES_DIR

STYLE_FILE = RESOURCES_DIR / "styles" / "engram.qss"
ICONS_DIR = RESOURCES_DIR / "icons"


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


def apply(app: QApplication) -> None:
    """Style the application and follow the system when it switches between light and dark."""
    app.setStyle("Fusion")
    app.setWindowIcon(icon("engram"))
    restyle(app, is_dark())
    QGuiApplication.styleHints().colorSchemeChanged.connect(lambda *_: restyle(app, is_dark()))
