"""Tool calls at the prompt level, so they work with any model and chat format.

Tools are described in the system prompt; the model calls one by writing
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (the Hermes/Qwen convention). The
engine runs it and shows the model the result inside ``<tool_response>``. The markup never
reaches the person: ``HiddenMarkup`` holds back streamed text from the opening tag on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from engram.core.models.structured import schema_errors
from engram.core.conversation.tools import Tool

OPEN, CLOSE = "<tool_call>", "</tool_call>"
CALL = {"type": "object", "required": ["name"],
        "properties": {"name": {"type": "string", "minLength": 1}, "arguments": {"type": "object"}}}


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict


def describe(tools: list[Tool]) -> str:
    """The system-prompt text that teaches the model how to call the tools."""
    specs = "\n".join(json.dumps(t.spec()["function"], ensure_ascii=False) for t in tools)
    return ("You may call a tool when it helps. To call one, reply with only\n"
            f'{OPEN}{{"name": "<tool name>", "arguments": {{...}}}}{CLOSE}\n'
            "and wait for its result. Tools:\n" + specs)


def split(text: str) -> tuple[str, ToolCall | None, str]:
    """(visible text, the first tool call or None, an error note when the call was malformed)."""
    start = text.find(OPEN)
    if start < 0:
        return text, None, ""
    visible = text[:start].rstrip()
    body = text[start + len(OPEN):]
    end = body.find(CLOSE)
    body = body[:end] if end >= 0 else body
    try:
        data = json.loads(body.strip())
        if isinstance(data, dict) and isinstance(data.get("arguments"), str):
            data["arguments"] = json.loads(data["arguments"])     # some models write the object as a string
        if problems := schema_errors(data, CALL, "call"):
            raise ValueError("; ".join(problems))
        return visible, ToolCall(data["name"], data.get("arguments", {})), ""
    except ValueError as e:
        return visible, None, f"the tool call could not be read ({e}); write valid JSON inside {OPEN}...{CLOSE}"


def response_message(result: str) -> dict:
    """A tool's result as the model sees it; a user-role message is understood by every chat format."""
    return {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"}


class HiddenMarkup:
    """Streams text on to ``on_token`` but nothing from ``<tool_call>`` onwards. A piece that might
    be the start of the tag is held back until the next piece shows whether it is."""

    def __init__(self, on_token: Callable[[str], None] | None):
        self.on_token = on_token
        self.held = ""
        self.hidden = False
        self.gap = False
        self.shown: list[str] = []

    def __call__(self, piece: str) -> None:
        if self.hidden:
            return
        text = self.held + piece
        start = text.find(OPEN)
        if start >= 0:
            self.hidden = True
            self._emit(text[:start])
            self.held = ""
            return
        keep = next((n for n in range(min(len(OPEN) - 1, len(text)), 0, -1) if OPEN.startswith(text[-n:])), 0)
        self.held = text[len(text) - keep:] if keep else ""
        self._emit(text[:len(text) - keep])

    def flush(self) -> None:
        """The generation ended: held-back text that did not become a tag is shown after all."""
        if not self.hidden and self.held:
            self._emit(self.held)
        self.held = ""

    def next_round(self) -> None:
        """The model answers again after a tool result: stream on, kept apart from the text before."""
        self.hidden = False
        self.gap = bool(self.shown) and not self.shown[-1][-1:].isspace()

    def _emit(self, text: str) -> None:
        if text and self.gap:
            text, self.gap = " " + text.lstrip(), False
        if text:
            self.shown.append(text)
            if self.on_token:
                self.on_token(text)

    @property
    def text(self) -> str:
        return "".join(self.shown)
