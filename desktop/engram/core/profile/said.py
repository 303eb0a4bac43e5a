"""A fact a rule read in a clause, before it becomes a profile line: whose it is decides the line."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Said:
    """What a clause says about its subject. ``predicate`` is written for a subject in the third
    person ("allergic to peanuts", "has asthma", "对花生过敏"); ``copula`` says an English subject
    needs "is" before it; ``line`` is the person's own line where it is not just the predicate
    ("Name: Wei."). ``key`` is empty for slots a person has one of (home, diet, name)."""

    category: str
    family: str
    key: str
    predicate: str
    importance: int
    copula: bool = False
    line: str = ""

    @property
    def slot(self) -> str:
        return f"{self.family}:{self.key}" if self.key else self.family
