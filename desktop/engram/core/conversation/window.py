"""The working window: the session's last N user and assistant messages.

The system message is kept apart (it is the stable section) and not counted; tool calls and their
results never enter the window. Messages that leave the window are not lost: every message is
archived into long-term memory by the outbox, so recall can bring it back. Once a summary exists,
the window holds only messages after it (summaries keep that list short).
"""

from __future__ import annotations

from engram.core.conversation.context import WINDOW, Section, TurnContext
from engram.core.conversation.sessions import Sessions


class WindowProvider:
    def __init__(self, sessions: Sessions, size: int, summarised_through):
        self.sessions = sessions
        self.size = size
        self.summarised_through = summarised_through   # session id -> last message id in the summary

    def sections(self, turn: TurnContext) -> list[Section]:
        earlier = self.sessions.messages(turn.session.id, roles=("user", "assistant"),
                                         after_id=self.summarised_through(turn.session.id),
                                         before_id=turn.message_id)
        messages = earlier[self.start(len(earlier)):]
        turn.in_context_messages.update(m.id for m in messages)
        return [Section("window", [{"role": m.role, "content": m.content} for m in messages],
                        data={"message_ids": [m.id for m in messages]}, slot=WINDOW)]

    def start(self, count: int) -> int:
        """Where the window starts among ``count`` messages. The start moves in steps of half the
        window, not one message per turn, so the prompt's beginning stays the same for several
        turns and llama.cpp reuses its cache for it. The window never exceeds ``size``."""
        if count <= self.size:
            return 0
        step = max(1, self.size // 2)
        return -(-(count - self.size) // step) * step

    def tools(self, turn: TurnContext) -> list:
        return []
