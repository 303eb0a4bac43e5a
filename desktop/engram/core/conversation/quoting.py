"""Remembered text put before the model as quoted data, never as instructions.

A recalled memory, a stored note or a past message may hold anything a person or a model once
wrote, fences and lines that read like instructions included. It reaches the prompt inside a
fenced block with its own fences defused, so it cannot close the block and pass for the prompt's
words. Recall, distillation and the turn engine quote the same way, from here.
"""

from __future__ import annotations

import json

FENCE = "```"
# Line breaks that json.dumps leaves as they are (it escapes those below U+0020).
_LINE_BREAKS = str.maketrans({"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def defused(text: str) -> str:
    """The text with its fences turned into ``'''``, so it cannot close the block it is quoted in."""
    return text.replace(FENCE, "'''")


def one_line(text: str) -> str:
    """The text as one JSON string on one line: its line breaks and quotes escaped, its fences
    defused, so it can start no forged entry and close no block."""
    return json.dumps(defused(text), ensure_ascii=False).translate(_LINE_BREAKS)


def block(prompt: str, lines: list[str]) -> str:
    """``lines`` as one fenced block of data under ``prompt``."""
    return f"{prompt}\n{FENCE}memory\n" + "\n".join(lines) + f"\n{FENCE}"
