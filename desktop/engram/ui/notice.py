"""A banner inside the window for things the person should know (first run, errors, conflicts),
with optional action buttons; it never blocks like a modal dialog."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton


class Notice(QFrame):
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
        row.addWidget(self.label, 1)
        self.buttons: list[QPushButton] = []
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.clicked.connect(self.hide)
        self.close_button.setVisible(closable)
        row.addWidget(self.close_button)
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
            self.layout().insertWidget(self.layout().count() - 1, button)
            self.buttons.append(button)
        self.label.setText(text)
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.show()

    def text(self) -> str:
        return self.label.text()
