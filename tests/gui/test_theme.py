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
