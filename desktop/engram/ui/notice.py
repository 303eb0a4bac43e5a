"""A banner inside the window for things the person should know (first run, errors, conflicts),
with optional action buttons; it never blocks like a modal dialog."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout

from engram.core.errors import EngramError
from engram.core.texts import CONTEXT, Text


def translated(text) -> str:
    """A core ``Text`` in the window's language (its values too); anything else as it is."""
    if not isinstance(text, Text):
        return str(text)
    return QCoreApplication.translate(CONTEXT, text.template).format(
        **{key: translated(value) if isinstance(value, Text) else value for key, value in text.values.items()})


def explain(error: BaseException) -> str:
    """An error as the person should read it in a notice: what happened and, for Engram's errors,
    the fix (both in the window's language where the core wrote them as Texts); another error (a
    bug) says its type, for the report."""
    if isinstance(error, EngramError):
        message, hint = (translated(part) for part in error.said)
        fix = QCoreApplication.translate("MainWindow", "Fix: {hint}")
        return html.escape(message) + (f"<br><i>{fix.format(hint=html.escape(hint))}</i>" if hint else "")
    return html.escape(f"{type(error).__name__}: {error}")


class Notice(QFrame):
    """The text takes the banner's whole width, its buttons in a row under it (beside it, a long
    text stood in a narrow column in a window 1,100 pixels wide)."""

    def __init__(self, parent=None, closable: bool = True):
        super().__init__(parent)
        self.setObjectName("Notice")
        self.setProperty("level", "info")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.RichText)
        self.label.setOpenExternalLinks(False)
        self.label.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        column = QVBoxLayout()
        column.addWidget(self.label)
        self.actions = QHBoxLayout()
        self.actions.addStretch(1)
        column.addLayout(self.actions)
        row.addLayout(column, 1)
        self.buttons: list[QPushButton] = []
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.clicked.connect(self.hide)
        self.close_button.setVisible(closable)
        row.addWidget(self.close_button, 0, Qt.AlignTop)
        self.hide()

    def show_message(self, text: str, level: str = "info",
                     actions: list[tuple[str, Callable[[], None]]] = ()) -> None:
        """Show rich text with buttons; a button's action runs, then the notice stays unless it hides itself."""
        for button in self.buttons:
            button.setParent(None)
            button.deleteLater()
        self.buttons = []
        for name, action in actions:
            button = QPushButton(name)
            button.clicked.connect(action)
            self.actions.addWidget(button)
            self.buttons.append(button)
        self.label.setText(text)
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.show()

    def text(self) -> str:
        return self.label.text()
