"""Context providers: the parts a turn's context is built from, and the token budget they share.

Each provider looks at the turn and contributes sections (messages for the model plus data for the
turn record) and tools. Sections have a slot that fixes their place in the final message list:

    system (stable: prompt, preferences, file index, tools) -> profile -> summary -> window -> recalled -> user

The stable part comes first and changes rarely, so llama.cpp can reuse its cache for that prefix;
the profile follows it (a changed profile leaves the prefix as it was); recalled memories change
every turn, so they come last, just before the person's words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from engram.core.conversation.prompts import EN
from engram.core.memory.scope import Scope
from engram.core.conversation.sessions import Session
from engram.core.conversation.tools import Tool

STABLE, PROFILE, SUMMARY, WINDOW, RECALLED = "stable", "profile", "summary", "window", "recalled"
SLOTS = (STABLE, PROFILE, SUMMARY, WINDOW, RECALLED)
MESSAGE_OVERHEAD_TOKENS = 4   # role markers and separators a chat format adds around each message


@dataclass
class Section:
    """One provider's contribution. ``messages`` are OpenAI-style dicts; ``data`` goes to the
    turn record (e.g. recalled memory ids and scores); ``tokens`` is filled in by the budget."""

    name: str
    messages: list[dict]
    tokens: int = 0
    data: dict = field(default_factory=dict)
    slot: str = STABLE


@dataclass
class TurnContext:
    """What providers may know about the turn being built."""

    session: Session
    text: str                            # the person's words, exactly as sent
    message_id: int                      # the stored user message
    storage_scope: Scope
    search_scope: Scope
    count_tokens: Callable[[str], int]
    language: str = EN                   # of the default prompts (engram.core.conversation.prompts.turn_language)
    can_call_tools: bool = True          # False: the model gets no tools and no instructions for them
    memory: bool = True                  # False: the chat's memory is off (nothing recalled, no profile)
    in_context_messages: set[int] = field(default_factory=set)   # message ids already in the window
    in_context_memories: set[int] = field(default_factory=set)   # memory ids already in the context
    recalled: list[dict] = field(default_factory=list)           # memories found by tools, for the record
    recall: dict = field(default_factory=dict)                   # why recall searched before the reply, or not
    timings: dict[str, float] = field(default_factory=dict)       # e.g. embed_ms, search_ms, summed up

    def spent(self, **milliseconds: float) -> None:
        for name, ms in milliseconds.items():
            self.timings[name] = round(self.timings.get(name, 0.0) + ms, 2)


class ContextProvider(Protocol):
    def sections(self, turn: TurnContext) -> list[Section]: ...

    def tools(self, turn: TurnContext) -> list[Tool]: ...


def count_section(section: Section, count_tokens: Callable[[str], int]) -> Section:
    """Its tokens: as ``data["tokens"]`` says when what the model sees is laid out elsewhere (the
    chat template's tools), else its messages'."""
    counted = section.data.get("tokens")
    section.tokens = counted if counted is not None else \
        sum(count_tokens(m.get("content", "")) + MESSAGE_OVERHEAD_TOKENS for m in section.messages)
    return section


def fit(sections: list[Section], budget: int, count_tokens: Callable[[str], int]) -> list[str]:
    """Make the sections fit ``budget`` tokens, in place. The oldest window messages go first
    (they are archived, so recall can still bring them back), then the least relevant recalled
    memories (assumed best first). Stable parts, the profile (within its own budget, and what it
    adds beside the person's words: ``data["kept"]``) and the summary are kept. Returns what was cut."""
    cut: list[str] = []
    for section in sections:
        count_section(section, count_tokens)

    def total() -> int:
        return sum(s.tokens for s in sections)

    for slot in (WINDOW, RECALLED):
        for section in (s for s in sections if s.slot == slot and not s.data.get("kept")):
            while total() > budget and section.messages:
                dropped = section.messages.pop(0 if slot == WINDOW else -1)
                section.tokens -= count_tokens(dropped.get("content", "")) + MESSAGE_OVERHEAD_TOKENS
                cut.append(f"{section.name}: {dropped.get('role', '')} message")
                if slot == RECALLED and section.data.get("memories"):
                    section.data["memories"].pop()
    return cut
