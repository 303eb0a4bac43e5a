"""The input box: Enter sends, Shift+Enter starts a new line; a huge paste is refused politely."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QPlainTextEdit

# Far beyond any message a small local model can read; a bigger paste belongs in a session file.
MAX_PASTE_CHARS = 200_000


class Composer(QPlainTextEdit):
    submitted = Signal(str)
    escaped = Signal()      # Esc: stop the reply that is streaming
    refused = Signal(str)   # why a paste was not taken (the clipboard still has it)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("Composer")
        self.setPlaceholderText(self.tr("Message Engram…  (Enter sends, Shift+Enter for a new line)"))
        self.setTabChangesFocus(True)
        self.setMinimumHeight(44)
        self.setMaximumHeight(180)
        self.document().contentsChanged.connect(self._grow)
        self._grow()  # start one line high, not as tall as the layout allows

    def keyPressEvent(self, event):
        if event.key() == Qt.Key_Escape:
            self.escaped.emit()
            return
        if event.key() in (Qt.Key_Return, Qt.Key_Enter) and not (event.modifiers() & Qt.ShiftModifier):
            text = self.toPlainText()
            if text.strip():
                self.submitted.emit(text)
            return
        super().keyPressEvent(event)

    def insertFromMimeData(self, source):
        incoming = len(source.text()) if source.hasText() else 0
        if incoming + len(self.toPlainText()) > MAX_PASTE_CHARS:
            self.refused.emit(self.tr("That paste is {incoming:,} characters; a message can hold at most {limit:,}."
                                      " Nothing was inserted and your clipboard still has it — save long material"
                                      " as a file in the session's folder (Files tab) instead.")
                              .format(incoming=incoming, limit=MAX_PASTE_CHARS))
            return
        super().insertFromMimeData(source)

    def _grow(self):
        lines = self.document().size().height()
        height = int(lines * self.fontMetrics().lineSpacing() + 18)
        self.setFixedHeight(max(self.minimumHeight(), min(self.maximumHeight(), height)))
