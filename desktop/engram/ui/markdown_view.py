"""Rendered markdown that is exactly as tall as its text, for chat messages and file previews.

In a chat message, headings stay about the size of bold text: a small model that copies a line
of the recalled memories' block, or writes a row of dashes under a sentence, must not fill the
bubble with giant letters. Lines that copy that block (its earlier ``[2026-12-03 session …]`` form
and its ``- "…" (the person said, …)`` form) are never headings, nor is text above ``===``/``---``.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette, QTextBlockFormat, QTextCharFormat, QTextCursor, QTextFormat
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


# A line as the recalled memories' block writes one (core/conversation/recall.py's quote), now or before.
_RECALLED_LINE = re.compile(r'^\s{0,3}(?:#{1,6}\s+)?(?:\[\d{4}-\d{2}-\d{2}\b|[-*+]\s+")')
_UNDERLINE = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")       # makes the lines above it a heading (setext)
_HASHES = re.compile(r"^(\s{0,3})(#{1,6})(\s)")


def no_copied_headings(text: str) -> str:
    """Markdown in which no line that copies the recalled block is a heading (its ``#`` escaped),
    and no row of ``=`` or ``-`` makes the lines above it one (it stands apart: a rule, or plain
    signs), outside fenced code."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and _RECALLED_LINE.match(line):
            line = _HASHES.sub(lambda m: m.group(1) + "\\#" * len(m.group(2)) + m.group(3), line)
        elif not fenced and _UNDERLINE.match(line) and lines and lines[-1].strip():
            lines.append("")
        lines.append(line)
    return "\n".join(lines)


def modest_headings(browser: QTextBrowser) -> None:
    """Headings drawn as bold text of the message's size (a level-one heading a little larger)."""
    block = browser.document().begin()
    while block.isValid():
        if level := block.blockFormat().headingLevel():
            cursor = QTextCursor(block)
            cursor.select(QTextCursor.BlockUnderCursor)
            modest = QTextCharFormat()
            modest.setProperty(QTextFormat.FontSizeAdjustment, 1 if level == 1 else 0)
            modest.setFontWeight(QFont.Bold)
            cursor.mergeCharFormat(modest)
        block = block.next()


class MarkdownView(QTextBrowser):
    """A borderless, read-only markdown view without a vertical scroll bar of its own; with
    ``message``, a chat message's (modest headings, none copied from the recalled block)."""

    def __init__(self, text: str = "", parent=None, message: bool = False):
        super().__init__(parent)
        self.message = message
        self.setFrameShape(QFrame.NoFrame)
        self.setOpenExternalLinks(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setAttribute(Qt.WA_TranslucentBackground)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self.markdown = ""
        if text:
            self.set_markdown(text)

    def set_markdown(self, text: str) -> None:
        self.markdown = text
        self.setMarkdown(no_copied_headings(text) if self.message else text)
        if self.message:
            modest_headings(self)
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
