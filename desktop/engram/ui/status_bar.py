"""The status bar: the chat model's state and the device it runs on, the speed of the last reply, and memory health
(background work pending or failed, session files not indexed, the search index being rebuilt or
not rebuilt, with a way to see the errors and retry)."""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import QLabel, QMenu, QMessageBox, QStatusBar, QToolButton


STATE_TEXT = {"starting": QT_TRANSLATE_NOOP("StatusBar", "◌ Starting…"),
              "loading": QT_TRANSLATE_NOOP("StatusBar", "◌ Loading model…"),
              "ready": QT_TRANSLATE_NOOP("StatusBar", "● Ready"),
              "error": QT_TRANSLATE_NOOP("StatusBar", "✕ Model error"),
              "busy": QT_TRANSLATE_NOOP("StatusBar", "◉ Replying…")}
STATE_COLOUR = {"ready": "#2e9e6a", "error": "#c0392b", "loading": "#b7791f", "busy": "#6a4de0", "starting": "gray"}


class StatusBar(QStatusBar):
    retry_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self.model = QLabel()
        self.device = QLabel()
        self.speed = QLabel()
        self.speed.setToolTip(self.tr("Generation speed of the last reply"))
        self.reasoning = QLabel()
        self.reasoning.setToolTip(self.tr("Tokens the model spent reasoning before the reply"))
        self.health = QToolButton()
        self.health.setObjectName("HealthButton")
        self.health.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.health)
        self.errors_action = menu.addAction(self.tr("Show errors…"), self._show_errors)
        self.retry_action = menu.addAction(self.tr("Retry failed work"), self.retry_requested.emit)
        self.health.setMenu(menu)
        self.addPermanentWidget(self.health)
        self.addPermanentWidget(self.reasoning)
        self.addPermanentWidget(self.speed)
        self.addPermanentWidget(self.model)
        self.addPermanentWidget(self.device)
        self.state = ""
        self._errors: list = []
        self._stalled = self._files_problem = self._rebuild_failed = ""
        self.set_model_state("starting")
        self.set_health(None)

    def set_model_state(self, state: str, detail: str = "") -> None:
        self.state = state
        shown = self.tr(STATE_TEXT[state]) if state in STATE_TEXT else state
        self.model.setText(f"<span style='color:{STATE_COLOUR.get(state, 'gray')}'>{shown}"
                           f"</span>{(' ' + html.escape(detail)) if detail else ''}")
        self.model.setToolTip(detail)

    def set_device(self, placement) -> None:
        """Where the chat model runs (a gpu.Placement, worked out when it loaded; None: not known)."""
        if placement is None:
            self.device.setText("")
            self.device.setToolTip("")
            return
        on_gpu = placement.layers != 0 and placement.device.gpu
        self.device.setText(self.tr("{backend} ({layers} layers)").format(
            backend=placement.device.backend, layers=placement.layers_text()) if on_gpu else self.tr("CPU"))
        self.device.setToolTip(self.tr("The chat model runs on: {where}").format(where=placement.describe()))

    def set_speed(self, tokens_per_second: float) -> None:
        self.speed.setText(self.tr("{speed} tokens/s").format(speed=f"{tokens_per_second:.1f}")
                           if tokens_per_second > 0 else "")

    def set_reasoning(self, tokens: int) -> None:
        self.reasoning.setText(self.tr("reasoning: %n tokens", "", tokens) if tokens else "")

    def set_health(self, health, to_embed: int = 0, words_only: bool = False, files_problem: str = "",
                   rebuilding: bool = False, rebuild_failed: str = "") -> None:
        """Show an Outbox.health() (pending, failed, retrying, errors), or 'unknown' before it is open;
        with how many memories wait for the embedding model, or that there is none (words only),
        why the session files watcher could not index a change (``files_problem``), and whether the
        search index of meaning is being rebuilt (after an upgrade, an hour at a million memories on
        a server) or why that stopped (``rebuild_failed``; the old index serves meanwhile)."""
        if health is None:
            self.health.setText(self.tr("Memory: …"))
            self.health.setProperty("state", "")
            self.errors_action.setEnabled(False)
            self.retry_action.setEnabled(False)
        else:
            self._errors = list(health.errors)
            self._stalled, self._files_problem, self._rebuild_failed = health.stalled, files_problem, rebuild_failed
            bad = health.failed > 0 or bool(health.stalled) or bool(files_problem) or bool(rebuild_failed)
            parts = [self.tr("stopped, see errors")] if health.stalled else []
            parts += [self.tr("files not indexed, see errors")] if files_problem else []
            parts += [self.tr("search index not rebuilt, see errors")] if rebuild_failed else []
            parts += [self.tr("rebuilding the search index")] if rebuilding else []
            parts += [self.tr("words only")] if words_only else []
            parts += [self.tr("{count} pending").format(count=health.pending)] if health.pending else []
            parts += [self.tr("{count:,} to embed").format(count=to_embed)] if to_embed else []
            parts += [self.tr("{count} failed").format(count=health.failed)] if health.failed else []
            state = self.tr(", ").join(parts) or self.tr("up to date")
            self.health.setText(self.tr("Memory: {state}").format(state=state))
            self.health.setProperty("state", "bad" if bad else "ok")
            tip = self.tr("Background memory work (archiving, embedding, summaries).")
            if health.retrying:
                tip += " " + self.tr("{count} retrying.").format(count=health.retrying)
            if words_only:
                tip += " " + self.tr("No embedding model: memories are found by their words.")
            if rebuilding:
                tip += " " + self.tr("The search index of meaning is built again for this version;"
                                     " searches use the old one until it is done.")
            self.health.setToolTip(tip)
            self.errors_action.setEnabled(bool(self._errors or self._stalled or files_problem or rebuild_failed))
            self.retry_action.setEnabled(health.failed > 0)
        self.health.style().unpolish(self.health)
        self.health.style().polish(self.health)

    def _show_errors(self) -> None:
        lines = ([self.tr("Background work has stopped and tries again every few seconds: {why}").format(
            why=self._stalled)] if self._stalled else [])
        if self._files_problem:
            lines.append(self.tr("A change to a session file could not be indexed: {why}").format(
                why=self._files_problem))
        if self._rebuild_failed:
            lines.append(self.tr("The search index of meaning could not be rebuilt for this version: {why}."
                                 " Searches go on with the old one; Engram tries again at its next start.").format(
                why=self._rebuild_failed))
        lines += [self.tr("#{id} {kind} ({state}, %n attempts): {why}", "", job.attempts).format(
            id=job.id, kind=job.kind, state=job.state, why=job.last_error) for job in self._errors]
        if self._stalled:
            summary = self.tr("Background memory work has stopped: the database cannot record it.")
        else:
            jobs = len(self._errors)
            summary = self.tr("%n background jobs had errors.", "", jobs)
            if self._files_problem:
                summary += " " + self.tr("A session file could not be indexed.")
            if self._rebuild_failed:
                summary += " " + self.tr("The search index could not be rebuilt.")
        box = QMessageBox(QMessageBox.Warning, self.tr("Memory work errors"), summary, QMessageBox.Close, self)
        box.setDetailedText("\n\n".join(lines))
        box.open()
