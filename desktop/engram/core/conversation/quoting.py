"""Remembered text put before the model as quoted data, never as instructions.

A recalled memory, a stored note or a past message may hold anything a person or a model once
wrote, fences and lines that read like instructions included. It reaches the prompt inside a
fenced block with its own fences defused, so it cannot close the block and pass for the prompt's
words. Recall, distillation and the turn engine quote the same way, from here.
"""

from __future__ import annotations

FENCE = "```"


def defused(text: str) -> str:
    """The text with its fences turned into ``'''``, so it cannot close the block it is quoted in."""
    return text.replace(FENCE, "'''")


def block(prompt: str, lines: list[str]) -> str:
    """``lines`` as one fenced block of data under ``prompt``."""
    return f"{prompt}\n{FENCE}memory\n" + "\n".join(lines) + f"\n{FENCE}"
