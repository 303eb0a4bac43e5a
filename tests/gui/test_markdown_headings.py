"""A chat message never shows a copied line of the recalled block as a heading, and its headings
stay about the size of its text (the demo model's replies were giant headings, issue 35)."""

from __future__ import annotations

from PySide6.QtGui import QTextFormat

from engram.ui.markdown_view import MarkdownView

COPIED = ('[2026-12-34 session 9a8eceb72c5f, user said] "我对花生过敏"\n---\n'
          '# [2026-12-03 session 1f07fbadb828, user said] "花生"\n'
          '## - "I\'m allergic to peanuts" (the person said, 3 Dec 2026)\n'
          'so no peanuts\n===\n')


def blocks(view):
    block = view.document().begin()
    while block.isValid():
        yield block
        block = block.next()


def test_copied_block_lines_are_never_headings_in_a_message(qtbot):
    view = MarkdownView(COPIED, message=True)
    qtbot.addWidget(view)
    assert [b.text() for b in blocks(view) if b.blockFormat().headingLevel()] == []
    assert "[2026-12-03 session 1f07fbadb828" in view.toPlainText()       # the words are still shown


def test_a_messages_own_headings_stay_modest_and_a_files_keep_their_size(qtbot):
    text = "# Plan\n\n## Steps\n\n1. pack"
    message, preview = MarkdownView(text, message=True), MarkdownView(text)
    for view in (message, preview):
        qtbot.addWidget(view)

    def sizes(view):
        return [b.begin().fragment().charFormat().intProperty(QTextFormat.FontSizeAdjustment) for b in blocks(view)
                if b.blockFormat().headingLevel()]

    assert sizes(message) == [1, 0] and sizes(preview)[0] > 1
