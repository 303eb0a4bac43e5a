"""The Memories tab: every long-term memory of the person, to filter, read, correct and forget.

Edits go through MemoryStore.update (which re-embeds a changed text), deletes through
core/forget.py (which forgets for real, with what was made from the memory); "Forget
everywhere…" removes a memory's words (or the part selected) from every place they are stored.
Each memory says where it came from and can jump to the message it was taken from; one holding
sensitive details (core/memory/sensitive.py) is marked.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPlainTextEdit,
                               QPushButton, QSlider, QSplitter, QVBoxLayout, QWidget)

from engram.core.forget import find, forget_everywhere, forget_memory, persons_files
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.ui.chat_names import ChatNames
from engram.ui.forget_dialog import forget_box
from engram.ui.kinds import kind_name
from engram.ui.memory_list import LIST_LIMIT, MemoryList, sensitive_marks

RELATED = 20            # memories "Find related memories" lists

ROLE_MESSAGES = {"user": QT_TRANSLATE_NOOP("MemoriesTab", "user message"),
                 "assistant": QT_TRANSLATE_NOOP("MemoriesTab", "assistant message")}


def source_text(memory, chat_name: Callable[[str], str]) -> str:
    """Where a memory came from, in words: the chat by its name (ui/chat_names.py), who said it..."""
    translate = QCoreApplication.translate
    source = memory.source if isinstance(memory.source, dict) else {}
    parts = []
    if memory.scope.session:
        parts.append(translate("MemoriesTab", "chat {name}").format(name=chat_name(memory.scope.session)))
    if (role := source.get("role")) in ROLE_MESSAGES:
        parts.append(translate("MemoriesTab", ROLE_MESSAGES[role]))
    elif role:
        parts.append(translate("MemoriesTab", "{role} message").format(role=role))
    if memory.source_ids:
        said = translate("MemoriesTab", "message {numbers}").format(
            numbers=", ".join(f"#{i}" for i in memory.source_ids))
        if source.get("made_by") == "distillation":
            model = source.get("model") or translate("MemoriesTab", "the chat model")
            said = translate("MemoriesTab", "noted by {model} from {messages}").format(model=model, messages=said)
        parts.append(said)
    if path := source.get("path"):
        parts.append(translate("MemoriesTab", "file {path}").format(path=path))
    if client := source.get("client"):                 # added by another program (engram/integrations/)
        parts.append(translate("MemoriesTab", "added by {client} through MCP").format(client=client))
    return " · ".join(parts) or translate("MemoriesTab", "added without a source")


class MemoriesTab(QWidget):
    jump_requested = Signal(str, int)   # session id, message id
    changed = Signal()
    forgotten = Signal()                # a text was forgotten everywhere: chats and titles changed too

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.session_id: str | None = None
        self.chat_names = ChatNames()        # how "where it came from" names a chat (the window's, once shown)
        self.current = None
        self.note = ""                       # said under the memory once the list is loaded again
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        filters = QHBoxLayout()
        self.kind = QComboBox()
        self.kind.addItem(self.tr("All kinds"), "")
        for kind in Kind:
            self.kind.addItem(kind_name(kind), kind.value)
        self.where = QComboBox()
        self.where.addItems([self.tr("All chats"), self.tr("This chat")])
        filters.addWidget(self.kind)
        filters.addWidget(self.where)
        layout.addLayout(filters)
        self.text = QLineEdit()
        self.text.setPlaceholderText(self.tr("Filter memories by text"))
        self.text.setClearButtonEnabled(True)
        layout.addWidget(self.text)
        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(self.refresh)
        self.text.textChanged.connect(lambda _: self._debounce.start())
        self.kind.currentIndexChanged.connect(lambda _: self.refresh())
        self.where.currentIndexChanged.connect(lambda _: self.refresh())

        split = QSplitter(Qt.Vertical)
        self.list = MemoryList()
        self.list.currentItemChanged.connect(lambda item, _: self._show(self.list.memory_of(item)))
        self.list.current_changed.connect(self._changed_elsewhere)
        self.list.followed.connect(self._count)
        self.list.follow(backend, self._filters)
        split.addWidget(self.list)
        self.count = QLabel()
        self.count.setObjectName("Muted")
        layout.addWidget(self.count)

        detail = QWidget()
        form = QVBoxLayout(detail)
        form.setContentsMargins(0, 6, 0, 0)
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText(self.tr("Select a memory to read or correct it"))
        form.addWidget(self.editor, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Importance")))
        self.importance = QSlider(Qt.Horizontal)
        self.importance.setRange(0, 100)
        self.importance_value = QLabel("0.50")
        self.importance.valueChanged.connect(lambda v: self.importance_value.setText(f"{v / 100:.2f}"))
        row.addWidget(self.importance, 1)
        row.addWidget(self.importance_value)
        self.pinned = QCheckBox(self.tr("Pinned"))
        self.pinned.setToolTip(self.tr("Pinned memories are kept and preferred in recall"))
        row.addWidget(self.pinned)
        form.addLayout(row)
        self.source = QLabel()
        self.source.setObjectName("Muted")
        self.source.setWordWrap(True)
        form.addWidget(self.source)
        buttons = QHBoxLayout()
        self.jump = QPushButton(self.tr("Go to source"))
        self.jump.clicked.connect(self._jump)
        self.delete = QPushButton(self.tr("Delete…"))
        self.delete.setObjectName("Danger")
        self.delete.clicked.connect(self._delete)
        self.forget_everywhere = QPushButton(self.tr("Forget everywhere…"))
        self.forget_everywhere.setToolTip(self.tr("Remove these words (or the part selected) from every chat,"
                                                  " memory, record and file that holds them"))
        self.forget_everywhere.clicked.connect(self._forget_everywhere)
        self.save = QPushButton(self.tr("Save"))
        self.save.setObjectName("Primary")
        self.save.clicked.connect(self._save)
        buttons.addWidget(self.jump)
        buttons.addStretch(1)
        buttons.addWidget(self.forget_everywhere)
        buttons.addWidget(self.delete)
        buttons.addWidget(self.save)
        form.addLayout(buttons)
        self.message = QLabel()
        self.message.setWordWrap(True)
        form.addWidget(self.message)
        split.addWidget(detail)
        split.setSizes([360, 240])
        layout.addWidget(split, 1)
        self._show(None)

    # -- loading -------------------------------------------------------------------------------

    def set_session(self, session_id: str | None) -> None:
        self.session_id = session_id
        if self.where.currentIndex() == 1:
            self.refresh()

    def _filters(self) -> tuple[Scope, tuple, str] | None:
        """What the list shows: (scope, kinds, words); None: "This chat" with no chat open."""
        if not self.backend.ready:
            return None
        session = self.session_id if self.where.currentIndex() == 1 else ""
        if self.where.currentIndex() == 1 and not session:
            return None
        kind = self.kind.currentData()
        return Scope(user=self.backend.engram.user, session=session or ""), (kind,) if kind else (), \
            self.text.text().strip()

    def refresh(self) -> None:
        """Read the whole list again (a new filter); changes after that arrive on their own."""
        self.list.load(lambda _: self._loaded())

    def _loaded(self) -> None:
        self._count()
        memory = self.list.memory_of(self.list.currentItem())
        if memory is not None:                  # the same memory: keep what is being typed
            self.current = memory
        else:
            self._show(None)

    def _count(self) -> None:
        shown = self.list.topLevelItemCount()
        self.count.setText(self.tr("The newest {limit} are shown: filter by words or kind to find others")
                           .format(limit=LIST_LIMIT) if shown >= LIST_LIMIT
                           else self.tr("%n memories", "", shown))

    def _changed_elsewhere(self, memory) -> None:
        """The selected memory changed (or went) while it was open: show it as it is now, unless
        the person is editing it (their words stay; Save tells them if it is gone). What the
        message line says stays, unless the memory went without the person asking here."""
        typed = self.current is not None and self.editor.toPlainText() != self.current.text
        gone_elsewhere = memory is None and self.current is not None
        if memory is None:
            self.list.blockSignals(True)
            self.list.setCurrentItem(None)
            self.list.blockSignals(False)
        if typed and memory is not None:
            self.current = memory
            return
        if typed:                          # their words stay in the editor, to copy
            self.current = None
            for widget in (self.save, self.delete, self.forget_everywhere, self.jump):
                widget.setEnabled(False)
            self.message.setText(self.tr("This memory was forgotten meanwhile: what you typed is not saved."))
            return
        self.note = self.tr("This memory was forgotten.") if gone_elsewhere else self.message.text()
        self._show(memory)

    def _show(self, memory) -> None:
        self.current = memory
        enabled = memory is not None
        for widget in (self.editor, self.importance, self.pinned, self.save, self.delete, self.forget_everywhere):
            widget.setEnabled(enabled)
        self.jump.setEnabled(enabled and bool(memory.scope.session) and bool(memory.source_ids))
        self.editor.setPlainText(memory.text if enabled else "")
        self.importance.setValue(round(memory.importance * 100) if enabled else 50)
        self.pinned.setChecked(memory.pinned if enabled else False)
        self.source.setText(self._where_from(memory) if enabled else "")
        self.message.setText(self.note)
        self.note = ""

    def names_changed(self) -> None:
        """Chats were renamed (or their words forgotten): say where the open memory came from anew."""
        if self.current is not None:
            self.source.setText(self._where_from(self.current))

    def _where_from(self, memory) -> str:
        text = self.tr("From {source} · {created}").format(source=source_text(memory, self.chat_names),
                                                           created=memory.created_at[:16].replace("T", " "))
        if memory.updated_at != memory.created_at:
            text += " · " + self.tr("edited {when}").format(when=memory.updated_at[:16].replace("T", " "))
        return text

    # -- actions -------------------------------------------------------------------------------

    def _save(self) -> None:
        memory = self.current
        if memory is None:
            return
        text = self.editor.toPlainText()
        importance = self.importance.value() / 100
        pinned = self.pinned.isChecked()

        def update(engram):
            return engram.store.update(memory.id, actor="user", text=text if text != memory.text else None,
                                       importance=importance, pinned=pinned)

        self.message.setText(self.tr("Saving…"))
        self.backend.disk(update, returned=self._saved, errored=self._failed)

    def _saved(self, memory) -> None:
        self.current = memory
        self.message.setText(self.tr("Saved."))
        self.list.poll()
        self.changed.emit()

    def _failed(self, error) -> None:
        self.message.setText("<span style='color:#c0392b'>" + self.tr("Not saved: {error}").format(error=error)
                             + "</span>")

    def _delete(self) -> None:
        memory = self.current
        if memory is None:
            return
        question = self.tr("Forget this memory for good?\n\n“{text}”").format(text=memory.text[:300])
        answer = QMessageBox.question(self, self.tr("Forget memory"), question,
                                      QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Cancel)
        if answer != QMessageBox.Yes:
            return
        self.current = None
        self.backend.disk(lambda engram: forget_memory(engram, memory.id, actor="user"),
                          returned=lambda _: (self.list.poll(), self.changed.emit()), errored=self._failed)

    def _forget_everywhere(self) -> None:
        """List the places the memory's words (or the part selected) are stored, then forget them
        there once the person confirms; files they may have written only with the box ticked."""
        memory = self.current
        if memory is None:
            return
        text = self.editor.textCursor().selectedText().replace("\u2029", "\n").strip() or memory.text
        self.message.setText(self.tr("Looking for every place it is stored…"))
        self.backend.disk(lambda engram: find(engram, text, engram.user),
                          returned=lambda places: self._confirm_forget(text, places), errored=self._not_forgotten)

    def _confirm_forget(self, text: str, places: list) -> None:
        self.message.setText("" if places else self.tr("It is stored nowhere."))
        if not places:
            return
        box = forget_box(self, text, places, self.chat_names)
        answer = box.exec()
        if box.clickedButton() is box.related:
            self.find_related(text)
            return
        if answer != QMessageBox.Yes:
            return
        with_files = box.checkBox() is not None and box.checkBox().isChecked()
        self.current = None
        self.backend.disk(lambda engram: forget_everywhere(engram, text, engram.user, files=with_files, places=places),
                          returned=self._forgotten, errored=self._not_forgotten)

    def find_related(self, text: str) -> None:
        """The memories nearest in meaning to the text (a paraphrase holds other words), in the
        list until the filter changes."""
        self.message.setText(self.tr("Looking for memories related to “{text}”…").format(text=text[:80]))

        def search(engram):
            options = SearchOptions(mode="hybrid", k=RELATED, threshold=0.0)
            return [hit.memory for hit in engram.store.search(text, Scope(user=engram.user), options).hits]

        def found(memories):
            self.list.show_only(memories, sensitive_marks(memories))
            self.count.setText(self.tr("%n memories related to “{text}”", "", len(memories)).format(text=text[:80]))
            self.message.setText("")

        self.backend.disk(search, returned=found, errored=self._failed)

    def _not_forgotten(self, error) -> None:
        self.message.setText("<span style='color:#c0392b'>" + self.tr("Not forgotten: {error}").format(error=error)
                             + "</span>")

    def _forgotten(self, done) -> None:
        files = len(persons_files(done.left))
        left = self.tr(" %n files left as they are.", "", files) if files else ""
        self.message.setText(self.tr("Forgotten in {count} places.").format(count=len(done.changed)) + left)
        self.list.poll()
        self.changed.emit()
        self.forgotten.emit()

    def _jump(self) -> None:
        memory = self.current
        if memory is not None and memory.scope.session and memory.source_ids:
            self.jump_requested.emit(memory.scope.session, memory.source_ids[0])
