"""Issue 18's knowledge-update case, told to Engram through its real turn, archive and
distillation: a person moves house twice across three chats, then asks where they live. The
chat model's part is scripted (each chat's note, and "UPDATE 1": the new address replaces the
stored one), so the fake and the real embedding model meet the same story."""

from __future__ import annotations

import json

from engram.core.conversation.distill import CONSOLIDATE, EXTRACT

HOMES = ("Elm Road", "Oak Street", "Harbour Lane")
SAID = ("I live at 5 Elm Road in Leeds, a small flat near the park",
        "We moved last week, I live at 12 Oak Street in Bristol now",
        "Moved again! I live at 3 Harbour Lane in Cardiff now, by the sea")
NOTES = ("Lives at 5 Elm Road, Leeds.", "Lives at 12 Oak Street, Bristol.", "Lives at 3 Harbour Lane, Cardiff.")
QUESTION = "Where do I live?"


class Mover:
    """The chat model's part: "Noted." in a chat; the current chat's note to an extraction; to a
    consolidation, UPDATE of the one stored note shown (the older address)."""

    def __init__(self):
        self.extractions = 0

    def __call__(self, messages: list[dict]) -> str:
        system = messages[0]["content"]
        if system.startswith(EXTRACT):          # with the profile's field too
            self.extractions += 1
            text = NOTES[self.extractions - 1]
            return json.dumps({"memories": [{"kind": "fact", "text": text, "from": [1], "importance": 4,
                                             "profile": "none"}]})
        if system == CONSOLIDATE:
            return json.dumps({"action": "UPDATE 1"})
        return "Noted."


def tell_three_moves(engram, user: str = "u") -> None:
    """Three chats, each with one move and two more lines (a chat is distilled every third line)."""
    for number, said in enumerate(SAID, start=1):
        engram.sessions.get_or_create(f"chat-{number}", user)
        for text in (said, "Thanks", "Bye for now"):
            engram.turn_engine.send(f"chat-{number}", text)
        engram.outbox.run_due()


def ask(engram, user: str = "u") -> list[dict]:
    """The question in a fourth chat; what the turn recalled."""
    engram.sessions.get_or_create("chat-4", user)
    return engram.turn_engine.send("chat-4", QUESTION).record.recalled


def home_of(text: str) -> str | None:
    return next((home for home in HOMES if home in text), None)
