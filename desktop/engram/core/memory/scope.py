"""Who a record belongs to: application, agent, user, session.

Writing uses a storage scope (every field as given). Searching uses a search scope, where an
empty field means "any", except the user: a search reads one user's memories, those stored with
exactly that user (empty included), through that user's word index and vector copy. Listing
and counting read "any" user when it is empty. The filter is always part of the SQL statement,
so rows outside the scope are never read into Python; the one exception is search's in-memory
copy of a user's vectors (core/memory/search/vectors/mirror.py), loaded with the user in the SQL and filtered
by the rest of the scope in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from engram.core.errors import InvalidInput

MAX_SCOPE_CHARS = 200


@dataclass(frozen=True)
class Scope:
    application: str = ""
    agent: str = ""
    user: str = ""
    session: str = ""

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, str) or len(value) > MAX_SCOPE_CHARS:
                raise InvalidInput(f"scope {f.name} must be text of at most {MAX_SCOPE_CHARS} characters")

    def items(self) -> list[tuple[str, str]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def sql(self, alias: str = "m") -> tuple[str, list[str]]:
        """A WHERE fragment (always valid, TRUE when unrestricted) and its parameters."""
        given = [(name, value) for name, value in self.items() if value]
        clause = " AND ".join(f"{alias}.{name} = ?" for name, _ in given) or "TRUE"
        return clause, [value for _, value in given]

    def contains(self, other: "Scope") -> bool:
        """Whether a record stored with scope ``other`` falls inside this search scope."""
        return all(not mine or mine == theirs for (_, mine), (_, theirs) in zip(self.items(), other.items()))

    def narrowed(self, **changes: str) -> "Scope":
        return Scope(**{**dict(self.items()), **changes})
