"""A reply's reasoning kept apart from its answer.

Qwen3, SmolLM3 and other reasoning models write their thinking between ``<think>`` and
``</think>`` before the answer. Only the answer is the reply: it is what is shown, stored,
archived, recalled, summarised and distilled. The reasoning goes to its own channel (the window's
collapsed "Reasoning" block, the API's ``reasoning_content``) or nowhere. Markup from a model that
thinks when asked not to is held back all the same.
"""

from __future__ import annotations

from collections.abc import Callable

OPEN, CLOSE = "<think>", "</think>"


def opens_thinking(prompt: str) -> bool:
    """Whether the template's generation prompt opened the think block itself (the reply then
    starts inside it and only closes it)."""
    return prompt.rstrip().endswith(OPEN)


class ReasoningSplit:
    """Streams the answer to ``on_answer`` and the reasoning to ``on_reasoning`` (None: dropped).
    A piece that might be the start of a tag is held back until the next piece shows whether it is."""

    def __init__(self, on_answer: Callable[[str], None] | None, on_reasoning: Callable[[str], None] | None,
                 *, inside: bool = False):
        self.on_answer, self.on_reasoning = on_answer, on_reasoning
        self.inside = inside
        self.held = ""
        self.tag_before = False         # nothing was passed on since the last tag
        self.answer: list[str] = []
        self.reasoning: list[str] = []
        self.reasoning_tokens = 0       # streamed pieces (one a token) of the block, its tags included

    def __call__(self, piece: str) -> None:
        began_inside = self.inside
        self._split(self.held + piece)
        self.reasoning_tokens += began_inside or self.inside

    def _split(self, text: str) -> None:
        self.held = ""
        while text:
            tag = CLOSE if self.inside else OPEN
            at = text.find(tag)
            if at >= 0:
                self._emit(text[:at])
                text = text[at + len(tag):]
                self.inside = not self.inside
                self.tag_before = True
                continue
            keep = next((n for n in range(min(len(tag) - 1, len(text)), 0, -1) if tag.startswith(text[-n:])), 0)
            self._emit(text[:len(text) - keep])
            self.held = text[len(text) - keep:]
            break

    def flush(self) -> None:
        """The generation ended: held-back text that did not become a tag is passed on after all."""
        self._emit(self.held)
        self.held = ""

    def _emit(self, text: str) -> None:
        parts, callback = (self.reasoning, self.on_reasoning) if self.inside else (self.answer, self.on_answer)
        if not parts or (self.tag_before and parts[-1][-1:].isspace()):
            text = text.lstrip()        # the newlines around the tags are layout, not text
        self.tag_before = self.tag_before and not text
        if text:
            parts.append(text)
            if callback is not None:
                callback(text)

    @property
    def answer_text(self) -> str:
        return "".join(self.answer)

    @property
    def reasoning_text(self) -> str:
        return "".join(self.reasoning).rstrip()
