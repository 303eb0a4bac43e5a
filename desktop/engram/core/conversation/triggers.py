"""When a message asks about the person's past: trigger words, and questions about the person.

Seed 001's hybrid mode searches long-term memory only when the person says 之前, 那个, 我记得, 上次,
以前 or 说过. Engram keeps its list, adds an English one (both editable in Settings), and adds a
sign the seed lacks: a question about the person themself ("What is my dog's name?", "Where do I
live?", "我住在哪里？") needs their past as much as "remember" does, without saying so.

English words match as whole words, case aside ("before" is not found in "beforehand", "ago" not
in "Chicago"), also right next to Chinese ("我remember"); Chinese has no spaces, so its words match
anywhere, Traditional as Simplified (說過 is 说过). ``recall_mode: triggered`` searches only when a
message asks about the past; the always-on modes search every turn and search wider when it does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from engram.core.memory.search.words.tokens import HAN, simplified

# What a person says when they ask about their past. "again" ("what was my address again?") and
# "before" ("as I said before") are common in other senses too: a search too many costs some tokens,
# a search too few loses a memory.
ENGLISH = ("remember", "remind me", "recall", "last time", "before", "earlier", "previously", "ago", "again",
           "yesterday", "last week", "you said", "i said", "i told you", "i mentioned", "we talked",
           "we discussed", "forgot")
CHINESE = ("之前", "那个", "我记得", "上次", "以前", "说过",          # seed 001's list
           "记得", "上回", "那次", "当时", "提过", "聊过", "告诉过你", "忘了", "昨天", "原来")

_LETTER_OR_DIGIT = rf"[^\W{HAN}]"      # a word character that is not Chinese: where an English word goes on
# A question: a question mark, or the words a question starts with.
_QUESTION = re.compile(r"[?？]|^\W*(?:what|where|when|who|whose|which|why|how|do|does|did|is|are|was|were|am|have"
                       r"|has|had|can|could|will|would|tell me)\b", re.IGNORECASE)
# ... about the person: their things, or what they did, were, are ("how do I ..." asks how, not about them).
_ABOUT_ME = re.compile(r"\b(?:my|mine|myself)\b|\b(?:did|was|were|have|had)\s+i\b"
                       r"|\b(?:who|where|what)\s+(?:do|am)\s+i\b", re.IGNORECASE)
# Chinese: 我 and a question word after it in the same clause (我住在哪里, 我的猫叫什么, 我几点跑步).
_ABOUT_ME_ZH = re.compile(r"我[^，。！？,.!?；;]*(?:什么|哪|谁|几|多少|吗|么)")


@dataclass(frozen=True)
class Trigger:
    """Why a message asks about the past: the trigger words it says, or that it is a question about
    the person. False when neither."""

    words: tuple[str, ...] = ()
    about_person: bool = False

    def __bool__(self) -> bool:
        return bool(self.words) or self.about_person


@dataclass(frozen=True)
class TriggerWords:
    english: tuple[str, ...] = ENGLISH
    chinese: tuple[str, ...] = CHINESE

    @classmethod
    def of(cls, english, chinese) -> "TriggerWords":
        """From lists as a person writes them: spacing and case aside, blanks dropped."""
        return cls(_cleaned(english, str.lower), _cleaned(chinese, simplified))

    @cached_property
    def _english(self) -> re.Pattern | None:
        if not self.english:
            return None
        words = sorted(self.english, key=len, reverse=True)       # "i told you" before "i"
        alternatives = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
        return re.compile(rf"(?<!{_LETTER_OR_DIGIT})(?:{alternatives})(?!{_LETTER_OR_DIGIT})", re.IGNORECASE)

    def find(self, text: str) -> Trigger:
        """The trigger words in ``text`` (each once, in the order of the lists), and whether it asks
        about the person."""
        chinese_text = simplified(text)
        found = {" ".join(m.group().lower().split()) for m in self._english.finditer(text)} if self._english else set()
        words = tuple(w for w in self.english if w in found) + tuple(w for w in self.chinese if w in chinese_text)
        about = bool(_QUESTION.search(text) and _ABOUT_ME.search(text)) or bool(_ABOUT_ME_ZH.search(chinese_text))
        return Trigger(words, about)


def _cleaned(words, normal) -> tuple[str, ...]:
    kept: list[str] = []
    for word in words:
        word = normal(" ".join(str(word).split()))
        if word and word not in kept:
            kept.append(word)
    return tuple(kept)
