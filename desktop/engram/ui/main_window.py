"""The main window: sessions on the left, the chat in the centre, Memories / Files / Context on the
right, model state and memory health below. It only wires widgets to engram.core calls, which all
run on the backend's worker threads."""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QSplitter, QTabWidget, QVBoxLayout, QWidget

from engram.core.errors import DataDirError, EngramError, InvalidInput, NotFound
from engram.core.files import TRASH_DIR
from engram.ui.chat_panel import ChatPanel
from engram.ui.context_tab import ContextTab
from engram.ui.files_tab import FilesTab
from engram.ui.memories_tab import MemoriesTab
from engram.ui.notice import Notice
from engram.ui.sessions_panel import SessionsPanel
from engram.ui.status_bar import StatusBar

HEALTH_MS = 2000
# A stored message's status as its bubble notes it.
STATUS_NOTES = {"stopped": QT_TRANSLATE_NOOP("MainWindow", "stopped"),
                "error": QT_TRANSLATE_NOOP("MainWindow", "error")}


def explain(error: BaseException) -> str:
    """An error as the person should read it: what happened and, for Engram's errors, the fix."""
    if isinstance(error, EngramError):
        text = html.escape(error.args[0] if error.args else str(error))
        fix = QCoreApplication.translate("MainWindow", "Fix: {hint}")
        return text + (f"<br><i>{fix.format(hint=html.escape(error.hint))}</i>" if error.hint else "")
    return html.escape(f"{type(error).__name__}: {error}")


class MainWindow(QMainWindow):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.session = None          # the open Session, or None for a chat not yet started
        self.turn = None             # the Worker of the reply that is streaming
        self._reply = None           # its bubble
        self._turn_session: dict = {}  # {"id": its session's id}, also of a new chat the turn made
        self._replaced = None        # the reply bubble a Retry replaces, hidden until the new one is stored
        self._sending = ""           # its words, until they are safely stored
        self._model_name = ""
        self.settings_dialog = None
        self.setWindowTitle("Engram")
        screen = QGuiApplication.primaryScreen().availableGeometry()
        self.resize(min(1320, screen.width()), min(820, screen.height()))  # small laptop screens too

        self.sessions = SessionsPanel()
        self.chat = ChatPanel()
        self.tabs = QTabWidget()
        self.memories = MemoriesTab(backend)
        self.files = FilesTab(backend)
        self.context = ContextTab()
        self.tabs.addTab(self.memories, self.tr("Memories"))
        self.tabs.addTab(self.files, self.tr("Files"))
        self.tabs.addTab(self.context, self.tr("Context"))
        # Above the chat, where the person looks (the Memories tab already fills a small screen's height).
        self.words_only = Notice(closable=False)
        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        holder = QHBoxLayout()
        holder.setContentsMargins(16, 8, 16, 0)
        holder.addWidget(self.words_only)
        column.addLayout(holder)
        column.addWidget(self.chat, 1)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.sessions)
        split.addWidget(centre)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setSizes([250, 690, 380])
        split.setChildrenCollapsible(False)
        self.setCentralWidget(split)
        self.status = StatusBar()
        self.setStatusBar(self.status)

        self.sessions.new_requested.connect(self.new_chat)
        self.sessions.selected.connect(self.open_session)
        self.sessions.search_changed.connect(lambda _: self.refresh_sessions())
        self.sessions.rename_requested.connect(self.rename_session)
        self.sessions.delete_requested.connect(self.delete_session)
        self.sessions.folder_requested.connect(self._open_folder_of)
        self.sessions.settings_requested.connect(self.open_settings)
        self.chat.send_requested.connect(self.send)
        self.chat.stop_requested.connect(self.stop)
        self.chat.view.retry_requested.connect(self.retry)
        self.chat.view.context_requested.connect(self.show_context)
        self.chat.view.copied.connect(lambda: self.status.showMessage(self.tr("Copied to the clipboard"), 2000))
        self.memories.jump_requested.connect(self.jump_to)
        self.memories.forgotten.connect(self._after_forgetting)
        self.status.retry_requested.connect(self.retry_failed_work)
        backend.opened.connect(self._opened)
        backend.failed.connect(self._open_failed)
        backend.error.connect(self.show_error)

        for keys, action in (("Ctrl+N", self.new_chat), ("Ctrl+F", self.focus_search), ("Esc", self.stop),
                             ("Ctrl+,", self.open_settings)):
            QShortcut(QKeySequence(keys), self, activated=action)
        self._health = QTimer(self, interval=HEALTH_MS)
        self._health.timeout.connect(self.refresh_health)
        self._last_pending = None
        self.chat.show_welcome()
        self.chat.composer.setFocus()

    # -- start-up -------------------------------------------------------------------------------

    def _opened(self, engram) -> None:
        self.status.set_model_state("loading")
        engram.outbox.start()
        self.files.attach(engram)
        self.sessions.trash = str(engram.data_dir / TRASH_DIR)
        self.show_embedding_problem(engram.embedding_problem)
        self.refresh_sessions()
        self.memories.refresh()
        # After the lists: the disk thread is one, and loading vectors takes seconds at 100k memories.
        self.backend.disk(lambda engram: engram.store.warm(engram.user))
        self.backend.disk(lambda engram: engram.embed_later())   # e.g. what a words-only run stored
        self.refresh_health()
        self._health.start()
        self.show_first_run(engram.settings)
        self.load_model()

    def _open_failed(self, error) -> None:
        self.status.set_model_state("error", self.tr("data folder"))
        self.chat.notice.show_message(
            self.tr("<b>Engram could not open its data.</b> {why}<br>Choose another data folder in Settings › Data,"
                    " then restart.").format(why=explain(error)), "error",
            [(self.tr("Settings…"), self.open_settings)])

    def show_embedding_problem(self, problem) -> None:
        """While no embedding model loads, say so above the chat (which file, why, what to do)
        until one does; chatting, the archive and recall by words go on meanwhile."""
        if problem is None:
            self.words_only.hide()
            return
        self.words_only.show_message(
            self.tr("<b>No search by meaning: the embedding model did not load.</b> {why}<br>Until an embedding model"
                    " loads, memories are found by their words only; nothing you write is lost, and it is embedded"
                    " once one loads.").format(why=explain(problem)), "warning",
            [(self.tr("Settings…"), lambda: self.open_settings(page="Models")),
             (self.tr("Try again"), self.reload_embedding_model)])

    def reload_embedding_model(self) -> None:
        """Load the embedding model the settings name again (its file may have been put right)."""
        self.words_only.label.setText(self.tr("Loading the embedding model…"))
        self.backend.disk(lambda engram: engram.use_embedding_model(engram.settings.embedding_model),
                          returned=lambda _: self._embedding_model_changed(), errored=self.show_embedding_problem)

    def _embedding_model_changed(self) -> None:
        self.show_embedding_problem(None)
        self.status.showMessage(self.tr("Embedding model loaded: memories it has not embedded yet are embedded in"
                                        " the background"), 8000)
        self.refresh_health()

    def show_first_run(self, settings) -> None:
        if settings.chat_model:
            self.chat.first_run.hide()
        else:
            self.chat.first_run.show_message(
                self.tr("<b>This is the tiny demo model</b> (SmolLM2 135M Instruct): it answers in short English"
                        " sentences, often wrongly, seldom uses what Engram recalls, writes no usable Chinese, and"
                        " cannot use tools (session files) or note memories. It is bundled so that Engram works"
                        " offline at once. For real answers, download a chat model such as Qwen3 4B or Llama 3.2 3B"
                        " Instruct, or choose a GGUF file you have."), "info",
                [(self.tr("Download a model…"), self.download_model),
                 (self.tr("Choose a GGUF model…"), self.choose_chat_model)])

    def load_model(self) -> None:
        """Load the chat model in the background; the window stays usable meanwhile."""
        self.status.set_model_state("loading")
        self.backend.model(lambda engram, worker: engram.chat_model(), returned=self._model_ready,
                           errored=self._model_failed)

    def _model_ready(self, model) -> None:
        self._model_name = getattr(model, "name", "")
        self.status.set_model_state("ready", self._model_name)
        self.chat.model_name.setText(self._model_name)
        self.chat.notice.hide()

    def _model_failed(self, error) -> None:
        self.status.set_model_state("error", str(error.args[0] if error.args else error)[:80])
        self.chat.notice.show_message(self.tr("<b>The chat model did not load.</b> {why}").format(why=explain(error)),
                                      "error", [(self.tr("Choose another model…"), self.choose_chat_model)])
        if self.settings_dialog is not None and self.settings_dialog.isVisible():
            self.settings_dialog.chat_model.show_error(error)

    def choose_chat_model(self) -> None:
        self.open_settings(page="Models")

    def download_model(self) -> None:
        """The model catalog, over the Settings page it belongs to (a model chosen there is used at once)."""
        self.open_settings(page="Models")
        self.settings_dialog.open_models()

    # -- sessions -------------------------------------------------------------------------------

    def refresh_sessions(self) -> None:
        query = self.sessions.search.text().strip()
        current = self.session.id if self.session else None
        def shown(found):
            self.sessions.show_sessions(found, current)
            self.memories.titles.update({s.id: s.title for s in found if s.title})

        self.backend.disk(lambda engram: engram.sessions.list(engram.user, query), returned=shown)

    def _after_forgetting(self) -> None:
        """Forget everywhere changed chats' words, titles and folders: show them as they are now."""
        self.refresh_sessions()
        if self.session is not None:
            self.open_session(self.session.id)

    def new_chat(self) -> None:
        if self.turn is not None:
            return
        self.session = None
        self.chat.title.setText(self.tr("New chat"))
        self.chat.show_welcome()
        self.sessions.list.clearSelection()
        self.sessions.list.setCurrentItem(None)
        self.files.set_folder(None)
        self.memories.set_session(None)
        self.context.show_record(None)
        self.chat.composer.setFocus()

    def open_session(self, session_id: str, reveal: int | None = None) -> None:
        if self.turn is not None:
            return

        def load(engram):
            session = engram.sessions.get(session_id)
            messages = engram.sessions.messages(session_id, roles=("user", "assistant"))
            recalled = {r.reply_message_id: len(r.recalled) for r in engram.turns.for_session(session_id)}
            return session, messages, recalled

        self.backend.disk(load, returned=lambda loaded: self._show_session(*loaded, reveal=reveal))

    def _show_session(self, session, messages, recalled, reveal=None) -> None:
        self.session = session
        self.chat.title.setText(session.title or self.tr("New chat"))
        self.chat.view.clear()
        for message in messages:
            bubble = self.chat.view.add(message.role, message.content, message.id)
            if message.role == "assistant":
                bubble.set_memories_used(recalled.get(message.id, 0))
                if message.status != "complete":
                    bubble.set_status(message.status, self._status_note(message.status))
        if not messages:
            self.chat.show_welcome()
        self.files.set_folder(session.folder)
        self.memories.set_session(session.id)
        self.context.show_record(None)
        if reveal is not None and (bubble := self.chat.view.find(reveal)) is not None:
            QTimer.singleShot(50, bubble, lambda: self.chat.view.reveal(bubble))  # cancelled if it goes

    def rename_session(self, session_id: str, title: str) -> None:
        def rename(engram):
            return engram.sessions.rename(session_id, title)

        def renamed(session):
            if self.session is not None and self.session.id == session.id:
                self.session = session
                self.chat.title.setText(session.title)
            self.refresh_sessions()

        self.backend.disk(rename, returned=renamed)

    def delete_session(self, session_id: str) -> None:
        def deleted(result):
            if self.session is not None and self.session.id == session_id:
                self.new_chat()
            self.refresh_sessions()
            self.memories.refresh()
            if result.problem is not None:
                self.chat.notice.show_message(
                    self.tr("<b>The chat was deleted, but its folder of files was not moved to the trash.</b> {why}")
                    .format(why=explain(result.problem)), "error")
                return
            self.status.showMessage(
                self.tr("Chat deleted, with the memories taken from it; its files are in {folder}").format(
                    folder=result.trashed) if result.trashed
                else self.tr("Chat deleted, with the memories taken from it"), 8000)

        self.backend.disk(lambda engram: engram.delete_session(session_id), returned=deleted)

    def _open_folder_of(self, session_id: str) -> None:
        if self.session is not None and self.session.id == session_id:
            self.files.open_folder()
        else:
            self.open_session(session_id)
            QTimer.singleShot(300, self.files.open_folder)

    def focus_search(self) -> None:
        self.sessions.search.setFocus()
        self.sessions.search.selectAll()

    def jump_to(self, session_id: str, message_id: int) -> None:
        """Open the chat a memory came from and show the message."""
        if self.session is not None and self.session.id == session_id and self.chat.view.find(message_id):
            self.chat.view.reveal(self.chat.view.find(message_id))
        else:
            self.open_session(session_id, reveal=message_id)
            self.refresh_sessions()

    # -- a turn ---------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        if self.turn is not None or not text.strip():
            return
        if not self.backend.ready:
            self.chat.notice.show_message(self.tr("Engram is still starting; your message is still in the box."),
                                          "info")
            return
        if self.session is None or not self.chat.view.bubbles or self.chat.view.bubbles[0].key is None:
            self.chat.view.clear()
        self.chat.composer.clear()
        self.chat.notice.hide()
        self._sending = text
        self.chat.view.add("user", text)
        self._start_turn(self.session.id if self.session else None, text)

    def _start_turn(self, session_id: str | None, text: str | None) -> None:
        """Stream a reply into a new bubble: to ``text``, or with None to the session's last
        message again (Retry)."""
        reply = self.chat.view.add("assistant")
        reply.set_text("")
        self._reply = reply
        self.chat.set_streaming(True)
        self.status.set_model_state("busy")

        self._turn_session = {"id": session_id}

        def turn(engram, worker):
            streaming = {"on_token": worker.emit, "stop": worker.stop, "max_tokens": engram.settings.chat_max_tokens}
            if text is None:
                return engram.turn_engine.regenerate(session_id, **streaming)
            sid = session_id or engram.sessions.get_or_create(None, engram.user, title=text).id
            self._turn_session["id"] = sid
            return engram.turn_engine.send(sid, text, **streaming)

        self.turn = self.backend.model(turn, yielded=reply.append, returned=self._turn_done,
                                       errored=self._turn_failed)

    def stop(self) -> None:
        if self.turn is not None:
            self.turn.stop.set()
            self._reply.note.setText(self.tr("stopping…"))

    def _turn_finished(self) -> None:
        self.turn = None
        self.chat.set_streaming(False)
        self.chat.composer.setFocus()

    def _turn_done(self, result) -> None:
        self._turn_finished()
        if self._replaced is not None:
            self.chat.view.remove(self._replaced)
            self._replaced = None
        reply = self._reply
        reply.key = result.reply.id
        reply.turn = result.record
        reply.set_text(result.reply.content or self.tr("*(no reply)*"))
        reply.set_memories_used(len(result.record.recalled))
        if result.stopped:
            reply.set_status("stopped", self._status_note("stopped"))
        users = [b for b in self.chat.view.bubbles if b.role == "user"]
        if users:
            users[-1].key = result.user_message.id
        self.chat.view._mark_last_reply()
        self.status.set_model_state("ready", self._model_name)
        self.status.set_speed(result.generation.tokens_per_second)
        self.context.show_record(result.record)
        self._adopt_session(result.session)

    def _adopt_session(self, session) -> None:
        """The chat's session, once the first turn made it (or renamed it)."""
        new = self.session is None or self.session.id != session.id
        self.session = session
        self.chat.title.setText(session.title or self.tr("New chat"))
        if new:
            self.files.set_folder(session.folder)
            self.memories.set_session(session.id)
        self.refresh_sessions()

    def _turn_failed(self, error) -> None:
        self._turn_finished()
        self.status.set_model_state("ready" if isinstance(error, (InvalidInput, DataDirError)) else "error")
        if self._replaced is not None:        # a failed Retry: the old reply stays, as it does on disk
            self.chat.view.remove(self._reply)
            self._replaced.show()
            self._replaced = None
            self.show_error(error)
            return
        text = self._sending
        why = self.tr("**Engram could not reply.** {why}").format(why=error.args[0] if error.args else error)
        if hint := getattr(error, "hint", ""):
            why += "\n\n*" + self.tr("Fix: {hint}").format(hint=hint) + "*"
        self._reply.set_text(why)
        self._reply.set_status("error", self._status_note("error"))
        session_id = self._turn_session["id"]

        def saved(engram):
            """The chat the turn wrote to (None when none was made) and whether the person's words
            reached the database (then they are not lost)."""
            try:
                session = engram.sessions.get(session_id) if session_id else None
            except NotFound:
                return None, False
            last = engram.sessions.messages(session_id, roles=("user",), last=1) if session else []
            return session, bool(last) and last[0].content == text

        reply = self._reply

        def check(found):
            session, stored = found
            if session is not None:
                self._adopt_session(session)           # made by this turn: sending again goes on in it
            if stored:
                self.chat.view.offer_answer(reply)     # Retry, once the cause is fixed
            elif not self.chat.composer.toPlainText().strip():
                self.chat.composer.setPlainText(text)
                self.chat.notice.show_message(self.tr("Your message was not sent; it is back in the input box."),
                                              "warning")

        self.backend.disk(saved, returned=check)
        self.refresh_sessions()

    def _status_note(self, status: str) -> str:
        return self.tr(STATUS_NOTES[status]) if status in STATUS_NOTES else status

    def retry(self) -> None:
        """Replace the last reply (or the error in its place) with a new one to the same message,
        which is not sent again."""
        last = self.chat.view.last_reply()
        if self.turn is not None or self.session is None or last is None or (last.key is None and not last.answerable):
            return
        self.chat.notice.hide()
        last.hide()
        self._replaced = last
        self._start_turn(self.session.id, None)

    def show_context(self, bubble) -> None:
        self.tabs.setCurrentWidget(self.context)
        if bubble.turn is not None:
            self.context.show_record(bubble.turn)
            return
        if bubble.key is None:
            self.context.show_error(self.tr("This reply has no context record."))
            return

        def found(record):
            bubble.turn = record
            self.context.show_record(record)

        self.backend.disk(lambda engram: engram.turns.for_reply(bubble.key), returned=found,
                          errored=lambda e: self.context.show_error(str(e.args[0] if e.args else e)))

    # -- memory health and errors ---------------------------------------------------------------

    def refresh_health(self) -> None:
        def shown(found):
            health, to_embed, words_only = found
            watcher = self.backend.watcher
            self.status.set_health(health, to_embed, words_only,
                                   self.backend.masked(watcher.problem) if watcher is not None else "")
            if self._last_pending is not None and health.pending < self._last_pending:
                self.memories.refresh()          # background work stored new memories
            self._last_pending = health.pending

        def found(engram):
            health = engram.outbox.health()        # its errors as an error label shows them (masked, if so)
            errors = [replace(job, last_error=self.backend.masked(job.last_error)) for job in health.errors]
            health = replace(health, stalled=self.backend.masked(health.stalled), errors=errors)
            return health, engram.store.pending_embeddings(), engram.embedder is None

        self.backend.disk(found, returned=shown)

    def retry_failed_work(self) -> None:
        self.backend.disk(lambda engram: engram.outbox.retry_failed(), returned=lambda _: self.refresh_health())

    def show_error(self, error) -> None:
        self.chat.notice.show_message(explain(error), "error")

    # -- settings -------------------------------------------------------------------------------

    def open_settings(self, page: str = "") -> None:
        from engram.ui.settings_dialog import SettingsDialog

        if self.settings_dialog is None:
            self.settings_dialog = SettingsDialog(self.backend, self)
            self.settings_dialog.applied.connect(self._settings_applied)
        self.settings_dialog.load()
        if page:
            self.settings_dialog.show_page(page)
        self.settings_dialog.show()
        self.settings_dialog.raise_()

    def _settings_applied(self, changes: set) -> None:
        engram = self.backend.engram
        if engram is None:
            return
        self.show_first_run(engram.settings)
        if "chat" in changes:
            self.load_model()
        if "embedding" in changes:
            self._embedding_model_changed()
        self.memories.refresh()

    def move_data_dir(self, target: str, done) -> None:
        """Move the data folder safely (copy, verify, remove the old), remember the new place in the
        settings and reopen; ``done`` gets the new folder or the error (then the old one reopens)."""
        if self.turn is not None or not self.backend.ready:
            done(InvalidInput(self.tr("Engram is busy"),
                              hint=self.tr("wait for the reply to end (or press Stop), then move")))
            return

        def move(folder):
            from engram.core.relocate import move_data_dir
            from engram.core.settings import Settings

            moved = move_data_dir(folder, target)
            settings = Settings.load()
            settings.data_dir = str(moved)
            settings.save()
            return moved

        self._health.stop()
        self.new_chat()
        self.status.set_model_state("loading", self.tr("moving the data folder"))
        self.backend.reopen(move, done)

    # -- closing --------------------------------------------------------------------------------

    def closeEvent(self, event) -> None:
        self._health.stop()
        self.stop()
        self.backend.close()
        super().closeEvent(event)
