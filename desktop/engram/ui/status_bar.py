"""The status bar: the chat model's state, the speed of the last reply, and memory health
(background work pending or failed, with a way to see the errors and retry)."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QMenu, QMessageBox, QStatusBar, QToolButton


STATE_TEXT = {"starting": "◌ Starting…", "loading": "◌ Loading model…", "ready": "● Ready",
              "error": "✕ Model error", "busy": "◉ Replying…"}
STATE_COLOUR = {"ready": "#2e9e6a", "error": "#c0392b", "loading": "#b7791f", "busy": "#6a4de0", "starting": "gray"}


class StatusBar(QStatusBar):
    retry_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self.model = QLabel()
        self.speed = QLabel()
        self.speed.setToolTip("Generation speed of the last reply")
        self.health = QToolButton()
        self.health.setObjectName("HealthButton")
        self.health.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.health)
        self.errors_action = menu.addAction("Show errors…", self._show_errors)
        self.retry_action = menu.addAction("Retry failed work", self.retry_requested.emit)
        self.health.setMenu(menu)
        self.addPermanentWidget(self.health)
        self.addPermanentWidget(self.speed)
        self.addPermanentWidget(self.model)
        self.state = ""
        self._errors: list = []
        self._stalled = self._files_problem = ""
        self.set_model_state("starting")
        self.set_health(None)

    def set_model_state(self, state: str, detail: str = "") -> None:
        self.state = state
        self.model.setText(f"<span style='color:{STATE_COLOUR.get(state, 'gray')}'>{STATE_TEXT.get(state, state)}"
                           f"</span>{(' ' + html.escape(detail)) if detail else ''}")
        self.model.setToolTip(detail)

    def set_speed(self, tokens_per_second: float) -> None:
        self.speed.setText(f"{tokens_per_second:.1f} tokens/s" if tokens_per_second > 0 else "")

    def set_health(self, health, to_embed: int = 0, words_only: bool = False, files_problem: str = "") -> None:
        """Show an Outbox.health() (pending, failed, retrying, errors), or 'unknown' before it is open;
        with how many memories wait for the embedding model, or that there is none (words only), and
        why the session files watcher could not index a change (``files_problem``)."""
        if health is None:
            self.health.setText("Memory: …")
            self.health.setProperty("state", "")
            self.errors_action.setEnabled(False)
            self.retry_action.setEnabled(False)
        else:
            self._errors = list(health.errors)
            self._stalled, self._files_problem = health.stalled, files_problem
            bad = health.failed > 0 or bool(health.stalled) or bool(files_problem)
            parts = ["stopped, see errors"] if health.stalled else []
            parts += ["files not indexed, see errors"] if files_problem else []
            parts += ["words only"] if words_only else []
            parts += [f"{health.pending} pending"] if health.pending else []
            parts += [f"{to_embed:,} to embed"] if to_embed else []
            parts += [f"{health.failed} failed"] if health.failed else []
            self.health.setText("Memory: " + (", ".join(parts) or "up to date"))
            self.health.setProperty("state", "bad" if bad else "ok")
            self.health.setToolTip("Background memory work (archiving, embedding, summaries)."
                                   + (f" {health.retrying} retrying." if health.retrying else "")
                                   + (" No embedding model: memories are found by their words." if words_only else ""))
            self.errors_action.setEnabled(bool(self._errors or self._stalled or files_problem))
            self.retry_action.setEnabled(health.failed > 0)
        self.health.style().unpolish(self.health)
        self.health.style().polish(self.health)

    def _show_errors(self) -> None:
        lines = ([f"Background work has stopped and tries again every few seconds: {self._stalled}"]
                 if self._stalled else [])
        if self._files_problem:
            lines.append(f"A change to a session file could not be indexed: {self._files_problem}")
        lines += [f"#{job.id} {job.kind} ({job.state}, {job.attempts} attempts): {job.last_error}"
                  for job in self._errors]
        summary = ("Background memory work has stopped: the database cannot record it." if self._stalled
                   else f"{len(self._errors)} background job(s) had errors."
                   + (" A session file could not be indexed." if self._files_problem else ""))
        box = QMessageBox(QMessageBox.Warning, "Memory work errors", summary, QMessageBox.Close, self)
        box.setDetailedText("\n\n".join(lines))
        box.open()
