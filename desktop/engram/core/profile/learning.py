"""How the profile learns: from the person's own words by rules, from the chat model's notes and
tool calls, as the person chose (``profile_learning``): ``auto`` notes a line at once (the reply
shows "Noted", with Undo), ``ask`` puts it in the review list, ``off`` learns nothing.

Only the person's messages are read, never the assistant's. A request about how to answer
("Please keep answers short", 以后请用中文回答我) becomes a line that sets the matching reply
preference, as seed 002's LearnFromInteraction does.
"""

from __future__ import annotations

from dataclasses import replace

from engram.core.conversation.prompts import ZH, turn_language
from engram.core.conversation.sessions import Message, Session
from engram.core.errors import InvalidInput
from engram.core.profile.document import CATEGORIES, ProfileLine
from engram.core.profile.learner import PreferenceChange, learn
from engram.core.profile.profiles import ProfileChange, Profiles

LEARNING_MODES = ("auto", "ask", "off")
_PREFERENCE_WORDS = {
    "en": {("detail", "brief"): "Keep answers short.", ("detail", "detailed"): "Give detailed answers.",
           ("detail", "normal"): "Give answers of normal length.", ("emoji", True): "Use emoji.",
           ("emoji", False): "No emoji.", "language": "Reply in {}.", "tone": "Tone of replies: {}."},
    "zh": {("detail", "brief"): "回答要简短。", ("detail", "detailed"): "回答要详细。", ("detail", "normal"): "回答长度适中。",
           ("emoji", True): "可以用表情符号。", ("emoji", False): "不要用表情符号。", "language": "用{}回答。",
           "tone": "回答的语气：{}。"},
}


class ProfileLearning:
    def __init__(self, profiles: Profiles, mode: str = "auto"):
        if mode not in LEARNING_MODES:
            raise InvalidInput(f"profile_learning must be one of {', '.join(LEARNING_MODES)}, not {mode!r}")
        self.profiles = profiles
        self.mode = mode

    def from_message(self, session: Session, message: Message, *, by: str = "rules") -> list[ProfileChange]:
        """What the person's message says about them, by rules, into the profile."""
        if self.mode == "off" or message.role != "user":
            return []
        learned, preferences = learn(message.content)
        origin = ProfileLine("", by=by, source=session.title, session=session.id, message=message.id,
                             added=message.created_at[:10])
        lines = [replace(origin, text=item.text, category=item.category, slot=item.slot, importance=item.importance)
                 for item in learned]
        language = "zh" if turn_language("", message.content) == ZH else "en"
        lines += [preference_line(change, language, origin) for change in preferences]
        return [change for line in lines if (change := self.take(session.user, line)) is not None]

    def from_model(self, user: str, session: Session | None, text: str, category: str = "other",
                   replaces: int = 0, *, importance: int = 3, message_id: int = 0, by: str = "tool") -> ProfileChange | None:
        """A line the chat model wrote (its ``profile_note`` tool, or distillation), correcting line
        ``replaces`` when it names one."""
        if category not in CATEGORIES:
            raise InvalidInput(f"unknown profile category {category!r}", hint="use one of " + ", ".join(CATEGORIES))
        line = ProfileLine(text, category, importance=importance, by=by, source=session.title if session else "",
                           session=session.id if session else "", message=message_id)
        return self.take(user, line, replaces)

    def take(self, user: str, line: ProfileLine, replaces: int = 0) -> ProfileChange | None:
        """The line noted or proposed, as the person chose; None when learning is off or the
        profile already says it."""
        if self.mode == "off":
            return None
        if self.mode == "ask":
            return self.profiles.propose(user, line, replaces)
        return self.profiles.note(user, line, replaces)


def preference_line(change: PreferenceChange, language: str, origin: ProfileLine) -> ProfileLine:
    """A request about how to answer, as a line of the profile that sets the preference."""
    words: dict = _PREFERENCE_WORDS[language]
    text = words.get((change.key, change.value)) or str(words.get(change.key, "{}")).format(change.value)
    return replace(origin, text=text, category="style", slot=f"preference:{change.key}", importance=3,
                   preference={change.key: change.value})
