"""Tool calls as each model family writes them, so a call in any trained format is run, not shown.

A model calls tools in the format it was trained on (the catalog's ``tool_format``):

- hermes: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, one block per call (Qwen, SmolLM3);
- llama3: ``{"name": ..., "parameters": {...}}``, after ``<|python_tag|>`` or alone (Llama 3.x);
- mistral: ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]`` (Mistral v0.3);
- phi4: ``<|tool_call|>[{"name": ..., "arguments": {...}}]<|/tool_call|>`` (Phi-4-mini);
- json: a JSON object or list in a code fence (Gemma, which has no tool format of its own).

Every reply is read for all of them: llama.cpp drops control tokens such as ``<|python_tag|>`` or
``[TOOL_CALLS]`` from the text, so those calls arrive as bare JSON, and small models drift between
formats. JSON without markup is a call only when it names one of the tools offered, so an answer
that merely shows JSON stays an answer. The engine runs every call of a reply and shows the model
the results inside ``<tool_response>``. No call markup reaches the person: ``HiddenMarkup`` holds
back streamed text from where a call starts, or may yet start.

When a model's own chat template renders tools (``tools=``), it teaches them as the model was
trained; ``describe`` is the prompt-level lesson for templates without it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from engram.core.conversation.tools import Tool
from engram.core.models.structured import schema_errors

# Opening markup -> its closing markup; a call written after an opening one needs no other proof.
MARKUP = {"<tool_call>": "</tool_call>", "<|tool_call|>": "<|/tool_call|>", "[TOOL_CALLS]": "", "<|python_tag|>": ""}
OPENERS = tuple(MARKUP)
UNMARKED_START = re.compile(r"[{\[`]")          # a JSON object or list, or a code fence
JSON_CALL_START = re.compile(r'(\[\s*)?\{\s*"')  # how a JSON call, or a list of them, begins
FENCE = "```"
FENCE_LANGUAGES = ("", "json", "tool_call", "tool_calls", "tool_code")
CALL = {"type": "object", "required": ["name"],
        "properties": {"name": {"type": "string", "minLength": 1}, "arguments": {"type": "object"}}}
SEPARATORS = " \t\r\n;,"
_decoder = json.JSONDecoder()

# How each format writes one call and several: the prompt-level lesson and the hint after a bad call.
EXAMPLES = {
    "hermes": ('<tool_call>{"name": "<tool name>", "arguments": {...}}</tool_call>',
               "one <tool_call> block per call"),
    "llama3": ('{"name": "<tool name>", "parameters": {...}}', "one JSON object per line"),
    "mistral": ('[TOOL_CALLS] [{"name": "<tool name>", "arguments": {...}}]', "all calls in that one list"),
    "phi4": ('<|tool_call|>[{"name": "<tool name>", "arguments": {...}}]<|/tool_call|>',
             "all calls in that one list"),
    "json": ('```json\n{"name": "<tool name>", "arguments": {...}}\n```', "a JSON list of such objects in the block"),
}


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict


def describe(tools: list[Tool], tool_format: str = "hermes") -> str:
    """The system-prompt text that teaches the model to call the tools in its family's format."""
    one, several = EXAMPLES[tool_format]
    specs = "\n".join(json.dumps(t.spec()["function"], ensure_ascii=False) for t in tools)
    return ("You may call a tool when it helps. To call one, reply with only\n"
            f"{one}\nand wait for its result; to call several at once, write {several}. Tools:\n" + specs)


def split(text: str, names: Collection[str] = (), tool_format: str = "hermes"
          ) -> tuple[str, list[ToolCall], str]:
    """(visible text, the calls in order, an error note when a call was malformed). ``names`` are
    the tools offered: JSON without markup is a call only when it names one of them."""
    start = _first_call(text, names, final=True)
    if start is None:
        return text, [], ""
    calls, problems = _read_calls(text, start)
    one = EXAMPLES[tool_format][0]
    note = f"the tool call could not be read ({'; '.join(problems)}); write it as valid JSON: {one}" if problems else ""
    return text[:start].rstrip(), calls, note


def response_message(*results: str) -> dict:
    """The tools' results, in the order of the calls, as the model sees them; a user-role message
    is understood by every chat format (and is what Qwen's own template makes of tool results)."""
    return {"role": "user", "content": "\n".join(f"<tool_response>\n{r}\n</tool_response>" for r in results)}


def _first_call(text: str, names: Collection[str], final: bool) -> int | None:
    """Where the first call starts; while the reply is still being written (not ``final``), also
    where text starts that may yet become one, so that it is held back."""
    marked = [i for i in (text.find(m) for m in OPENERS) if i >= 0]
    end = min(marked) if marked else len(text)
    if not final:
        tail = next((n for n in range(min(max(map(len, OPENERS)) - 1, len(text)), 0, -1)
                     if any(m.startswith(text[-n:]) for m in OPENERS)), 0)
        end = min(end, len(text) - tail)
    position = 0
    while match := UNMARKED_START.search(text, position, end):
        verdict, skip = _unmarked(text[match.start():end], names, final)
        if verdict != "no":
            return match.start()
        position = match.start() + skip
    return end if end < len(text) else None


def _unmarked(segment: str, names: Collection[str], final: bool) -> tuple[str, int]:
    """Whether ``segment`` starts with a call written without markup: "call" (a malformed one that
    names an offered tool counts, so the model is told), "no" (with how far to skip), or "maybe"
    (the reply goes on and will tell)."""
    if not names:
        return "no", 1
    if segment.startswith("`"):
        return _fenced(segment, names, final)
    if not JSON_CALL_START.match(segment):
        return ("maybe", 0) if not final and re.fullmatch(r"\[?\s*\{?\s*", segment) else ("no", 1)
    try:
        value, after = _decoder.raw_decode(segment)
    except json.JSONDecodeError as e:
        # What is written so far of valid JSON fails only in an unfinished string or at its end.
        if not final and (e.msg.startswith("Unterminated string") or len(segment) - e.pos <= 5):
            return "maybe", 0
        named = re.search(r'"name"\s*:\s*"([^"]+)"', segment)
        return ("call", 0) if named and named[1] in names else ("no", 1)
    items = value if isinstance(value, list) else [value]
    return ("call", 0) if items and all(isinstance(i, dict) and _body(i).get("name") in names for i in items) \
        else ("no", after)


def _fenced(segment: str, names: Collection[str], final: bool) -> tuple[str, int]:
    """``_unmarked`` for a code fence: a call when its body is one."""
    if not segment.startswith(FENCE):
        partial = len(segment) < len(FENCE) and not final
        return ("maybe", 0) if partial else ("no", len(segment) - len(segment.lstrip("`")))
    line_end = segment.find("\n")
    if line_end < 0:
        return ("no", len(FENCE)) if final else ("maybe", 0)
    if segment[len(FENCE):line_end].strip().lower() not in FENCE_LANGUAGES:
        return "no", len(FENCE)
    body = segment[line_end + 1:]
    close = body.find(FENCE)
    if close < 0 and not final:
        return "maybe", 0
    verdict, _ = _unmarked((body[:close] if close >= 0 else body).strip(), names, True)
    return verdict, line_end + 1 + (close + len(FENCE) if close >= 0 else len(body))


def _body(item: dict) -> dict:
    """One call's name and arguments, in any of the shapes the formats use (OpenAI's nesting
    under "function", Llama's "parameters")."""
    body = dict(item["function"] if isinstance(item.get("function"), dict) else item)
    if "arguments" not in body and "parameters" in body:
        body["arguments"] = body.pop("parameters")
    return body


def _read_calls(text: str, start: int) -> tuple[list[ToolCall], list[str]]:
    """Every call from ``start`` on, in whichever markup; prose between calls is skipped, prose
    after the last one is not the model's to show (a call ends its turn)."""
    calls: list[ToolCall] = []
    problems: list[str] = []
    position, expecting = start, ""
    while True:
        while position < len(text) and text[position] in SEPARATORS:
            position += 1
        rest = text[position:]
        marker = next((m for m in (*MARKUP, *MARKUP.values()) if m and rest.startswith(m)), "")
        if marker:
            if expecting and marker not in MARKUP:
                problems.append(f"no JSON after {expecting}")
            position += len(marker)
            expecting = marker if marker in MARKUP else ""
            continue
        if rest.startswith(FENCE):
            line_end = rest.find("\n")
            position += line_end + 1 if line_end >= 0 else len(rest)
            continue
        if rest[:1] in ("{", "["):
            try:
                value, end = _decoder.raw_decode(rest)
            except ValueError as e:
                problems.append(str(e))
                value, end = None, _skip_broken(rest)
            for item in [] if value is None else value if isinstance(value, list) else [value]:
                call = _call(item)
                if isinstance(call, ToolCall):
                    calls.append(call)
                else:
                    problems.append(call)
            position += end
            expecting = ""
            continue
        if expecting:
            problems.append(f"no JSON after {expecting}")
        following = [i for i in (text.find(m, position) for m in OPENERS) if i >= 0]
        if not rest or not following:
            return calls, problems
        position, expecting = min(following), ""


def _skip_broken(rest: str) -> int:
    """How far an unreadable call reaches: to its closing markup or the next call, else the end."""
    ends = [i for i in (rest.find(m, 1) for m in (*OPENERS, *filter(None, MARKUP.values()), FENCE)) if i > 0]
    return min(ends) if ends else len(rest)


def _call(item) -> ToolCall | str:
    """One call from its JSON, or what is wrong with it."""
    if not isinstance(item, dict):
        return f"a call should be an object, not {json.dumps(item)[:40]}"
    data = _body(item)
    if isinstance(data.get("arguments"), str):
        try:
            data["arguments"] = json.loads(data["arguments"])     # some models write the object as a string
        except ValueError as e:
            return f"call.arguments is not JSON: {e}"
    if problems := schema_errors(data, CALL, "call"):
        return "; ".join(problems)
    return ToolCall(data["name"], data.get("arguments") or {})


class HiddenMarkup:
    """Streams text on to ``on_token`` but nothing from a tool call onwards. Text that may yet
    become a call (the start of markup, a JSON object or a code fence) is held back until the
    reply shows whether it is one; at the end of the reply, what was not a call is shown.
    ``names`` are the tools offered, as for ``split``."""

    def __init__(self, on_token: Callable[[str], None] | None, names: Collection[str] = ()):
        self.on_token = on_token
        self.names = names
        self.reply = ""             # this round's text so far
        self.sent = 0               # how much of it was shown
        self.gap = False
        self.shown: list[str] = []

    def __call__(self, piece: str) -> None:
        self.reply += piece
        self._show(final=False)

    def flush(self) -> None:
        """The generation ended: held-back text that did not become a call is shown after all."""
        self._show(final=True)

    def next_round(self) -> None:
        """The model answers again after a tool result: stream on, kept apart from the text before."""
        self.reply, self.sent = "", 0
        self.gap = bool(self.shown) and not self.shown[-1][-1:].isspace()

    def _show(self, final: bool) -> None:
        start = _first_call(self.reply, self.names, final)
        text = self.reply[self.sent:len(self.reply) if start is None else max(start, self.sent)]
        self.sent += len(text)
        if text and self.gap:
            text, self.gap = " " + text.lstrip(), False
        if text:
            self.shown.append(text)
            if self.on_token:
                self.on_token(text)

    @property
    def text(self) -> str:
        return "".join(self.shown)
