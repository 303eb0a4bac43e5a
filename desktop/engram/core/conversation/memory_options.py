"""How conversation memory behaves, checked once: window, summaries, recall, scopes, distillation.

The names follow the seeds' Agent Framework options (search time, max results, context prompt,
storage and search scope). Scopes are written as the dimensions they keep, e.g. "user,session".
"""

from __future__ import annotations

from dataclasses import dataclass

from engram.core.errors import InvalidInput
from engram.core.memory.scope import Scope
from engram.core.models.catalog import CatalogEntry, load_catalog
from engram.core.conversation.sessions import Session
from engram.core.settings import Settings

RECALL_MODES = ("before_call", "on_demand", "hybrid", "triggered")
DISTILL_CHOICES = ("auto", "on", "off")
TOOLS_CHOICES = ("auto", "on", "off")
THINKING_CHOICES = ("off", "on")
SCOPE_DIMENSIONS = ("agent", "user", "session")


def scope_dimensions(text: str) -> tuple[str, ...]:
    dims = tuple(d.strip() for d in text.split(",") if d.strip())
    unknown = [d for d in dims if d not in SCOPE_DIMENSIONS]
    if unknown or "user" not in dims:
        raise InvalidInput(f"a memory scope of {text!r} is not allowed",
                           hint="list dimensions from agent, user, session; user is always included,"
                                " so memories never cross people")
    return dims


def session_scope(session: Session, dims: tuple[str, ...]) -> Scope:
    """The scope of a session narrowed to the given dimensions (the others stay empty: "any")."""
    values = {"agent": session.agent, "user": session.user, "session": session.id}
    return Scope(**{d: values[d] for d in dims})


def distill_wanted(settings: Settings) -> bool:
    """Whether to distill memories: "auto" means on for a chat model the person chose and off for
    the demo model (empty ``chat_model``), too small to write useful notes (tests/bench/demo_eval.py)."""
    if settings.distill_memories not in DISTILL_CHOICES:
        raise InvalidInput(f"distill_memories cannot be {settings.distill_memories!r}",
                           hint="use " + ", ".join(DISTILL_CHOICES))
    return settings.distill_memories == "on" or (settings.distill_memories == "auto" and bool(settings.chat_model))


def tools_wanted(settings: Settings) -> bool:
    """Whether the model gets tools (session files, search_memory): "auto" means on for a chat
    model the person chose unless the catalog says it cannot call them (a file of its own is given
    the benefit of the doubt), and off for the demo model, which never calls them (measured in
    tests/bench/demo_eval.py); their instructions would only lengthen every prompt."""
    if settings.chat_tools not in TOOLS_CHOICES:
        raise InvalidInput(f"chat_tools cannot be {settings.chat_tools!r}", hint="use " + ", ".join(TOOLS_CHOICES))
    if settings.chat_tools != "auto" or not settings.chat_model:
        return settings.chat_tools == "on"
    entry = catalog_entry(settings)
    return entry is None or entry.tools


def tool_format(settings: Settings) -> str:
    """How the chosen chat model writes a tool call (its catalog family's format); Hermes/Qwen's
    ``<tool_call>`` for a model the catalog does not know. Every format is read either way."""
    entry = catalog_entry(settings)
    return entry.tool_format if entry else "hermes"


def catalog_entry(settings: Settings) -> CatalogEntry | None:
    """The catalog's entry for the chosen chat model; None for the demo model, a file of one's own,
    or a catalog that cannot be read (Models shows that error; chatting goes on)."""
    if not settings.chat_model:
        return None
    try:
        return load_catalog(settings.model_catalog).for_file(settings.chat_model)
    except InvalidInput:
        return None


def thinking_wanted(settings: Settings) -> bool:
    """Whether a reasoning model may think before it answers in chat (never for summaries and notes)."""
    if settings.chat_thinking not in THINKING_CHOICES:
        raise InvalidInput(f"chat_thinking cannot be {settings.chat_thinking!r}",
                           hint="use " + ", ".join(THINKING_CHOICES))
    return settings.chat_thinking == "on"


@dataclass(frozen=True)
class MemoryOptions:
    system_prompt: str = Settings.system_prompt
    window_messages: int = Settings.window_messages
    summary_threshold: int = Settings.summary_threshold
    summary_keep: int = Settings.summary_keep
    recall_mode: str = Settings.recall_mode
    recall_max_results: int = Settings.recall_max_results
    recall_threshold: float = Settings.recall_threshold
    recall_prompt: str = Settings.recall_prompt
    storage_scope: tuple[str, ...] = ("user", "session")
    search_scope: tuple[str, ...] = ("user",)
    distill: bool = False                 # distill_memories resolved by distill_wanted
    tools: bool = True                    # chat_tools resolved by tools_wanted
    tool_format: str = "hermes"           # the chat model's, by tool_format: taught when its template cannot
    recency_half_life_days: float = Settings.recency_half_life_days
    thinking: bool = False                # chat_thinking resolved by thinking_wanted

    def __post_init__(self):
        if self.recall_mode not in RECALL_MODES:
            raise InvalidInput(f"unknown recall mode {self.recall_mode!r}", hint="use " + ", ".join(RECALL_MODES))
        if self.window_messages < 1 or self.recall_max_results < 1:
            raise InvalidInput("window size and max results must be at least 1")
        if not 0 <= self.summary_keep < self.summary_threshold:
            raise InvalidInput("summary_keep must be below summary_threshold")
        if self.recency_half_life_days <= 0:
            raise InvalidInput("recency_half_life_days must be more than 0")

    @classmethod
    def from_settings(cls, settings: Settings) -> "MemoryOptions":
        return cls(settings.system_prompt, settings.window_messages, settings.summary_threshold,
                   settings.summary_keep, settings.recall_mode, settings.recall_max_results,
                   float(settings.recall_threshold), settings.recall_prompt,
                   scope_dimensions(settings.storage_scope), scope_dimensions(settings.search_scope),
                   distill_wanted(settings), tools_wanted(settings), tool_format(settings),
                   recency_half_life_days=float(settings.recency_half_life_days),
                   thinking=thinking_wanted(settings))
