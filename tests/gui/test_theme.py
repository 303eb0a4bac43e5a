"""The stylesheet: a disabled Save (purple) or Delete (red) button looks disabled, not as it does
when it can be pressed."""

from __future__ import annotations

import pytest

from engram.ui import theme


def colours(button) -> set[tuple[int, int, int]]:
    image = button.grab().toImage()
    return {image.pixelColor(x, y).getRgb()[:3] for x in range(image.width()) for y in range(image.height())}


def reddish(rgb: tuple[int, int, int]) -> bool:
    r, g, b = rgb
    return r > g + 60 and r > b + 60


@pytest.mark.parametrize("name", ["Primary", "Danger"])
def test_a_disabled_coloured_button_loses_its_colour(qtbot, qapp, name):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QPushButton

    theme.apply(qapp)
    shown = {}
    for enabled in (True, False):
        button = QPushButton("Delete… Save")
        button.setObjectName(name)
        button.setEnabled(enabled)
        qtbot.addWidget(button)
        button.resize(140, 32)
        button.show()
        shown[enabled] = colours(button)
    if name == "Primary":
        highlight = qapp.palette().color(QPalette.Highlight).getRgb()[:3]
        assert highlight in shown[True] and highlight not in shown[False]
    else:
        assert any(map(reddish, shown[True])) and not any(map(reddish, shown[False]))


@pytest.mark.parametrize("dark", [False, True])
def test_a_code_blocks_scroll_bar_is_drawn_as_every_other_one(qtbot, qapp, dark):
    """A long code line scrolls sideways; its bar's groove once came out black, in light and dark
    (a stylesheet of the view's own, making it transparent, which it is without one)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QScrollBar

    from engram.ui.markdown_view import MarkdownView

    theme.apply(qapp)
    theme.restyle(qapp, dark)
    try:
        view = MarkdownView("A:\n\n```\n" + "peanuts " * 80 + "\n```\n", message=True)
        qtbot.addWidget(view)
        view.resize(400, 120)
        view.show()
        ours = view.horizontalScrollBar()
        qtbot.waitUntil(ours.isVisible)
        plain = QScrollBar(Qt.Horizontal)
        qtbot.addWidget(plain)
        plain.setRange(ours.minimum(), ours.maximum())
        plain.setPageStep(ours.pageStep())
        plain.resize(ours.size())
        plain.show()
        drawn, expected = ours.grab().toImage(), plain.grab().toImage()
        groove = (drawn.width() * 4 // 5, drawn.height() // 2)         # right of the handle, at the start
        assert drawn.pixelColor(*groove).getRgb() == expected.pixelColor(*groove).getRgb()
        handle = (drawn.width() // 10, drawn.height() // 2)
        assert drawn.pixelColor(*handle).getRgb() == expected.pixelColor(*handle).getRgb()
    finally:
        theme.restyle(qapp, False)
