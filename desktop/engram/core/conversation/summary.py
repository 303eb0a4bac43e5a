"""Session summaries: once a session has more than ``threshold`` unsummarised messages, the
chat model folds the older ones (all but the newest ``keep``) and the previous summary into one
new ``summary`` memory. The window then carries the summary instead of those messages, which stay
in the database and in long-term memory.
"""

from __future__ import annotations

from engram.core.models.chat_model import ChatModel
from engram.core.conversation.context import SUMMARY, Section, TurnContext
from engram.core.errors import ModelError, NotFound
from engram.core.memory.records import Actor, Kind, Memory
from engram.core.memory.scope import Scope
from engram.core.conversation.sessions import Message, Sessions
from engram.core.memory.store import MemoryStore

INSTRUCTIONS = ("Summarise the conversation below for your own later use. Keep facts about the person,"
                " their preferences, decisions, open tasks and names. Write a few short sentences.")
SUMMARY_MAX_TOKENS = 256
SUMMARY_JOB = "summarise_session"


def latest_summary(store: MemoryStore, session_id: str) -> Memory | None:
    found = store.list(Scope(session=session_id), kinds=[Kind.SUMMARY], limit=1)
    return found[0] if found else None


def summarised_through(store: MemoryStore, session_id: str) -> int:
    """The id of the last message the session's summary covers (0: none)."""
    summary = latest_summary(store, session_id)
    return int(summary.source.get("through_message_id", 0)) if summary else 0


def needs_summary(sessions: Sessions, store: MemoryStore, session_id: str, threshold: int) -> bool:
    return sessions.count_messages(session_id, summarised_through(store, session_id)) > threshold


class SummaryProvider:
    def __init__(self, store: MemoryStore):
        self.store = store

    def sections(self, turn: TurnContext) -> list[Section]:
        summary = latest_summary(self.store, turn.session.id)
        if summary is None:
            return []
        turn.in_context_memories.add(summary.id)
        return [Section("summary", [{"role": "system", "content": f"Summary of the earlier conversation:\n{summary.text}"}],
                        data={"memory_id": summary.id, "through_message_id": summary.source.get("through_message_id")},
                        slot=SUMMARY)]

    def tools(self, turn: TurnContext) -> list:
        return []


class Summariser:
    """The outbox job that writes a session's summary with the chat model."""

    def __init__(self, sessions: Sessions, store: MemoryStore, chat_model, threshold: int, keep: int):
        self.sessions = sessions
        self.store = store
        self.chat_model = chat_model     # a callable returning the ChatModel (loaded on first use)
        self.threshold = threshold
        self.keep = keep

    def __call__(self, payload: dict) -> None:
        try:
            session = self.sessions.get(payload["session_id"])
        except NotFound:
            return                       # deleted since: nothing to summarise
        previous = latest_summary(self.store, session.id)
        through = int(previous.source.get("through_message_id", 0)) if previous else 0
        pending = self.sessions.messages(session.id, roles=("user", "assistant"), after_id=through)
        if len(pending) <= self.threshold:
            return
        covered = pending[:len(pending) - self.keep]
        model: ChatModel = self.chat_model()
        generation = model.generate([{"role": "system", "content": INSTRUCTIONS},
                                     {"role": "user", "content": self._material(model, previous, covered)}],
                                    max_tokens=SUMMARY_MAX_TOKENS)
        text = generation.text.strip()
        if not text:
            raise ModelError(f"the chat model wrote an empty summary for session {session.id!r}")
        self.store.add(text, Scope(agent=session.agent, user=session.user, session=session.id), Kind.SUMMARY,
                       actor=Actor.MODEL, embed=False, source_ids=tuple(m.id for m in covered),
                       source={"session": session.id, "through_message_id": covered[-1].id,
                               "messages": len(covered), "previous_summary": previous.id if previous else None})
        if previous is not None:
            self.store.delete(previous.id, actor=Actor.SYSTEM)
        self.store.embed_pending()

    @staticmethod
    def _material(model: ChatModel, previous: Memory | None, covered: list[Message]) -> str:
        """The earlier summary and the messages, each shortened so that all of them fit the model."""
        room_tokens = max(256, model.context_tokens - SUMMARY_MAX_TOKENS - 256)
        per_message_chars = max(80, room_tokens * 3 // (len(covered) + 2))
        lines = [f"Earlier summary: {previous.text[:per_message_chars * 2]}"] if previous else []
        lines += [f"{m.role}: {m.content[:per_message_chars]}" for m in covered]
        return "\n".join(lines)
