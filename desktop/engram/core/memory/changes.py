"""What changed in a person's memories since a mark: how an open list follows them cheaply.

Every add, edit and delete of a memory writes a line to ``memory_history`` in the same
transaction, whichever process made it (a turn's archive, a distilled note, a file indexed, an
import, another Engram on the same database), and a delete leaves a line of its own after the
memory's earlier lines are erased. The newest line's id is therefore a watermark: a list that
read the memories at mark M asks only for the memories named by lines after M, instead of
reading the whole list again. Asking when nothing changed costs one lookup of the largest id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engram.core.memory.records import Memory
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore


@dataclass(frozen=True)
class Changes:
    """Since the last mark: the memories added or edited that the list's filter keeps (as they
    are now) and the ids to take out of it (forgotten, or no longer kept by the filter)."""

    mark: int
    shown: list[Memory] = field(default_factory=list)
    gone: set[int] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.shown or self.gone)


def mark(store: MemoryStore) -> int:
    """The watermark of now: the id of the newest history line (0 before any)."""
    (newest,) = store.db.query_one("SELECT coalesce(max(id), 0) FROM memory_history") or (0,)
    return newest


def since(store: MemoryStore, scope: Scope, after: int, *, kinds: Sequence[str] = (),
          contains: str = "") -> Changes:
    """The changes to the scope's memories after mark ``after``, seen through the same filter
    as ``MemoryStore.list`` (kinds, words), with the mark to ask from next time."""
    newest = mark(store)
    if newest <= after:
        return Changes(after)
    rows = store.db.query("SELECT DISTINCT memory_id FROM memory_history WHERE id > ? AND id <= ?"
                          + (" AND user = ?" if scope.user else ""),
                          (after, newest, *([scope.user] if scope.user else [])))
    changed = [memory_id for (memory_id,) in rows]
    shown = store.list(scope, kinds=kinds, contains=contains, limit=None, ids=changed) if changed else []
    return Changes(newest, shown, set(changed) - {memory.id for memory in shown})
