"""The first start's choice, above the chat: the model recommended for this computer and this
person (one click downloads it and Engram uses it once it is there), another from the catalog, a
GGUF file the person has, or the demo first. Meanwhile the demo model answers. Once something is
chosen (the ``first_start`` setting) it is not offered again: Settings › Models keeps everything.

What to recommend is read on the disk thread; the download runs on the window's download queue
(``Backend.downloads``, shared with the Models dialog) and reports here through a Qt signal.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout

from engram.core.models.download_queue import CANCELLED, DONE, FAILED, PAUSED
from engram.core.models.downloads import format_duration, format_size
from engram.ui.model_source import SourcePicker, mirror_actions, source_name
from engram.ui.models_dialog import person_library, speed_text
from engram.ui.notice import Notice, explain, translated


class FirstStart(QFrame):
    chosen = Signal(set)              # {"chat"}: the chat model setting changed, load it
    catalog_requested = Signal()      # "Another model…": the Models dialog

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.setObjectName("Notice")
        self.backend = backend
        self.library = None
        self.offered = None           # the recommended ModelStatus
        self.rate = 0.0               # bytes a second measured here before, 0 if never
        backend.download_changed.connect(self._download_changed)

        column = QVBoxLayout(self)
        column.setContentsMargins(12, 10, 12, 10)
        title = QLabel(self.tr("<b>Choose the model Engram answers with</b> — the tiny demo model answers"
                               " meanwhile."))
        column.addWidget(title)
        self.offer_text = QLabel(self.tr("Finding the model that suits this computer…"))
        self.offer_text.setWordWrap(True)
        self.offer_text.setTextFormat(Qt.RichText)
        column.addWidget(self.offer_text)
        self.source = SourcePicker(backend)
        self.source.changed.connect(lambda _: self.offer())
        column.addWidget(self.source)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.hide()
        column.addWidget(self.progress)
        self.problem = Notice()
        column.addWidget(self.problem)
        row = QHBoxLayout()
        self.download_button = QPushButton(self.tr("Download and use it"))
        self.download_button.setObjectName("Primary")
        self.download_button.setEnabled(False)
        self.other_button = QPushButton(self.tr("Another model…"))
        self.file_button = QPushButton(self.tr("A GGUF file I have…"))
        self.demo_button = QPushButton(self.tr("Try the demo first"))
        for button, slot in ((self.download_button, self.download), (self.other_button, self.other_model),
                             (self.file_button, self.choose_file), (self.demo_button, self.demo)):
            button.clicked.connect(slot)
            row.addWidget(button)
        row.addStretch(1)
        column.addLayout(row)
        self.hide()

    # -- what to offer -----------------------------------------------------------------------------

    def offer(self) -> None:
        """Show the choice with the recommendation for this computer and this person."""
        def read(engram):
            library = person_library(engram, self.library)
            recommended = [s for s in library.statuses() if s.fit.recommended]
            return library, recommended[0] if recommended else None, library.measurements().download_bytes_per_second

        self.show()
        self.backend.disk(read, returned=self._offered, errored=lambda e: self.problem.show_message(explain(e), "error"))

    def _offered(self, found) -> None:
        self.library, self.offered, self.rate = found
        self.source.show_setting(self.library.settings)
        status = self.offered
        if status is None:
            self.offer_text.setText(self.tr("No model of the catalog fits this computer's memory; choose a GGUF file"
                                            " you have, or keep the demo."))
            self.download_button.setEnabled(False)
            return
        e = status.entry
        strengths = []
        if e.tools:
            strengths.append(self.tr("uses tools (memory search, session files)"))
        if "zh" in e.languages:
            strengths.append(self.tr("writes Chinese and English"))
        if self.rate:
            duration = self.tr("about {time} to download at the {rate}/s measured here").format(
                time=translated(format_duration((e.size or 0) / self.rate)), rate=format_size(int(self.rate)))
        else:
            duration = self.tr("its download time is shown once it starts, at the rate measured then")
        self.offer_text.setText(self.tr(
            "Recommended for this computer: <b>{model}</b> ({family}, {parameters:g} B) · {strengths} ·"
            " {size} · {speed} here <span style='color:gray'>({basis})</span> · {duration}.").format(
            model=html.escape(e.title), family=html.escape(e.family), parameters=e.parameters_b,
            strengths=", ".join(strengths) or self.tr("English only"), size=format_size(e.size),
            speed=speed_text(status.fit), basis=html.escape(translated(status.fit.basis)), duration=duration))
        self.download_button.setText(self.tr("Download and use {model}").format(model=e.title))
        self.download_button.setEnabled(not status.installed)

    # -- the four choices ------------------------------------------------------------------------

    def download(self) -> None:
        """One click: the recommended model downloads in the background and is used once it is there."""
        if self.offered is None or self.library is None:
            return
        self._remember("download")
        self.problem.hide()
        self.download_button.hide()               # the bar takes its place while it runs
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("starting…"))
        self.progress.show()
        self.backend.downloads(self.library).add(self.offered.entry.name)

    def other_model(self) -> None:
        self._remember("catalog")
        self.hide()
        self.catalog_requested.emit()

    def choose_file(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, self.tr("Choose the chat model"), "",
                                                self.tr("GGUF models (*.gguf);;All files (*)"))
        if chosen:
            self._remember("file", chat_model=chosen)
            self.hide()

    def demo(self) -> None:
        self._remember("demo")
        self.hide()

    def _remember(self, choice: str, chat_model: str | None = None) -> None:
        """Save the choice (and a chosen model) on the disk thread; a new chat model then loads."""
        def write(engram):
            engram.settings.first_start = choice
            if chat_model is not None:
                engram.settings.chat_model = chat_model
                engram.apply_settings({"chat_model"})
            engram.settings.save()

        self.backend.disk(write, returned=lambda _: chat_model is not None and self.chosen.emit({"chat"}))

    # -- the download ----------------------------------------------------------------------------

    def _download_changed(self, state) -> None:
        if self.offered is None or state.name != self.offered.entry.name or not self.isVisible():
            return
        if state.state == DONE:
            self._use(state.name)
        elif state.state == FAILED:
            self.progress.hide()
            self.download_button.show()
            self.problem.show_message(explain(state.error), "error",
                                      mirror_actions(state.error, self.source, self.download))
        elif state.state in (PAUSED, CANCELLED):
            self.progress.hide()
            self.download_button.show()
        elif (progress := state.progress) is not None and progress.fraction is not None:
            self.progress.setValue(int(1000 * progress.fraction))
            text = self.tr("%p% · {done} of {total} · {speed}/s from {source}").format(
                done=format_size(progress.done), total=format_size(progress.total),
                speed=format_size(int(progress.speed)), source=source_name(self.library.source))
            if (eta := progress.eta_s) is not None:
                text += " · " + self.tr("{time} left").format(time=translated(format_duration(eta)))
            self.progress.setFormat(text)

    def _use(self, name: str) -> None:
        library = self.library

        def choose(engram):
            library.use(name)
            engram.apply_settings({"chat_model"})     # loads on its next use: the window loads it now

        self.progress.setFormat(self.tr("Downloaded and checked; loading it…"))
        self.backend.disk(choose, returned=lambda _: (self.hide(), self.chosen.emit({"chat"})),
                          errored=lambda e: self.problem.show_message(explain(e), "error"))
