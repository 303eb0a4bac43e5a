"""What the learner hands on: profile lines, and changes to how the person likes replies."""

from __future__ import annotations

from dataclasses import dataclass

CATEGORIES = ("health", "identity", "people", "diet", "limits", "style", "commitments")


@dataclass(frozen=True)
class Learned:
    """One thing the person said about themself, as a profile line."""

    category: str   # one of CATEGORIES
    text: str       # the line as it goes into the profile, short and standalone, in the person's language
    slot: str       # what it replaces: a newer line with the same slot supersedes the older one
    importance: int  # 1..5: what goes first when the profile is over its budget
    evidence: str   # the span of the message it came from


@dataclass(frozen=True)
class PreferenceChange:
    """A change to one of engram.core.conversation.preferences.KEYS, asked for in so many words."""

    key: str
    value: str | bool
    evidence: str
