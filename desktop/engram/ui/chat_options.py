"""This chat's own settings in the window: the model picker in the chat's header, memory on or
off, and instructions for this chat (core/conversation/chat_settings.py).

Changes are stored on the disk thread and a chosen model loads on the model thread: the window
never waits. A chat not started yet is made first, so that what is chosen has a chat to belong to.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMenu, QPlainTextEdit, QVBoxLayout

from engram.core.conversation.chat_settings import MAX_INSTRUCTIONS_CHARS, ChatSettings
from engram.ui.notice import explain


class InstructionsDialog(QDialog):
    """A system prompt for one chat, beside the global one (Settings › Memory)."""

    def __init__(self, text: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Instructions for this chat"))
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("The model reads these in this chat only, after the system prompt of Settings. For"
                              " example: \u201cAnswer as a patient maths teacher.\u201d Leave empty for none."))
        hint.setWordWrap(True)
        layout.addWidget(hint)
        self.text = QPlainTextEdit(text)
        self.text.setPlaceholderText(self.tr("Instructions for this chat"))
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        self.problem = QLabel()
        self.problem.setObjectName("FieldError")
        self.problem.hide()
        layout.addWidget(self.problem)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(480, 260)

    def accept(self) -> None:
        """Closes only with instructions that can be kept: too long ones stay here to be shortened."""
        if len(self.text.toPlainText().strip()) > MAX_INSTRUCTIONS_CHARS:
            self.problem.setText(self.tr("{count} characters; the limit is {limit}.").format(
                count=len(self.text.toPlainText().strip()), limit=MAX_INSTRUCTIONS_CHARS))
            self.problem.show()
            return
        super().accept()


class ChatOptions(QObject):
    session_made = Signal(object)      # the Session made for a choice in a chat not started yet
    models_requested = Signal()        # "More models…": Settings › Models

    def __init__(self, backend, chat, status, session: Callable, parent=None):
        """``chat``: the ChatPanel (its header's model and This chat buttons); ``session``: the
        open chat's Session, or None."""
        super().__init__(parent)
        self.backend, self.chat, self.status, self.session = backend, chat, status, session
        self.settings = ChatSettings()          # the open chat's
        self.default_name = ""                  # the settings' chat model's
        self.default_path = ""                  # its file, where it was loaded from one
        self.models: list[tuple[str, str]] = []     # (name, file) of the other chat models on this machine
        self.names: dict[str, str] = {}         # file -> name of every chat model on this machine
        self.model_menu = QMenu(chat.model_name)
        self.model_menu.aboutToShow.connect(self._fill_model_menu)
        chat.model_name.setMenu(self.model_menu)
        menu = QMenu(chat.this_chat)
        self.memory = QAction(self.tr("Memory in this chat"), menu, checkable=True, checked=True)
        self.memory.setToolTip(self.tr("Off: nothing from this chat is kept in memory and nothing is recalled"
                                       " into it; its messages are still saved"))
        self.memory.toggled.connect(self.set_memory)
        menu.addAction(self.memory)
        menu.addAction(self.tr("Instructions for this chat…"), self.edit_instructions)
        menu.setToolTipsVisible(True)
        chat.this_chat.setMenu(menu)

    # -- what the open chat has --------------------------------------------------------------------

    def show_chat(self, session) -> None:
        """Show the settings of ``session`` (None: a chat not started, with the defaults)."""
        if session is None:
            self._shown(ChatSettings())
            return
        self.backend.disk(lambda engram: engram.turn_engine.chat_settings.get(session.id), returned=self._shown)

    def _shown(self, settings: ChatSettings) -> None:
        self.settings = settings
        self.memory.blockSignals(True)
        self.memory.setChecked(settings.memory)
        self.memory.blockSignals(False)
        self.chat.memory_off.setVisible(not settings.memory)
        self.chat.model_name.setText(self.name_of(settings.model) if settings.model else self.default_name)
        self.chat.model_name.setToolTip(
            self.tr("This chat's own model: {path}").format(path=settings.model) if settings.model
            else self.tr("The chat model of Settings; click to give this chat another"))
        self.chat.this_chat.setToolTip(self.tr("Instructions for this chat: {text}").format(
            text=settings.instructions[:200]) if settings.instructions else self.tr("Memory and instructions for this chat"))

    def name_of(self, path: str) -> str:
        """The name a chat model's file goes by: the catalog's (ModelLibrary.name_of), else the file's."""
        return self.names.get(path) or Path(path).stem

    def set_default_model(self, model) -> None:
        """The settings' chat model is loaded (or changed): its name, where no chat's own is chosen,
        shows once read off the GUI thread (refresh_models)."""
        self.default_name = getattr(model, "name", "")
        self.default_path = str(getattr(model, "path", ""))
        self.refresh_models()

    def refresh_models(self) -> None:
        """Read the chat models on this machine and their names again (for the header and the
        picker's next opening); the picker offers the settings' one first, apart from the others."""
        from engram.core.models.chat_model import chat_model_path
        from engram.core.models.library import ModelLibrary

        default_name, default_path = self.default_name, self.default_path

        def found(engram):
            library = ModelLibrary(engram.settings)
            default = chat_model_path(engram.settings).resolve()
            models = library.chat_models()
            return (library.name_of(default_path) if default_path else default_name,
                    [(name, str(path)) for name, path in models if path.resolve() != default],
                    {str(path): name for name, path in models})

        self.backend.disk(found, returned=self._found)

    def _found(self, found: tuple[str, list[tuple[str, str]], dict[str, str]]) -> None:
        self.default_name, self.models, self.names = found
        self._shown(self.settings)

    # -- changes -----------------------------------------------------------------------------------

    def _change(self, **changes) -> None:
        """Store a change of the open chat's settings (a chat not started is made first)."""
        session = self.session()

        def store(engram):
            chat = session or engram.sessions.get_or_create(None, engram.user)
            return chat, engram.turn_engine.chat_settings.set(chat.id, **changes)

        def stored(result):
            chat, settings = result
            if session is None:
                self.session_made.emit(chat)
            self._shown(settings)

        self.backend.disk(store, returned=stored, errored=lambda e: (self.chat.notice.show_message(explain(e), "error"),
                                                                      self._shown(self.settings)))

    def set_memory(self, on: bool) -> None:
        self._change(memory=on)
        self.status.showMessage(self.tr("Memory is on for this chat") if on else self.tr(
            "Memory is off for this chat: nothing is kept or recalled; the messages are still saved"), 6000)

    def toggle_memory(self) -> None:
        self.memory.toggle()

    def edit_instructions(self) -> None:
        dialog = InstructionsDialog(self.settings.instructions, self.chat.window())
        if dialog.exec() == QDialog.Accepted:
            self._change(instructions=dialog.text.toPlainText())

    def _fill_model_menu(self) -> None:
        self.model_menu.clear()
        default = self.model_menu.addAction(self.tr("The model of Settings ({name})").format(name=self.default_name),
                                            lambda: self.choose_model(""))
        default.setCheckable(True)
        default.setChecked(not self.settings.model)
        for name, path in self.models:
            action = self.model_menu.addAction(name, lambda chosen=path: self.choose_model(chosen))
            action.setCheckable(True)
            action.setChecked(bool(self.settings.model) and Path(self.settings.model) == Path(path))
        self.model_menu.addSeparator()
        self.model_menu.addAction(self.tr("More models…"), self.models_requested.emit)
        self.refresh_models()

    def choose_model(self, path: str) -> None:
        """Give this chat the model in ``path`` ("": the settings' one) and load it off the GUI thread."""
        self._change(model=path)
        self.status.set_model_state("loading", self.name_of(path) if path else self.default_name)

        def loaded(model) -> None:
            self.status.set_model_state("ready", getattr(model, "name", ""))

        def failed(error) -> None:
            self.status.set_model_state("error", self.name_of(path))
            self.chat.notice.show_message(self.tr("<b>The chat model did not load.</b> {why}").format(
                why=explain(error)), "error", [(self.tr("Use the model of Settings"), lambda: self.choose_model(""))])

        self.backend.model(lambda engram, worker: engram.chat_model(path), returned=loaded, errored=failed)
