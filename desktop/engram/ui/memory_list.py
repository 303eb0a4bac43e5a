"""The Memories tab's list, which follows the memories as they change, wherever the change came from.

It is filled once for a filter (``fill``, with the mark of core/memory/changes.py read with it),
then asks twice a second, on the disk thread, what changed since that mark, and applies only
those rows: a memory added goes in its place (pinned first, then newest), an edited one is
redrawn where it stands, a forgotten one goes. The selection and what the person scrolled to
stay. A change made by another process is seen the same way: the history line is in the
database, whoever wrote it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem

from engram.core.memory import changes, sensitive
from engram.core.memory.scope import Scope
from engram.ui.kinds import kind_name

POLL_MS = 500
LIST_LIMIT = 500
SENSITIVE_MARK = "⚠ "
PIN_MARK = "★ "



def order_key(memory) -> tuple:
    """Where a memory stands: pinned ones first, then the newest (as MemoryStore.list orders them)."""
    return memory.pinned, memory.created_at, memory.id


def sensitive_marks(memories) -> dict[int, list[str]]:
    """Memory id -> the kinds of sensitive details it holds (read off the GUI thread)."""
    return {m.id: sensitive.kinds(m.text) for m in memories}


class MemoryList(QTreeWidget):
    """The rows of the Memories tab. ``filters()`` gives (scope, kinds, words) of what is shown,
    or None while nothing can be (no chat open with "This chat" chosen)."""

    followed = Signal()         # rows were added, redrawn or taken out by changes
    current_changed = Signal(object)   # the selected memory changed elsewhere: as it is now, or None if gone

    def __init__(self, parent=None):
        super().__init__(parent)
        translate = QCoreApplication.translate      # the Memories tab's texts
        self.setHeaderLabels([translate("MemoriesTab", "Memory"), translate("MemoriesTab", "Kind"),
                              translate("MemoriesTab", "Imp.")])
        self.headerItem().setToolTip(2, translate("MemoriesTab", "Importance"))
        self.setRootIsDecorated(False)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.header().setSectionResizeMode(0, QHeaderView.Stretch)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeToContents)
        self.header().setSectionResizeMode(2, QHeaderView.ResizeToContents)
        self.header().setStretchLastSection(False)
        self.backend = None
        self.filters: Callable[[], tuple[Scope, tuple, str] | None] = lambda: None
        self.mark: int | None = None     # the history mark the rows are as of; None: not filled yet
        self._items: dict[int, QTreeWidgetItem] = {}     # memory id -> its row
        self._keys: list[tuple] = []     # the rows' order_keys, ascending (the rows stand descending)
        self._generation = 0             # a fill makes the answers to earlier asks stale
        self._asking = False
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self.poll)

    def follow(self, backend, filters: Callable[[], tuple[Scope, tuple, str] | None]) -> None:
        self.backend, self.filters = backend, filters
        self._poll.start()

    # -- filling -------------------------------------------------------------------------------

    def load(self, done: Callable[[int], None]) -> None:
        """Read the list for the filters on the disk thread, then fill it; ``done(count)`` after."""
        if self.backend is None or not self.backend.ready:
            return
        self._generation += 1
        generation, wanted = self._generation, self.filters()
        if wanted is None:
            self.fill([], {}, None)
            done(0)
            return
        scope, kinds, words = wanted

        def read(engram):
            mark = changes.mark(engram.store)       # first: what changes meanwhile is asked for again
            memories = engram.store.list(scope, kinds=kinds, contains=words, limit=LIST_LIMIT, pinned_first=True)
            return mark, memories, sensitive_marks(memories)

        def filled(loaded):
            if generation == self._generation:
                mark, memories, marks = loaded
                self.fill(memories, marks, mark)
                done(len(memories))

        self.backend.disk(read, returned=filled)

    def fill(self, memories: list, marks: dict[int, list[str]], mark: int | None) -> None:
        """All rows anew (a new filter); the selected memory stays selected if it is among them."""
        keep = self.selected_id()
        self.mark = mark
        self.blockSignals(True)               # refilling is not a new selection
        self.clear()
        self._items = {}
        for memory in memories:
            self.addTopLevelItem(self._row(memory, marks.get(memory.id)))
        self._keys = sorted(order_key(memory) for memory in memories)
        if keep is not None and (item := self.item_of(keep)) is not None:
            self.setCurrentItem(item)
        self.blockSignals(False)

    def show_only(self, memories: list, marks: dict[int, list[str]]) -> None:
        """Rows that no filter makes (e.g. a search by meaning), in the order given; they are not
        followed until the list is loaded again."""
        self._generation += 1
        self.fill(memories, marks, None)

    # -- following -----------------------------------------------------------------------------

    def poll(self) -> None:
        """Ask the disk thread what changed since the mark (one ask at a time)."""
        if self._asking or self.mark is None or self.backend is None or not self.backend.ready:
            return
        wanted = self.filters()
        if wanted is None:
            return
        scope, kinds, words = wanted
        generation, after = self._generation, self.mark

        def ask(engram):
            found = changes.since(engram.store, scope, after, kinds=kinds, contains=words)
            return found, sensitive_marks(found.shown)

        def answered(result):
            self._asking = False
            if generation == self._generation:
                self.apply(*result)

        self._asking = True
        worker = self.backend.disk(ask, returned=answered, errored=lambda _: setattr(self, "_asking", False))
        if worker is None:
            self._asking = False

    def apply(self, found: changes.Changes, marks: dict[int, list[str]]) -> None:
        """Only the rows that changed; the selection and the rows in view stay where they are."""
        self.mark = found.mark
        if not found:
            return
        if len(found.shown) >= LIST_LIMIT:        # a whole list's worth (an import): read it anew
            self.load(lambda _: self.followed.emit())
            return
        selected = self.selected_id()
        anchor = self.itemAt(0, 0) if self.verticalScrollBar().value() > 0 else None
        self.blockSignals(True)
        for memory_id in found.gone | {memory.id for memory in found.shown}:
            self._take(memory_id)
        for memory in found.shown:
            index = len(self._keys) - bisect.bisect_left(self._keys, order_key(memory))
            bisect.insort(self._keys, order_key(memory))
            self.insertTopLevelItem(index, self._row(memory, marks.get(memory.id)))
        while self.topLevelItemCount() > LIST_LIMIT:
            self._take(self.memory_of(self.topLevelItem(self.topLevelItemCount() - 1)).id)
        if selected is not None and (item := self.item_of(selected)) is not None:
            self.setCurrentItem(item)
        self.blockSignals(False)
        if anchor is not None and self.indexOfTopLevelItem(anchor) >= 0:
            self.scrollToItem(anchor, QAbstractItemView.PositionAtTop)
        if selected is not None and (selected in found.gone or selected in {m.id for m in found.shown}):
            self.current_changed.emit(self.memory_of(self.item_of(selected)))
        self.followed.emit()

    def _take(self, memory_id: int) -> None:
        """Take a memory's row out (if shown), with its key."""
        if (item := self._items.pop(memory_id, None)) is None:
            return
        position = bisect.bisect_left(self._keys, order_key(self.memory_of(item)))
        self._keys.pop(position)
        self.takeTopLevelItem(len(self._keys) - position)

    # -- rows ----------------------------------------------------------------------------------

    def _row(self, memory, held: list[str] | None) -> QTreeWidgetItem:
        text = " ".join(memory.text.split())
        item = QTreeWidgetItem([(SENSITIVE_MARK if held else "") + (PIN_MARK if memory.pinned else "") + text[:200],
                                kind_name(memory.kind), f"{memory.importance:.2f}"])
        item.setToolTip(0, (QCoreApplication.translate("MemoriesTab", "Holds sensitive details: {kinds}").format(
            kinds=", ".join(sensitive.LABELS[k] for k in held)) + "\n\n" if held else "") + memory.text[:1000])
        item.setData(0, Qt.UserRole, memory)
        self._items[memory.id] = item
        return item

    @staticmethod
    def memory_of(item: QTreeWidgetItem | None):
        return item.data(0, Qt.UserRole) if item is not None else None

    def item_of(self, memory_id: int) -> QTreeWidgetItem | None:
        return self._items.get(memory_id)

    def selected_id(self) -> int | None:
        memory = self.memory_of(self.currentItem())
        return memory.id if memory is not None else None

    def memories(self) -> list:
        return [self.memory_of(self.topLevelItem(index)) for index in range(self.topLevelItemCount())]
