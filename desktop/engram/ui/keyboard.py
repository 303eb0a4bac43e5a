"""Every action of the main window from the keyboard, and the list of them (F1, Help menu).

One table says each shortcut, what it does and how, so the list the person reads is the list that
is installed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTableWidget, QTableWidgetItem, QVBoxLayout


def _copy_last_reply(window) -> None:
    last = window.chat.view.last_reply()
    if last is not None and last.key is not None:
        last.copy_requested.emit(last.text)


def _last_context(window) -> None:
    last = window.chat.view.last_reply()
    if last is not None and last.key is not None:
        window.show_context(last)
    else:
        window.tabs.setCurrentWidget(window.context)


# (keys, what it does, what does it with the MainWindow; None: keys handled where they belong, e.g. the
# message box's own or a menu action's, listed here only)
SHORTCUTS: tuple[tuple[str, str, Callable | None], ...] = (
    ("Enter", QT_TRANSLATE_NOOP("Keyboard", "Send the message"), None),
    ("Shift+Enter", QT_TRANSLATE_NOOP("Keyboard", "A new line in the message"), None),
    ("Esc", QT_TRANSLATE_NOOP("Keyboard", "Stop the reply; cancel an edit"), lambda w: w.stop()),
    ("Ctrl+N", QT_TRANSLATE_NOOP("Keyboard", "New chat"), lambda w: w.new_chat()),
    ("Ctrl+F", QT_TRANSLATE_NOOP("Keyboard", "Search the chats"), lambda w: w.focus_search()),
    ("Ctrl+L", QT_TRANSLATE_NOOP("Keyboard", "Go to the message box"), lambda w: w.chat.composer.setFocus()),
    ("Ctrl+Shift+C", QT_TRANSLATE_NOOP("Keyboard", "Copy the last reply"), _copy_last_reply),
    ("Ctrl+R", QT_TRANSLATE_NOOP("Keyboard", "Retry: a new reply (the earlier ones are kept)"), lambda w: w.retry()),
    ("Ctrl+E", QT_TRANSLATE_NOOP("Keyboard", "Edit your last message"), lambda w: w.branches.edit_last()),
    ("Alt+Left", QT_TRANSLATE_NOOP("Keyboard", "Show the earlier version (‹)"), lambda w: w.branches.step(-1)),
    ("Alt+Right", QT_TRANSLATE_NOOP("Keyboard", "Show the later version (›)"), lambda w: w.branches.step(1)),
    ("Ctrl+M", QT_TRANSLATE_NOOP("Keyboard", "Choose this chat's model"), lambda w: w.chat.model_name.showMenu()),
    ("Ctrl+Shift+M", QT_TRANSLATE_NOOP("Keyboard", "Memory in this chat on or off"),
     lambda w: w.chat_options.toggle_memory()),
    ("Ctrl+I", QT_TRANSLATE_NOOP("Keyboard", "Instructions for this chat"), lambda w: w.chat_options.edit_instructions()),
    ("Ctrl+O", QT_TRANSLATE_NOOP("Keyboard", "Attach documents or text files"), lambda w: w.chat.choose_documents()),
    ("Ctrl+1", QT_TRANSLATE_NOOP("Keyboard", "The Memories tab"), lambda w: w.tabs.setCurrentWidget(w.memories)),
    ("Ctrl+2", QT_TRANSLATE_NOOP("Keyboard", "The Profile tab"), lambda w: w.tabs.setCurrentWidget(w.profile)),
    ("Ctrl+3", QT_TRANSLATE_NOOP("Keyboard", "The Files tab"), lambda w: w.tabs.setCurrentWidget(w.files)),
    ("Ctrl+4", QT_TRANSLATE_NOOP("Keyboard", "The Context tab (of the last reply)"), _last_context),
    ("Ctrl+,", QT_TRANSLATE_NOOP("Keyboard", "Settings"), lambda w: w.open_settings()),
    ("Ctrl+Q", QT_TRANSLATE_NOOP("Keyboard", "Quit Engram (File › Quit)"), None),
    ("F1", QT_TRANSLATE_NOOP("Keyboard", "This list of shortcuts"), lambda w: ShortcutsDialog(w).open()),
)


def install(window) -> None:
    """The shortcuts on ``window``, and a Help menu that lists them."""
    for keys, _, does in SHORTCUTS:
        if does is not None:
            QShortcut(QKeySequence(keys), window, activated=lambda does=does: does(window))
    help_menu = window.menuBar().addMenu(QCoreApplication.translate("Keyboard", "&Help"))
    help_menu.addAction(QCoreApplication.translate("Keyboard", "Keyboard shortcuts"),
                        lambda: ShortcutsDialog(window).open())


class ShortcutsDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle(QCoreApplication.translate("Keyboard", "Keyboard shortcuts"))
        layout = QVBoxLayout(self)
        self.table = QTableWidget(len(SHORTCUTS), 2)
        self.table.setHorizontalHeaderLabels([QCoreApplication.translate("Keyboard", "Keys"),
                                              QCoreApplication.translate("Keyboard", "Does")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        for row, (keys, does, _) in enumerate(SHORTCUTS):
            self.table.setItem(row, 0, QTableWidgetItem(QKeySequence(keys).toString(QKeySequence.NativeText)))
            self.table.setItem(row, 1, QTableWidgetItem(QCoreApplication.translate("Keyboard", does)))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setAttribute(Qt.WA_DeleteOnClose)
        self.resize(460, 690)
