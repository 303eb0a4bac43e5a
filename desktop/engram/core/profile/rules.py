"""A rule reads one fact from a clause or predicate that it matches whole. Each language keeps its
rules in ordered tables, and the first rule that reads something wins: a narrow rule stands before
a broad one ("work as a nurse" before "work in ...")."""

from __future__ import annotations

import re
from collections.abc import Callable

from engram.core.profile.said import Said

Reader = Callable[[re.Match], "Said | list[Said] | None"]
Rule = tuple[re.Pattern, Reader]


def english_rule(pattern: str, reader: Reader) -> Rule:
    """An English rule: any case, and the clause may end in spaces."""
    return re.compile(pattern + r"\s*$", re.IGNORECASE), reader


def chinese_rule(pattern: str, reader: Reader) -> Rule:
    """A Chinese rule: the clause may end in particles (了, 呢, 啊)."""
    return re.compile(pattern + r"[了啦呢的啊哦]*$"), reader


def read(text: str, rules: list[Rule]) -> list[Said]:
    """What ``text`` says, by the first rule that reads it."""
    for pattern, reader in rules:
        m = pattern.match(text)
        if m:
            found = reader(m)
            if found:
                return found if isinstance(found, list) else [found]
    return []
