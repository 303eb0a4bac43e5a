"""The main window: sessions on the left, the chat in the centre, Memories / Profile / Files / Context
on the right, model state and memory health below. It only wires widgets to engram.core calls, which all
run on the backend's worker threads."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMainWindow, QSplitter, QTabWidget, QVBoxLayout, QWidget

from engram.core.errors import EngramError, InvalidInput
from engram.core.files import TRASH_DIR
from engram.ui import keyboard
from engram.ui.attachments import Attachments
from engram.ui.branches import Branches
from engram.ui.chat_names import ChatNames
from engram.ui.chat_options import ChatOptions
from engram.ui.chat_panel import ChatPanel
from engram.ui.context_tab import ContextTab
from engram.ui.files_tab import FilesTab
from engram.ui.first_start import FirstStart
from engram.ui.memories_tab import MemoriesTab
from engram.ui.notice import Notice, explain
from engram.ui.profile_noted import NotedNotice, changes_of
from engram.ui.profile_tab import ProfileTab
from engram.ui.settings_integrations import ApiHost
from engram.ui.sessions_panel import SessionsPanel
from engram.ui.status_bar import StatusBar
from engram.ui.turn_controller import TurnController, status_note

HEALTH_MS = 2000
ELSEWHERE_MS = 300      # another Engram's burst of commits (an import, a distillation) redraws once


class MainWindow(QMainWindow):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.session = None          # the open Session, or None for a chat not yet started
        self.settings_dialog = None
        self.api = ApiHost(backend, self)     # the OpenAI-compatible API, while Settings › Integrations says so
        self.setWindowTitle("Engram")
        screen = QGuiApplication.primaryScreen().availableGeometry()
        self.resize(min(1320, screen.width()), min(820, screen.height()))  # small laptop screens too

        self.sessions = SessionsPanel()
        self.chat = ChatPanel()
        self.tabs = QTabWidget()
        self.memories = MemoriesTab(backend)
        self.profile = ProfileTab(backend)
        self.files = FilesTab(backend)
        self.context = ContextTab()
        self.chat_names = ChatNames()        # chats by title and day, for the tabs and dialogs
        self.memories.chat_names = self.context.chat_names = self.chat_names
        # Above the chat, where the person looks (the Memories tab already fills a small screen's height).
        self.words_only = Notice(closable=False)
        self.first_start = FirstStart(backend)
        self.status = StatusBar()
        self._lay_out()
        self.turn_controller = TurnController(backend, self.chat, self.status, self)
        self.attachments = Attachments(backend, self.chat, self.status, lambda: self.session, self)
        self.chat_options = ChatOptions(backend, self.chat, self.status, lambda: self.session, self)
        self.branches = Branches(backend, self.chat, lambda: self.session, lambda: self.turn_controller.busy, self)
        self._connect()
        self._health = QTimer(self, interval=HEALTH_MS)
        self._health.timeout.connect(self.refresh_health)
        self._elsewhere = QTimer(self, singleShot=True, interval=ELSEWHERE_MS)
        self._elsewhere.timeout.connect(self.refresh_after_elsewhere)
        self.chat.show_welcome()
        self.chat.composer.setFocus()

    def _lay_out(self) -> None:
        """Sessions | the chat (a notice above it) | the tabs, and the status bar below."""
        self.tabs.addTab(self.memories, self.tr("Memories"))
        self.tabs.addTab(self.profile, self.tr("Profile"))
        self.tabs.addTab(self.files, self.tr("Files"))
        self.tabs.addTab(self.context, self.tr("Context"))
        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        holder = QVBoxLayout()
        holder.setContentsMargins(16, 8, 16, 0)
        holder.addWidget(self.words_only)
        holder.addWidget(self.first_start)
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
        self.setStatusBar(self.status)
        porting = self.menuBar().addMenu(self.tr("&File"))
        porting.addAction(self.tr("Import conversations…"), lambda: self.open_porting(importing=True))
        porting.addAction(self.tr("Export everything…"), lambda: self.open_porting(importing=False))
        porting.addSeparator()
        self.quit_action = porting.addAction(self.tr("&Quit"), self.close)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setShortcutContext(Qt.ApplicationShortcut)     # from any of Engram's windows

    def _connect(self) -> None:
        """What each panel, the turn controller, the backend and the keyboard shortcuts ask for."""
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
        self.turn_controller.replied.connect(self._replied)
        self.profile.jump_requested.connect(self.jump_to)
        self.profile.waiting.connect(self._show_waiting)
        self.context.profile_lines = lambda: {line.id: line.text for line in self.profile.lines()}
        self.profile.loaded.connect(self.context.refresh)      # the profile's lines in words, as they are now
        self.turn_controller.adopted.connect(self._adopt_session)
        self.turn_controller.reload_requested.connect(self.open_session)
        self.attachments.session_made.connect(self._adopt_session)
        self.chat_options.session_made.connect(self._adopt_session)
        self.chat_options.models_requested.connect(self.choose_chat_model)
        self.branches.changed.connect(self.open_session)
        self.memories.jump_requested.connect(self.jump_to)
        self.memories.forgotten.connect(self._after_forgetting)
        self.status.retry_requested.connect(self.retry_failed_work)
        self.first_start.chosen.connect(self._settings_applied)
        self.first_start.catalog_requested.connect(self.download_model)
        self.backend.opened.connect(self._opened)
        self.backend.failed.connect(self._open_failed)
        self.backend.error.connect(self.show_error)
        # The first news starts the wait; more news meanwhile joins it (a steady stream still redraws).
        self.backend.changed_elsewhere.connect(lambda: self._elsewhere.isActive() or self._elsewhere.start())
        keyboard.install(self)

    # -- start-up -------------------------------------------------------------------------------

    def _opened(self, engram) -> None:
        self.status.set_model_state("loading")
        engram.outbox.start()
        self.files.attach(engram)
        self.profile.attach(engram)
        self.attachments.attach(engram)
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
        self.api.apply(engram.settings.api_enabled, engram.settings.api_port)

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
        """A new install: the first-start choice; until a chat model is chosen: what the demo is."""
        if not settings.first_start and not settings.chat_model:
            self.first_start.offer()
        if settings.chat_model or self.first_start.isVisible():
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
        self.status.set_device(None)
        self.backend.model(lambda engram, worker: engram.chat_model(), returned=self._model_ready,
                           errored=self._model_failed)

    def _model_ready(self, model) -> None:
        self.turn_controller.model_name = getattr(model, "name", "")
        self.status.set_model_state("ready", self.turn_controller.model_name)
        self.status.set_device(getattr(model, "placement", None))
        self.chat_options.set_default_model(model)
        self.chat.notice.hide()

    def _model_failed(self, error) -> None:
        self.status.set_model_state("error", EngramError.message_of(error)[:80])
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
            self.chat_names.learn(found)
            self.memories.names_changed()
            self.sessions.show_sessions(found, self.session.id if self.session else current)

        self.backend.disk(lambda engram: engram.sessions.list(engram.user, query), returned=shown)

    def refresh_after_elsewhere(self) -> None:
        """Another Engram (a window, a command, another device) wrote: show the chats and files as
        they are now (the Memories tab follows on its own). Each list reads on the disk thread;
        nothing here waits."""
        self.refresh_sessions()
        self.files.refresh()
        self.profile.refresh()

    def _after_forgetting(self) -> None:
        """Forget everywhere changed chats' words, titles and folders: show them as they are now."""
        self.refresh_sessions()
        if self.session is not None:
            self.open_session(self.session.id)

    def new_chat(self) -> None:
        if self.turn_controller.busy:
            return
        self.session = None
        self.chat.title.setText(self.tr("New chat"))
        self.chat.show_welcome()
        self.sessions.list.clearSelection()
        self.sessions.list.setCurrentItem(None)
        self.files.set_folder(None)
        self.memories.set_session(None)
        self.context.show_record(None)
        self.chat_options.show_chat(None)
        self.branches.cancel_edit()
        self.chat.composer.setFocus()

    def open_session(self, session_id: str, reveal: int | None = None) -> None:
        if self.turn_controller.busy:
            return

        def load(engram):
            session = engram.sessions.get(session_id)
            messages = engram.sessions.messages(session_id, roles=("user", "assistant"))
            records = engram.turns.for_session(session_id)
            recalled = {r.reply_message_id: len(r.recalled) for r in records}
            noted = {r.reply_message_id: found for r in records if (found := changes_of(r)) != ([], "")}
            return session, messages, recalled, noted

        self.backend.disk(load, returned=lambda loaded: self._show_session(*loaded, reveal=reveal))

    def _show_session(self, session, messages, recalled, noted, reveal=None) -> None:
        self.session = session
        self.chat.title.setText(session.title or self.tr("New chat"))
        self.chat.view.clear()
        for message in messages:
            bubble = self.chat.view.add(message.role, message.content, message.id)
            if message.role == "assistant":
                bubble.set_memories_used(recalled.get(message.id, 0))
                if message.id in noted:
                    self.show_noted(bubble, *noted[message.id], live=False)
                if message.status != "complete":
                    bubble.set_status(message.status, status_note(message.status))
        if not messages:
            self.chat.show_welcome()
        self.files.set_folder(session.folder)
        self.memories.set_session(session.id)
        self.context.show_record(None)
        self.chat_options.show_chat(session)
        self.branches.cancel_edit()
        self.branches.refresh()
        self.sessions.highlight(session.id)
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

    # -- a turn (the controller streams it; the window shows the chat it made) ------------------

    @property
    def turn(self):
        """The Worker of the reply that is streaming; None between replies."""
        return self.turn_controller.worker

    def send(self, text: str) -> None:
        editing = self.branches.take_edit()
        if editing is not None and self.session is not None:
            self.turn_controller.edit(text, self.session.id, editing)
        else:
            self.turn_controller.send(text, self.session.id if self.session else None)

    def retry(self) -> None:
        self.turn_controller.retry(self.session.id if self.session else None)

    def stop(self) -> None:
        """Esc: stop the reply; with none, cancel an edit."""
        if self.turn_controller.busy:
            self.turn_controller.stop()
        else:
            self.branches.cancel_edit()

    def _adopt_session(self, session) -> None:
        """The chat's session, once the first turn made it (or renamed it)."""
        new = self.session is None or self.session.id != session.id
        self.session = session
        self.chat_names.learn([session])
        self.chat.title.setText(session.title or self.tr("New chat"))
        if new:
            self.files.set_folder(session.folder)
            self.memories.set_session(session.id)
            self.chat_options.show_chat(session)
        self.refresh_sessions()

    def _replied(self, result) -> None:
        """A reply is stored: its context in the Context tab, and under it what the person's
        message added to their profile (with Undo), or why nothing could be."""
        self.context.show_record(result.record, self.reply_number(self.chat.view.find(result.reply.id)))
        self.branches.refresh()
        _, problem = changes_of(result.record)
        if result.noted or problem:
            bubble = self.chat.view.find(result.reply.id)
            if bubble is not None:
                self.show_noted(bubble, list(result.noted), problem, live=True)
            self.profile.refresh()

    def _show_waiting(self, count: int) -> None:
        """The Profile tab's name says how many lines wait for the person's OK."""
        name = self.tr("Profile")
        self.tabs.setTabText(self.tabs.indexOf(self.profile), f"{name} ({count})" if count else name)

    def show_noted(self, bubble, changes: list, problem: str = "", live: bool = True) -> NotedNotice:
        notice = NotedNotice(self.profile, changes, problem, live)
        notice.edit_requested.connect(self.edit_profile_line)
        bubble.add_footer(notice)
        return notice

    def edit_profile_line(self, line_id: int) -> None:
        """The Profile tab, with line ``line_id`` open for editing."""
        self.tabs.setCurrentWidget(self.profile)
        self.profile.edit_line(line_id)

    def reply_number(self, bubble) -> int | None:
        """Which reply of the open chat a bubble is (1 for the first), as the person counts them."""
        replies = [b for b in self.chat.view.bubbles if b.role == "assistant"]
        return replies.index(bubble) + 1 if bubble in replies else None

    def show_context(self, bubble) -> None:
        self.tabs.setCurrentWidget(self.context)
        number = self.reply_number(bubble)
        if bubble.turn is not None:
            self.context.show_record(bubble.turn, number)
            return
        if bubble.key is None:
            self.context.show_error(self.tr("This reply has no context record."))
            return

        def found(record):
            bubble.turn = record
            self.context.show_record(record, number)

        self.backend.disk(lambda engram: engram.turns.for_reply(bubble.key), returned=found,
                          errored=lambda e: self.context.show_error(EngramError.message_of(e)))

    # -- memory health and errors ---------------------------------------------------------------

    def refresh_health(self) -> None:
        def shown(found):
            health, to_embed, words_only, (rebuilding, rebuild_failed) = found
            watcher = self.backend.watcher
            self.status.set_health(health, to_embed, words_only,
                                   self.backend.masked(watcher.problem) if watcher is not None else "",
                                   rebuilding, self.backend.masked(rebuild_failed))

        def found(engram):
            health = engram.outbox.health()        # its errors as an error label shows them (masked, if so)
            errors = [replace(job, last_error=self.backend.masked(job.last_error)) for job in health.errors]
            health = replace(health, stalled=self.backend.masked(health.stalled), errors=errors)
            vectors = engram.store.vectors
            upkeep = vectors.upkeep() if vectors is not None else (False, "")
            return health, engram.store.pending_embeddings(), engram.embedder is None, upkeep

        self.backend.disk(found, returned=shown)

    def retry_failed_work(self) -> None:
        self.backend.disk(lambda engram: engram.outbox.retry_failed(), returned=lambda _: self.refresh_health())

    def show_error(self, error) -> None:
        self.chat.notice.show_message(explain(error), "error")

    # -- settings -------------------------------------------------------------------------------

    def open_porting(self, importing: bool):
        """File › Import… / Export…: a dialog that works on its own thread; the chats and memories
        it imports show up as soon as they are stored."""
        from engram.ui.porting_dialog import PortingDialog

        if not self.backend.ready:
            return None
        dialog = PortingDialog(self.backend.engram, importing, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.changed.connect(self.refresh_sessions)
        dialog.open()
        return dialog

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
        if self.turn_controller.busy or not self.backend.ready:
            done(InvalidInput(self.tr("Engram is busy"),
                              hint=self.tr("wait for the reply to end (or press Stop), then move")))
            return

        def move(folder):
            from engram.core.storage.relocate import move_data_dir
            from engram.core.settings import Settings

            moved = move_data_dir(folder, target)
            settings = Settings.load()
            settings.data_dir = str(moved)
            settings.save()
            return moved

        self._with_data_closed(move, self.tr("moving the data folder"), done)

    def copy_data_to(self, url: str, progress, done) -> None:
        """Copy the whole store to the server at ``url`` (engram migrate-data) with the data closed
        meanwhile, then remember the server in the settings (its password in libpq's password file)
        and reopen the data there; ``done`` gets the counts or the error.
        ``progress(what, done, total)`` is called off the GUI thread."""
        if self.turn_controller.busy or not self.backend.ready:
            done(InvalidInput(self.tr("Engram is busy"),
                              hint=self.tr("wait for the reply to end (or press Stop), then copy")))
            return
        counts = []

        def copy(folder):
            from engram.core.porting.moving import current_location, migrate_data
            from engram.core.settings import Settings
            from engram.core.storage.pgpass import remember_password

            counts.extend(migrate_data(current_location(folder), url, progress))
            settings = Settings.load()
            settings.database_url = remember_password(url)
            settings.save()
            return folder

        self._with_data_closed(copy, self.tr("copying the data to the server"),
                               lambda outcome: done(outcome if isinstance(outcome, BaseException) else counts))

    def _with_data_closed(self, work, what: str, done) -> None:
        """Close the data, run ``work(folder)`` off the GUI thread (the status says ``what``), reopen."""
        self._health.stop()
        self.new_chat()
        self.status.set_model_state("loading", what)
        self.backend.reopen(work, done)

    # -- closing --------------------------------------------------------------------------------

    def closeEvent(self, event) -> None:
        self._health.stop()
        self.stop()
        self.api.stop()
        self.backend.close()
        super().closeEvent(event)
