"""The chat model: a GGUF file run by llama-cpp-python on one worker thread.

The interface below is what the turn engine and the window rely on; the fake in tests/fakes.py
follows it too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Generation:
    """One model reply and what it cost."""

    text: str
    stopped: bool = False            # the person pressed Stop; text is the partial reply
    finish_reason: str = ""          # "stop", "length", "stopped", "error"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_ms: float = 0.0           # until the first token (prompt evaluation)
    generate_ms: float = 0.0         # from the first token to the last
    timings: dict = field(default_factory=dict)

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / (self.generate_ms / 1000) if self.generate_ms > 0 else 0.0


class ChatModel(Protocol):
    name: str
    context_tokens: int

    def count_tokens(self, text: str) -> int: ...

    def generate(self, messages: list[dict], *, on_token: Callable[[str], None] | None = None,
                 stop: threading.Event | None = None, max_tokens: int = 512,
                 json_schema: dict | None = None) -> Generation:
        """Reply to OpenAI-style messages ({"role", "content"}), streaming each piece of text to
        on_token; returns early (stopped=True) once ``stop`` is set. With json_schema, the output
        is constrained by a grammar to JSON matching the schema."""
        ...
