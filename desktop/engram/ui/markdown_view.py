"""Rendered markdown that is exactly as tall as its text, for chat messages and file previews."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFontDatabase, QPalette, QTextBlockFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QApplication, QFrame, QSizePolicy, QTextBrowser


def shade_code_blocks(browser: QTextBrowser) -> None:
    """Give fenced code blocks a tinted background and a fixed-width font."""
    document = browser.document()
    base = QApplication.palette().color(QPalette.Base)    # the view itself is transparent
    tint = base.darker(106) if base.lightness() > 128 else base.lighter(160)
    mono = QFontDatabase.systemFont(QFontDatabase.FixedFont)
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.hasProperty(QTextFormat.BlockCodeFence) or fmt.nonBreakableLines():
            cursor = QTextCursor(block)
            shaded = QTextBlockFormat()
            shaded.setBackground(QColor(tint))
            shaded.setLeftMargin(6)
            shaded.setRightMargin(6)
            cursor.mergeBlockFormat(shaded)
            cursor.select(QTextCursor.BlockUnderCursor)
            char = cursor.charFormat()
            char.setFont(mono)
            cursor.mergeCharFormat(char)
        block = block.next()


class MarkdownView(QTextBrowser):
    """A borderless, read-only markdown view without a vertical scroll bar of its own."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.NoFrame)
        self.setOpenExternalLinks(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setAttribute(Qt.WA_TranslucentBackground)
        self.setStyleSheet("QTextBrowser { background: transparent; }")
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self.markdown = ""
        if text:
            self.set_markdown(text)

    def set_markdown(self, text: str) -> None:
        self.markdown = text
        self.setMarkdown(text)
        shade_code_blocks(self)
        self._fit()
        QTimer.singleShot(0, self, self._fit)      # again once the layout has settled

    def _fit(self, *_):
        height = self.document().size().height() + 8
        if self.horizontalScrollBar().isVisible():
            height += self.horizontalScrollBar().height()
        self.setFixedHeight(int(height))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.document().setTextWidth(self.viewport().width())
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())
