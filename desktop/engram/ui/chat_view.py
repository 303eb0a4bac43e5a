"""The conversation: one bubble per message, markdown rendered, the reply streaming in place.

Tokens arrive far more often than the eye needs; a bubble collects them and re-renders at most
every RENDER_MS, so a long reply never makes the event loop stall.
"""

from __future__ import annotations


from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSizePolicy, QToolButton,
                               QVBoxLayout, QWidget)

from engram.ui.markdown_view import MarkdownView

RENDER_MS = 40
ROLE_NAMES = {"user": QT_TRANSLATE_NOOP("Bubble", "You"), "assistant": "Engram"}


class Bubble(QFrame):
    """One message. ``key`` is the stored message id (None while a reply is still streaming)."""

    copy_requested = Signal(str)
    retry_requested = Signal()
    context_requested = Signal(object)   # the bubble
    edit_requested = Signal(object)      # the bubble (a message of the person's, stored)

    def __init__(self, role: str, text: str = "", key: int | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("Bubble")
        self.setProperty("role", role)
        self.role, self.key, self.turn = role, key, None
        self.answerable = False   # an error in place of a reply to a stored message: Retry answers it
        self._text, self._dirty = text, False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(2)
        self.header = header = QHBoxLayout()    # a branch's pager joins it (engram.ui.branches)
        layout.addLayout(header)       # first: widgets added below get this bubble as their parent
        self.name = QLabel(self.tr(ROLE_NAMES[role]) if role in ROLE_NAMES else role.title())
        self.name.setObjectName("RoleLabel")
        header.addWidget(self.name)
        self.badge = QPushButton()
        self.badge.setObjectName("MemoryBadge")
        self.badge.setCursor(Qt.PointingHandCursor)
        self.badge.setToolTip(self.tr("Memories from earlier conversations were given to the model for this"
                                      " reply; click to see the exact context"))
        self.badge.clicked.connect(lambda: self.context_requested.emit(self))
        self.badge.hide()
        header.addWidget(self.badge)
        header.addStretch(1)
        self.note = QLabel()
        self.note.setObjectName("StatusNote")
        header.addWidget(self.note)
        self.actions: dict[str, QToolButton] = {}     # by their English names
        for name, label, tip, slot in (
                ("Copy", self.tr("Copy"), self.tr("Copy this message"), lambda: self.copy_requested.emit(self._text)),
                ("Context", self.tr("Context"), self.tr("Show what the model saw for this reply"),
                 lambda: self.context_requested.emit(self)),
                ("Edit", self.tr("Edit"), self.tr("Change this message and send it again; the chat from here"
                                                  " on is kept as another version"),
                 lambda: self.edit_requested.emit(self)),
                ("Retry", self.tr("Retry"), self.tr("Ask again for a new reply; the earlier replies are kept"),
                 self.retry_requested.emit)):
            button = QToolButton()
            button.setText(label)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            header.addWidget(button)
            self.actions[name] = button
        self.actions["Context"].setVisible(role == "assistant")
        self.actions["Edit"].setVisible(role == "user" and key is not None)
        self.actions["Retry"].hide()
        # What the model thought before this reply (chat_thinking on): shown only here, folded, never stored.
        self._reasoning = ""
        self.reasoning_toggle = QToolButton()
        self.reasoning_toggle.setObjectName("ReasoningToggle")
        self.reasoning_toggle.setText(self.tr("Reasoning"))
        self.reasoning_toggle.setToolTip(self.tr("What the model thought before it answered; it is not kept"))
        self.reasoning_toggle.setCheckable(True)
        self.reasoning_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.reasoning_toggle.setArrowType(Qt.RightArrow)
        self.reasoning_toggle.toggled.connect(self._fold)
        self.reasoning_toggle.hide()
        layout.addWidget(self.reasoning_toggle)
        self.reasoning = MarkdownView("", message=True)
        self.reasoning.setObjectName("Reasoning")
        self.reasoning.hide()
        layout.addWidget(self.reasoning)
        self.body = MarkdownView(text, message=True)
        layout.addWidget(self.body)
        self.footers: list[QWidget] = []
        self._timer = QTimer(self, singleShot=True, interval=RENDER_MS)
        self._timer.timeout.connect(self._render)

    @property
    def text(self) -> str:
        return self._text

    def append(self, piece: str) -> None:
        self._text += piece
        if not self._timer.isActive():
            self._timer.start()

    def append_reasoning(self, piece: str) -> None:
        self._reasoning += piece
        self.reasoning_toggle.show()
        if not self._timer.isActive():
            self._timer.start()

    def _fold(self, unfolded: bool) -> None:
        self.reasoning_toggle.setArrowType(Qt.DownArrow if unfolded else Qt.RightArrow)
        self.reasoning.setVisible(unfolded)
        self._render()

    def set_text(self, text: str) -> None:
        self._text = text
        self._timer.stop()
        self._render()

    def _render(self) -> None:
        self.body.set_markdown(self._text or "…")
        if self.reasoning_toggle.isChecked():
            self.reasoning.set_markdown(self._reasoning)

    def set_status(self, status: str, note: str = "") -> None:
        self.setProperty("status", status)
        self.style().unpolish(self)
        self.style().polish(self)
        self.note.setText(note)

    def add_footer(self, widget: QWidget) -> None:
        """A widget under the message, e.g. what the message added to the person's profile."""
        self.layout().addWidget(widget)
        self.footers.append(widget)

    def set_memories_used(self, count: int) -> None:
        self.badge.setText(self.tr("◆ used %n memories", "", count))
        self.badge.setVisible(count > 0)


class ChatView(QScrollArea):
    """Scrolls the bubbles; keeps the newest text in view unless the person scrolled up to read."""

    retry_requested = Signal()
    context_requested = Signal(object)
    edit_requested = Signal(object)
    copied = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("ChatArea")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        inner = QWidget()
        self.column = QVBoxLayout(inner)
        self.column.setContentsMargins(24, 16, 24, 16)
        self.column.setSpacing(10)
        self.column.addStretch(1)
        self.setWidget(inner)
        self.bubbles: list[Bubble] = []
        self._follow = True
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(lambda v: setattr(self, "_follow", v >= bar.maximum() - 40))
        bar.rangeChanged.connect(lambda *_: self._follow and bar.setValue(bar.maximum()))

    def clear(self) -> None:
        for bubble in self.bubbles:
            self._drop(bubble)
        self.bubbles = []
        self._follow = True

    def add(self, role: str, text: str = "", key: int | None = None) -> Bubble:
        bubble = Bubble(role, text, key)
        bubble.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        bubble.copy_requested.connect(self._copy)
        bubble.retry_requested.connect(self.retry_requested)
        bubble.context_requested.connect(self.context_requested)
        bubble.edit_requested.connect(self.edit_requested)
        self.column.insertWidget(self.column.count() - 1, bubble)
        self.bubbles.append(bubble)
        self._mark_last_reply()
        self._follow = True
        return bubble

    def offer_answer(self, bubble: Bubble) -> None:
        """Let Retry answer the stored message that ``bubble`` (an error) failed to answer."""
        bubble.answerable = True
        self._mark_last_reply()

    def remove(self, bubble: Bubble) -> None:
        self.bubbles.remove(bubble)
        self._drop(bubble)
        self._mark_last_reply()

    def _drop(self, bubble: Bubble) -> None:
        self.column.removeWidget(bubble)
        bubble.hide()
        bubble.deleteLater()

    def _mark_last_reply(self) -> None:
        for bubble in (b for b in self.bubbles if b.role == "assistant"):
            bubble.actions["Retry"].setVisible((bubble.key is not None or bubble.answerable)
                                               and self.bubbles[-1] is bubble)

    def find(self, key: int) -> Bubble | None:
        return next((b for b in self.bubbles if b.key == key), None)

    def reveal(self, bubble: Bubble) -> None:
        """Scroll to a message and flash it (used by 'jump to source')."""
        self._follow = False
        self.ensureWidgetVisible(bubble, 0, 40)
        note = bubble.note.text()
        bubble.set_status("found", note)
        QTimer.singleShot(1500, bubble, lambda: bubble.set_status("complete", note))

    def last_reply(self) -> Bubble | None:
        return next((b for b in reversed(self.bubbles) if b.role == "assistant"), None)

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.copied.emit()
