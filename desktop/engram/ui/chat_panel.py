"""The centre: the chat's title with its model and its own settings (engram.ui.chat_options), the
first-run note, the conversation, and the input with Send/Stop."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout,
                               QWidget)

from engram.ui.chat_view import ChatView
from engram.ui.composer import Composer
from engram.ui.notice import Notice

DOCUMENT_FILTER = "*.pdf *.docx *.pptx *.xlsx *.xlsm *.csv *.html *.htm *.xhtml *.epub *.md *.markdown *.txt"


class ChatPanel(QWidget):
    send_requested = Signal(str)
    stop_requested = Signal()
    files_dropped = Signal(list)     # paths of documents dropped on the chat or chosen with the paperclip

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        header = QFrame()
        header.setObjectName("ChatHeader")
        row = QHBoxLayout(header)
        row.setContentsMargins(20, 10, 16, 10)
        self.title = QLabel(self.tr("New chat"))
        self.title.setObjectName("ChatTitle")
        self.memory_off = QLabel(self.tr("Memory off"))
        self.memory_off.setObjectName("MemoryOff")
        self.memory_off.setToolTip(self.tr("Nothing from this chat is kept in memory, and nothing is recalled into"
                                           " it; its messages are still saved"))
        self.memory_off.hide()
        self.model_name = QToolButton()          # the model picker: its menu is engram.ui.chat_options'
        self.model_name.setObjectName("ModelName")
        self.model_name.setPopupMode(QToolButton.InstantPopup)
        self.this_chat = QToolButton()
        self.this_chat.setObjectName("ThisChat")
        self.this_chat.setText(self.tr("This chat"))
        self.this_chat.setPopupMode(QToolButton.InstantPopup)
        row.addWidget(self.title, 1)
        row.addWidget(self.memory_off)
        row.addWidget(self.model_name)
        row.addWidget(self.this_chat)
        layout.addWidget(header)
        self.notice = Notice()
        self.first_run = Notice()
        for notice in (self.first_run, self.notice):
            holder = QHBoxLayout()
            holder.setContentsMargins(16, 8, 16, 0)
            holder.addWidget(notice)
            layout.addLayout(holder)
        self.view = ChatView()
        layout.addWidget(self.view, 1)

        bottom = QVBoxLayout()
        bottom.setContentsMargins(20, 8, 20, 10)
        line = QHBoxLayout()
        self.attach = QPushButton(self.tr("Attach…"))
        self.attach.setObjectName("Attach")
        self.attach.setToolTip(self.tr("Attach documents to this chat (PDF, Word, slides, spreadsheets, web pages,"
                                       " e-books, markdown and text files); you can also drop them here"))
        self.attach.clicked.connect(self.choose_documents)
        line.addWidget(self.attach)
        self.setAcceptDrops(True)
        self.composer = Composer()
        self.composer.submitted.connect(self.send_requested)
        self.composer.escaped.connect(self.stop_requested)
        self.composer.refused.connect(lambda why: self.notice.show_message(why, "warning"))
        line.addWidget(self.composer, 1)
        self.send = QPushButton(self.tr("Send"))
        self.send.setObjectName("Primary")
        self.send.setToolTip(self.tr("Send (Enter)"))
        self.send.clicked.connect(self._send_or_stop)
        line.addWidget(self.send)
        bottom.addLayout(line)
        hint = QLabel(self.tr("Enter to send · Shift+Enter for a new line · Esc to stop · Ctrl+N new chat"
                              " · F1 all shortcuts"))
        hint.setObjectName("ComposerHint")
        bottom.addWidget(hint)
        layout.addLayout(bottom)
        self.streaming = False

    def _send_or_stop(self) -> None:
        if self.streaming:
            self.stop_requested.emit()
        elif self.composer.toPlainText().strip():
            self.send_requested.emit(self.composer.toPlainText())

    def choose_documents(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, self.tr("Attach documents"), "",
                                                self.tr("Documents ({kinds});;All files (*)").format(kinds=DOCUMENT_FILTER))
        if paths:
            self.files_dropped.emit(paths)

    def dragEnterEvent(self, event) -> None:
        if _dropped(event):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        if paths := _dropped(event):
            event.acceptProposedAction()
            self.files_dropped.emit(paths)

    def set_streaming(self, streaming: bool) -> None:
        self.streaming = streaming
        self.send.setText(self.tr("Stop") if streaming else self.tr("Send"))
        self.send.setToolTip(self.tr("Stop the reply (Esc)") if streaming else self.tr("Send (Enter)"))
        self.composer.setReadOnly(streaming)

    def show_welcome(self) -> None:
        self.view.clear()
        welcome = self.tr("### Hello — I'm Engram.\n\nI run entirely on this computer and I remember what you tell"
                          " me across chats. Everything I remember is in the **Memories** tab, where you can correct"
                          " or delete it; for every reply, the **Context** tab shows exactly what I was given.")
        self.view.add("assistant", welcome).actions["Context"].hide()


def _dropped(event) -> list[str]:
    """What a drop brings to attach: files, and links dragged from a browser (web addresses)."""
    urls = event.mimeData().urls()
    return [url.toLocalFile() if url.isLocalFile() else url.toString() for url in urls
            if url.isLocalFile() or url.scheme() in ("http", "https")]
