"""Words the core writes that the window shows in the person's language.

The core never imports Qt, yet a download error or the machine summary it builds must read in
Chinese in a Chinese window. So such a text is a ``Text``: its English template (marked with
``QT_TRANSLATE_NOOP("Core", ...)``, the call pyside6-lupdate looks for, here a plain function) and
its values. ``str()`` gives the English a terminal prints; the window translates the template and
then fills it in (``engram.ui.notice.translated``), values that are Texts too.
"""

from __future__ import annotations

CONTEXT = "Core"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate reads
    """Marks ``text`` for translation (lupdate collects it); returns it as it is."""
    return text


class Text:
    """An English template and its values; ``str()`` is the English."""

    __slots__ = ("template", "values")

    def __init__(self, template: str, **values):
        self.template, self.values = template, values

    def __str__(self) -> str:
        return self.template.format(**{k: str(v) if isinstance(v, Text) else v for k, v in self.values.items()})

    def __repr__(self) -> str:
        return f"Text({str(self)!r})"
