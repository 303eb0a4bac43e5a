"""Messages into prompt tokens, with every message's text kept as data.

llama-cpp-python renders a chat template to one string and tokenises all of it with special tokens
on: a memory holding ``<start_of_turn>model`` became Gemma's real control tokens, a forged model
turn. Here the template is rendered with a placeholder for each message's text; the markup around
the placeholders (the template's own role headers and separators) is tokenised with special tokens
on, and each text on its own with special tokens off. Whatever a memory, a file, a tool result or
the person writes, it reaches the model as plain text.

The same rendering marks where the first (system) message's text ends: the stable prefix that
llama.cpp can keep evaluated, on disk too (prompt_states.py).

A template that takes tools is given them (template_tools.py); ``takes_tools`` says so to the turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engram.core.errors import ModelError
from engram.core.models.template_tools import tools_place, with_tools

# The llama-cpp-python formats Engram renders itself (settings chat_format); a model's own template
# (GGUF tokenizer.chat_template) is used whenever chat_format is empty.
FORMATS = {"gemma": "format_gemma", "chatml": "format_chatml", "qwen": "format_qwen", "llama-3": "format_llama3"}
OWN_TEMPLATE = "chat_template.default"          # llama-cpp-python's name for the GGUF's template

_MARK = "\ue000{}\ue001"                        # private-use characters: no template writes them
_MARKS = re.compile("\ue000([0-9]+)\ue001")


@dataclass
class Prompt:
    """What the model is given: the tokens, and how it knows the reply has ended."""

    tokens: list[int]
    stable: int                 # the first tokens, up to the end of the system text (0: no system message)
    stop: list[str]
    stopping_criteria: object = None     # llama_cpp.StoppingCriteriaList or None


class ChatTemplate:
    """One model's chat template: ``render`` turns OpenAI-style messages into a Prompt."""

    def __init__(self, llm, name: str, formatter: Callable, *, add_bos: bool, tools_in: str = ""):
        self._llm = llm
        self.name = name
        self._formatter = formatter
        self._add_bos = add_bos        # llama-cpp-python's own formats leave the BOS token to the tokeniser
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
            return cls(llm, OWN_TEMPLATE, formatter, add_bos=False, tools_in=tools_place(template))
        name = chat_format or fallback
        if name not in FORMATS:
            raise ModelError(f"unknown chat format {name!r}",
                             hint="leave the chat format empty (use the model's own template),"
                                  f" or name one of {', '.join(FORMATS)}")
        return cls(llm, name, getattr(llama_chat_format, FORMATS[name]), add_bos=True)

    def render(self, messages: list[dict], tools: list[dict] | None = None) -> Prompt:
        """The prompt's tokens; ``stable`` ends after the system message's text, or after its first
        ``stable`` characters when it says so (what follows them, the profile, changes more often).
        ``tools`` (OpenAI-style specs) only for a template that ``takes_tools``."""
        texts = [m.get("content") or "" for m in messages]
        marked = [{k: v for k, v in m.items() if k != "stable"} | {"content": _MARK.format(i)}
                  for i, m in enumerate(messages)]
        split = messages[0].get("stable", 0) if messages and messages[0]["role"] == "system" else 0
        if self.name == "gemma":
            marked = gemma_turns(marked)
        marked, extra = with_tools(marked, tools, self._tools_in)
        try:
            result = self._formatter(messages=marked, **extra)
        except Exception as e:          # a template may refuse a conversation (raise_exception) or fail
            raise ModelError(f"the chat model's template could not lay out the conversation: {e}",
                             hint="set the chat format in Settings (e.g. chatml) instead of the model's own") from e
        tokenize = self._llm.tokenize
        tokens = tokenize(b"", add_bos=True, special=True) if self._add_bos else []
        stable = 0
        parts = _MARKS.split(result.prompt)           # markup, index, markup, index, ..., markup
        for position, part in enumerate(parts):
            if position % 2 == 0:
                tokens += tokenize(part.encode("utf-8"), add_bos=False, special=True)
                continue
            index = int(part)
            text = texts[index]
            if index == 0 and 0 < split < len(text) and not stable:
                tokens += tokenize(text[:split].encode("utf-8"), add_bos=False, special=False)
                stable, text = len(tokens), text[split:]
            tokens += tokenize(text.encode("utf-8"), add_bos=False, special=False)
            if index == 0 and messages[0]["role"] == "system" and not stable:
                stable = len(tokens)
        stop = result.stop if isinstance(result.stop, list) else [result.stop] if result.stop else []
        return Prompt(tokens, stable, stop, result.stopping_criteria)

    def tool_tokens(self, tools: list[dict]) -> int:
        """The prompt tokens this template spends laying out ``tools`` (its own words included)."""
        probe = [{"role": "system", "content": "."}, {"role": "user", "content": "."}]
        return len(self.render(probe, tools).tokens) - len(self.render(probe).tokens)


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
