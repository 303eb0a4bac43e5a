"""Messages into prompt tokens, with every message's text kept as data.

llama-cpp-python renders a chat template to one string and tokenises all of it with special tokens
on: a memory holding ``<start_of_turn>model`` became Gemma's real control tokens, a forged model
turn. Here the template is rendered with a placeholder for each message's text; the markup around
the placeholders (the template's own role headers and separators) is tokenised with special tokens
on, and each text on its own with special tokens off. Whatever a memory, a file, a tool result or
the person writes, it reaches the model as plain text.

The same rendering marks where the first (system) message's text ends: the stable prefix that
llama.cpp can keep evaluated, on disk too (prompt_states.py). A template that puts the system text
after other messages (Mistral v0.3's, into the last user turn) has no stable prefix.

A model's own template is rendered as it is, with what it needs to work for Engram's conversations:
its thinking switch (``enable_thinking``, or ``/no_think`` in the system text), and, for templates
that refuse them, no system message (its text opens the first user turn) and no two turns of one
role in a row (they are joined). Nothing falls back to another format. A template that takes tools
is given them (template_tools.py); ``takes_tools`` says so to the turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from engram.core.errors import ModelError
from engram.core.models.reasoning import opens_thinking
from engram.core.models.template_tools import tools_place, with_tools

# The llama-cpp-python formats Engram renders itself (settings chat_format); a model's own template
# (GGUF tokenizer.chat_template) is used whenever chat_format is empty.
FORMATS = {"gemma": "format_gemma", "chatml": "format_chatml", "qwen": "format_qwen", "llama-3": "format_llama3"}
OWN_TEMPLATE = "chat_template.default"          # llama-cpp-python's name for the GGUF's template

_MARK = "\ue000{}\ue001"                        # private-use characters: no template writes them
_MARKS = re.compile("\ue000([0-9]+)\ue001")
_SPECIAL = 8 | 16                               # llama.cpp's LLAMA_TOKEN_ATTR_CONTROL | _USER_DEFINED
NO_THINK = "/no_think"


@dataclass
class Prompt:
    """What the model is given: the tokens, and how it knows the reply has ended."""

    tokens: list[int]
    stable: int                 # the first tokens, up to the end of the system text (0: no system message)
    stop: list[str]
    stopping_criteria: object = None     # llama_cpp.StoppingCriteriaList or None
    thinking_open: bool = False          # the template opened the think block: the reply starts in it


class ChatTemplate:
    """One model's chat template: ``render`` turns OpenAI-style messages into a Prompt."""

    def __init__(self, llm, name: str, formatter: Callable, *, add_bos: bool, source: str = "", tools_in: str = ""):
        self._llm = llm
        self.name = name
        self._formatter = formatter
        self._add_bos = add_bos        # llama-cpp-python's own formats leave the BOS token to the tokeniser
        # What the model's own template (``source``) takes or refuses, read from its text.
        self.thinking_switch = "enable_thinking" if "enable_thinking" in source else \
            NO_THINK if NO_THINK in source else ""
        self._alternates = "alternate" in source               # raise_exception("... roles must alternate ...")
        self._no_system = bool(source) and "system" not in source
        self._tools_in = tools_in      # template_tools.tools_place
        self.takes_tools = bool(tools_in)

    @classmethod
    def for_model(cls, llm, chat_format: str, fallback: str) -> "ChatTemplate":
        """The template named by ``chat_format``; empty: the model's own, or ``fallback`` when it has
        none (a base model like the Gemma demo)."""
        from llama_cpp import llama_chat_format  # imported here: the library is slow to load

        template = llm.metadata.get("tokenizer.chat_template")
        if not chat_format and template:
            vocab = llm._model
            eos, bos = llm.token_eos(), llm.token_bos()
            formatter = llama_chat_format.Jinja2ChatFormatter(
                template=template, eos_token=vocab.token_get_text(eos) if eos != -1 else "",
                bos_token=vocab.token_get_text(bos) if bos != -1 else "", stop_token_ids=[eos])
            return cls(llm, OWN_TEMPLATE, formatter, add_bos=False, source=template, tools_in=tools_place(template))
        name = chat_format or fallback
        if name not in FORMATS:
            raise ModelError(f"unknown chat format {name!r}",
                             hint="leave the chat format empty (use the model's own template),"
                                  f" or name one of {', '.join(FORMATS)}")
        return cls(llm, name, getattr(llama_chat_format, FORMATS[name]), add_bos=True)

    def layout(self, messages: list[dict], *, thinking: bool = False) -> tuple[list[dict], dict]:
        """The messages and the variables the template is given for ``messages``; ``thinking`` False
        turns the model's thinking off with its own switch (a template without one is left as it is:
        its model does not think on its own)."""
        variables = {}
        if self.thinking_switch == "enable_thinking":
            variables = {"enable_thinking": thinking}
        elif self.thinking_switch == NO_THINK and not thinking:
            # In the markup, where the template (which may look for it in the system text) sees it too.
            if messages and messages[0]["role"] == "system":
                messages = [{**messages[0], "content": f"{messages[0]['content']}\n{NO_THINK}"}, *messages[1:]]
            else:
                messages = [{"role": "system", "content": NO_THINK}, *messages]
        if self.name == "gemma":
            messages = gemma_turns(messages)
        if self._no_system:
            messages = system_in_first_turn(messages)
        if self._alternates:
            messages = joined_turns(messages)
        return messages, variables

    def render(self, messages: list[dict], tools: list[dict] | None = None, *, thinking: bool = False) -> Prompt:
        """The prompt of ``messages``, laid out as ``layout`` says. ``stable`` ends after the system
        message's text, or after its first ``stable`` characters when it says so (what follows them,
        the profile, changes more often). ``tools`` (OpenAI-style specs) only for a template that
        ``takes_tools``."""
        texts = [m.get("content") or "" for m in messages]
        split = messages[0].get("stable", 0) if messages and messages[0]["role"] == "system" else 0
        marked, variables = self.layout([{k: v for k, v in m.items() if k != "stable"} | {"content": _MARK.format(i)}
                                         for i, m in enumerate(messages)], thinking=thinking)
        marked, extra = with_tools(marked, tools, self._tools_in)
        try:
            result = self._formatter(messages=marked, **variables, **extra)
        except Exception as e:          # a template may refuse a conversation (raise_exception) or fail
            raise ModelError(f"the chat model's template could not lay out the conversation: {e}",
                             hint="set the chat format in Settings (e.g. chatml) instead of the model's own") from e
        tokens = self._llm.tokenize(b"", add_bos=True, special=True) if self._add_bos else []
        stable = 0
        parts = _MARKS.split(result.prompt)           # markup, index, markup, index, ..., markup
        for position, part in enumerate(parts):
            if position % 2 == 0:
                # Spaces that end the markup are left to the text: a tokeniser joins them to its first word.
                following = parts[position + 1] if position + 1 < len(parts) else ""
                tokens += self._tokens(part.rstrip(" ") if following else part, tokens, special=True)
                continue
            index = int(part)
            markup = parts[position - 1]
            text = markup[len(markup.rstrip(" ")):] + texts[index]
            # Stable only when nothing that changes from turn to turn came before it.
            first = position == 1 and index == 0 and messages[0]["role"] == "system"
            if first and 0 < split < len(texts[index]):
                cut = len(text) - len(texts[index]) + split
                tokens += self._tokens(text[:cut], tokens, special=False)
                stable, text = len(tokens), text[cut:]
            tokens += self._tokens(text, tokens, special=False)
            if first and not stable:
                stable = len(tokens)
        stop = result.stop if isinstance(result.stop, list) else [result.stop] if result.stop else []
        return Prompt(tokens, stable, stop, result.stopping_criteria, opens_thinking(result.prompt))

    def _tokens(self, text: str, before: list[int], *, special: bool) -> list[int]:
        """``text``'s tokens where it follows ``before`` in the prompt. A SentencePiece vocabulary
        (Mistral's, Phi's) starts every tokenisation with a space, which belongs only at the start
        of the prompt and after a special token; elsewhere the text is tokenised after a newline,
        whose tokens are then dropped, as it would be inside the whole prompt."""
        tokenize, model = self._llm.tokenize, self._llm._model
        if before and self._space_prefix and not model.token_get_attr(before[-1]) & _SPECIAL:
            newline = tokenize(b"\n", add_bos=False, special=False)
            return tokenize(b"\n" + text.encode("utf-8"), add_bos=False, special=special)[len(newline):]
        return tokenize(text.encode("utf-8"), add_bos=False, special=special)

    def tool_tokens(self, tools: list[dict]) -> int:
        """The prompt tokens this template spends laying out ``tools`` (its own words included)."""
        probe = [{"role": "system", "content": "."}, {"role": "user", "content": "."}]
        return len(self.render(probe, tools).tokens) - len(self.render(probe).tokens)

    @cached_property
    def _space_prefix(self) -> bool:
        """Whether the vocabulary puts a space before the text it is given (SentencePiece's way)."""
        tokenize = self._llm.tokenize
        newline = tokenize(b"\n", add_bos=False, special=False)
        return tokenize(b"a", add_bos=False, special=False) != \
            tokenize(b"\na", add_bos=False, special=False)[len(newline):]


def system_in_first_turn(messages: list[dict]) -> list[dict]:
    """For a template that knows no system role (it raises on one): the system text opens the
    first user turn, where such models were shown instructions."""
    if not messages or messages[0]["role"] != "system":
        return messages
    system, rest = messages[0]["content"], messages[1:]
    if rest and rest[0]["role"] == "user":
        return [{**rest[0], "content": f"{system}\n\n{rest[0]['content']}"}, *rest[1:]]
    return [{"role": "user", "content": system}, *rest]


def joined_turns(messages: list[dict]) -> list[dict]:
    """For a template that raises unless user and assistant turns alternate: turns of one role in a
    row (a reply that failed, a tool result after the person's words) become one turn."""
    turns: list[dict] = []
    for m in messages:
        if turns and turns[-1]["role"] == m["role"] and m["role"] in ("user", "assistant"):
            turns[-1] = {**turns[-1], "content": f"{turns[-1]['content']}\n\n{m['content']}"}
        else:
            turns.append(dict(m))
    return turns


def gemma_turns(messages: list[dict]) -> list[dict]:
    """Gemma knows only user and model turns, and llama-cpp-python's "gemma" format silently drops
    system messages. Put the system text before the first user message (as Gemma's own template
    does) and pass other roles (tool results) as user turns labelled with their role."""
    system = "\n\n".join(m.get("content") or "" for m in messages if m["role"] == "system")
    turns = []
    for m in messages:
        role, content = m["role"], m.get("content") or ""
        if role == "system":
            continue
        if role not in ("user", "assistant"):
            role, content = "user", f"[{m.get('name') or role}]\n{content}"
        turns.append({"role": role, "content": content})
    if system:
        if turns and turns[0]["role"] == "user":
            turns[0] = {"role": "user", "content": f"{system}\n\n{turns[0]['content']}"}
        else:
            turns.insert(0, {"role": "user", "content": system})
    return turns
