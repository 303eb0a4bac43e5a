"""One reply at a time, for the main window: a message sent (or, with Retry, the last one answered
again; or a sent one edited, which starts a new version of the chat), the reply streamed into its bubble on the model thread, Stop, and what a failure leaves
behind (why, in the reply's place; the person's words never lost).

The window says which chat is open (``session_id`` of ``send`` and ``retry``); the controller says
by signals when a turn made or changed that chat and when a reply is complete. Its texts keep the
window's translation context: they were the window's, and their translations stay valid.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal

from engram.core.errors import DataDirError, EngramError, InvalidInput, NotFound
from engram.ui.notice import explain

# A stored message's status as its bubble notes it.
STATUS_NOTES = {"stopped": QT_TRANSLATE_NOOP("MainWindow", "stopped"),
                "error": QT_TRANSLATE_NOOP("MainWindow", "error")}


@dataclass(frozen=True)
class Reasoning:
    """A streamed piece of the model's reasoning, told apart from a piece of the reply."""

    text: str


def status_note(status: str) -> str:
    """The note under a reply whose stored status is not ``complete``."""
    return QCoreApplication.translate("MainWindow", STATUS_NOTES[status]) if status in STATUS_NOTES else status


class TurnController(QObject):
    adopted = Signal(object)     # the Session a turn wrote to: made by a chat's first turn, or renamed by it
    replied = Signal(object)     # the TurnResult, once its bubble shows the stored reply
    reload_requested = Signal(str)   # a session id: an edit failed, show the chat as it is stored

    def __init__(self, backend, chat, status, parent=None):
        """``chat``: the ChatPanel the turn shows in; ``status``: the StatusBar that says busy or ready."""
        super().__init__(parent)
        self.backend, self.chat, self.status = backend, chat, status
        self.worker = None           # the Worker of the reply that is streaming; None between replies
        self.model_name = ""         # the chat model's, for the status bar once a reply is done
        self._reply = None           # the bubble it streams into
        self._session: dict = {}     # {"id": its session's id}, also of a new chat the turn made
        self._replaced = None        # the reply bubble a Retry replaces, hidden until the new one is stored
        self._sending = ""           # the person's words, until they are safely stored
        self._editing = False        # the turn sends an edited message
        self._thought = 0            # reasoning pieces (tokens) of the reply that is streaming

    @property
    def busy(self) -> bool:
        return self.worker is not None

    def send(self, text: str, session_id: str | None) -> None:
        """Send ``text`` in the chat ``session_id`` (None: a new chat, made by the turn)."""
        if self.busy or not text.strip():
            return
        if not self.backend.ready:
            self.chat.notice.show_message(
                QCoreApplication.translate("MainWindow", "Engram is still starting; your message is still in the box."),
                "info")
            return
        view = self.chat.view
        if session_id is None or not view.bubbles or view.bubbles[0].key is None:
            view.clear()                                   # the welcome, or an unsaved start
        self.chat.composer.clear()
        self.chat.notice.hide()
        self._sending = text
        view.add("user", text)
        self._start(session_id, text)

    def edit(self, text: str, session_id: str, message_id: int) -> None:
        """Send ``text`` in place of the person's message ``message_id``: it and what followed it
        leave the view (they are kept as another version of the chat)."""
        view = self.chat.view
        edited = view.find(message_id)
        if self.busy or not text.strip() or not self.backend.ready or edited is None:
            return
        for later in view.bubbles[view.bubbles.index(edited):]:
            view.remove(later)
        self.chat.composer.clear()
        self.chat.notice.hide()
        self._sending = text
        view.add("user", text)
        self._start(session_id, text, edit_of=message_id)

    def retry(self, session_id: str | None) -> None:
        """Replace the last reply (or the error in its place) with a new one to the same message,
        which is not sent again."""
        last = self.chat.view.last_reply()
        if (self.busy or not self.backend.ready or session_id is None or last is None
                or (last.key is None and not last.answerable)):
            return
        self.chat.notice.hide()
        last.hide()
        self._replaced = last
        self._start(session_id, None)

    def stop(self) -> None:
        if self.busy:
            self.worker.stop.set()
            self._reply.note.setText(QCoreApplication.translate("MainWindow", "stopping…"))

    # -- the turn's lifecycle -------------------------------------------------------------------

    def _start(self, session_id: str | None, text: str | None, edit_of: int | None = None) -> None:
        """Stream a reply into a new bubble: to ``text`` (in place of message ``edit_of``, when
        given), or with None to the session's last message again (Retry)."""
        self._reply = self.chat.view.add("assistant")
        self._reply.set_text("")
        self.chat.set_streaming(True)
        self.status.set_model_state("busy")
        self._session = made = {"id": session_id}
        self._thought = 0
        self._editing = edit_of is not None
        self.status.set_reasoning(0)

        def turn(engram, worker):
            streaming = {"on_token": worker.emit, "stop": worker.stop, "max_tokens": engram.settings.chat_max_tokens,
                         "on_reasoning": lambda piece: worker.emit(Reasoning(piece))}
            if text is None:
                return engram.turn_engine.regenerate(session_id, **streaming)
            if edit_of is not None:
                return engram.turn_engine.edit(session_id, edit_of, text, **streaming)
            made["id"] = session_id or engram.sessions.get_or_create(None, engram.user, title=text).id
            return engram.turn_engine.send(made["id"], text, **streaming)

        self.worker = self.backend.model(turn, yielded=self._streamed, returned=self._done, errored=self._failed)

    def _streamed(self, piece) -> None:
        """A piece of the reply, or of what the model thinks first (into the bubble's folded block)."""
        if isinstance(piece, Reasoning):
            self._thought += 1
            self._reply.append_reasoning(piece.text)
            self.status.set_reasoning(self._thought)
        else:
            self._reply.append(piece)

    def _ended(self) -> None:
        self.worker = None
        self.chat.set_streaming(False)
        self.chat.composer.setFocus()

    def _done(self, result) -> None:
        self._ended()
        if self._replaced is not None:
            self.chat.view.remove(self._replaced)
            self._replaced = None
        reply = self._reply
        reply.key, reply.turn = result.reply.id, result.record
        reply.set_text(result.reply.content or QCoreApplication.translate("MainWindow", "*(no reply)*"))
        reply.set_memories_used(len(result.record.recalled))
        if result.stopped:
            reply.set_status("stopped", status_note("stopped"))
        users = [b for b in self.chat.view.bubbles if b.role == "user"]
        if users:
            users[-1].key = result.user_message.id
            users[-1].actions["Edit"].show()
        self.chat.view._mark_last_reply()
        self.status.set_model_state("ready", result.record.recall.get("chat", {}).get("model") or self.model_name)
        self.status.set_speed(result.generation.tokens_per_second)
        self._note_speed(result)
        if result.reasoning:                # the model's own count, the tags' tokens too
            self.status.set_reasoning(result.record.tokens.get("reasoning", self._thought))
        self.replied.emit(result)
        self.adopted.emit(result.session)

    def _note_speed(self, result) -> None:
        """The speed seen here replaces the catalog's estimate for this model (Models dialog, first
        start): the chat's own model, when it has one."""
        from engram.core.models.library import note_reply

        session_id = result.session.id
        tokens, speed = result.generation.completion_tokens, result.generation.tokens_per_second
        self.backend.disk(lambda engram: note_reply(engram.settings, tokens, speed,
                                                    engram.turn_engine.chat_settings.get(session_id).model))

    def _failed(self, error) -> None:
        self._ended()
        self.status.set_model_state("ready" if isinstance(error, (InvalidInput, DataDirError)) else "error")
        if self._replaced is not None:        # a failed Retry: the old reply stays, as it does on disk
            self.chat.view.remove(self._reply)
            self._replaced.show()
            self._replaced = None
            self.chat.notice.show_message(explain(error), "error")
            return
        if self._editing and self._session["id"]:    # the view may not be what is stored: show that
            self.chat.notice.show_message(explain(error), "error")
            self.reload_requested.emit(self._session["id"])
            return
        why = QCoreApplication.translate("MainWindow", "**Engram could not reply.** {why}").format(
            why=EngramError.message_of(error))
        if hint := getattr(error, "hint", ""):
            why += "\n\n*" + QCoreApplication.translate("MainWindow", "Fix: {hint}").format(hint=hint) + "*"
        self._reply.set_text(why)
        self._reply.set_status("error", status_note("error"))
        self._keep_the_words(self._session["id"], self._sending, self._reply)

    def _keep_the_words(self, session_id: str | None, text: str, reply) -> None:
        """After a failed turn: when the person's words reached the database, the error's bubble
        offers Retry (once the cause is fixed); when not, they go back into the input box."""
        def saved(engram):
            """The chat the turn wrote to (None when none was made) and whether the words are in it."""
            try:
                session = engram.sessions.get(session_id) if session_id else None
            except NotFound:
                return None, False
            last = engram.sessions.messages(session_id, roles=("user",), last=1) if session else []
            return session, bool(last) and last[0].content == text

        def check(found):
            session, stored = found
            if session is not None:
                self.adopted.emit(session)           # made by this turn: sending again goes on in it
            if stored:
                self.chat.view.offer_answer(reply)
            elif not self.chat.composer.toPlainText().strip():
                self.chat.composer.setPlainText(text)
                self.chat.notice.show_message(
                    QCoreApplication.translate("MainWindow", "Your message was not sent; it is back in the input box."),
                    "warning")

        self.backend.disk(saved, returned=check)
