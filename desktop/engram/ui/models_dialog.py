"""Models: the catalog with what suits this machine, downloads with progress (pause, resume, cancel,
several queued) and Use, so that a person gets a real model without hunting for GGUF files.

Reading the catalog and the files runs on the backend's disk thread; downloads run on the window's
download queue (``Backend.downloads``, shared with the first-start choice), whose reports reach this
dialog through a Qt signal (delivered on the GUI thread). Closing the dialog does not stop a
download; quitting Engram pauses it, and the next Download goes on from the kept part.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView, QLabel,
                               QMessageBox, QProgressBar, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout)

from engram.core.errors import InvalidInput
from engram.core.models.download_queue import CANCELLED, DONE, DOWNLOADING, FAILED, PAUSED, QUEUED
from engram.core.models.downloads import format_duration, format_size
from engram.core.models.library import SETTING_OF_KIND
from engram.ui import language
from engram.ui.model_source import SourcePicker, mirror_actions, source_name
from engram.ui.notice import Notice, explain, translated

NAME_ROLE = Qt.UserRole
# What the window refreshes after a model of each kind is chosen or removed (a reranker: nothing).
_GROUPS: dict[str, set[str]] = {"chat": {"chat"}, "embedding": {"embedding"}, "reranker": set()}


class ModelsDialog(QDialog):
    applied = Signal(set)       # as SettingsDialog's: {"chat"} or {"embedding"} after Use or Remove

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.library = None          # ModelLibrary, read on the disk thread
        self.queue = None            # the window's DownloadQueue, once the library is read
        self.statuses: dict = {}     # name -> ModelStatus
        self.downloads: dict = {}    # name -> the latest DownloadState
        backend.download_changed.connect(self._download_changed)
        self.setWindowTitle(self.tr("Models"))
        self.resize(1060, 640)

        layout = QVBoxLayout(self)
        self.notice = Notice()
        self.notice.hide()
        layout.addWidget(self.notice)
        self.source = SourcePicker(backend)
        self.source.changed.connect(lambda _: self.load())
        layout.addWidget(self.source)
        self.machine = QLabel()
        self.machine.setWordWrap(True)
        layout.addWidget(self.machine)
        self.table = QTableWidget(0, 8)
        self.table.setHorizontalHeaderLabels([self.tr("Model"), self.tr("Kind"), self.tr("Size"),
                                              self.tr("Memory"), self.tr("Languages"), self.tr("Tools"),
                                              self.tr("This computer"), self.tr("Status")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setSectionResizeMode(7, QHeaderView.Stretch)
        self.table.itemSelectionChanged.connect(self._selected)
        layout.addWidget(self.table, 1)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setObjectName("Muted")
        self.details.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(self.details)

        row = QHBoxLayout()
        self.download_button = QPushButton(self.tr("Download"))
        self.pause_button = QPushButton(self.tr("Pause"))
        self.cancel_button = QPushButton(self.tr("Cancel download"))
        self.use_button = QPushButton(self.tr("Use"))
        self.remove_button = QPushButton(self.tr("Remove…"))
        for button, slot in ((self.download_button, self.download), (self.pause_button, self.pause),
                             (self.cancel_button, self.cancel), (self.use_button, self.use),
                             (self.remove_button, self.remove)):
            button.clicked.connect(slot)
            button.setEnabled(False)
            row.addWidget(button)
        row.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        row.addWidget(buttons)
        layout.addLayout(row)

    # -- the catalog ------------------------------------------------------------------------------

    def load(self) -> None:
        """Read the catalog and what is on this machine (on the disk thread), then show them."""
        def read(engram):
            library = person_library(engram, self.library)
            return library, library.statuses()

        if self.backend.disk(read, returned=self._show, errored=self._failed) is None:
            self.notice.show_message(self.tr("Engram's data is not open yet; try again in a moment."), "warning")

    def _show(self, result) -> None:
        self.library, statuses = result
        self.queue = self.backend.downloads(self.library)
        self.source.show_setting(self.library.settings)
        self.machine.setText(self.tr("This computer: {machine}. ★ recommended for it and for you · ✓ fits · ~ fits"
                                     " but slow · ✗ too big; tokens a second: ≈ estimated, else measured here."
                                     " Downloads come from {source} ({mirror}).").format(
            machine=html.escape(translated(self.library.machine.describe())), source=source_name(self.library.source),
            mirror=html.escape(self._base())))
        selected = self.selected_name()
        self.statuses = {s.entry.name: s for s in statuses}
        self.table.setRowCount(len(statuses))
        for row, status in enumerate(statuses):
            e = status.entry
            cells = (e.title, {"chat": self.tr("chat"), "reranker": self.tr("reranker")}.get(e.kind, self.tr("embedding")),
                     format_size(e.size), f"{e.ram_gb:.1f} GB",
                     " ".join(e.languages[:4]) + (" …" if len(e.languages) > 4 else ""),
                     self.tr("yes") if e.tools else self.tr("no"), self._fit_text(status.fit, e.kind))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(NAME_ROLE, e.name)
                self.table.setItem(row, column, item)
            if e.kind == "chat":
                self.table.item(row, 6).setToolTip(translated(status.fit.basis))
            self._show_status(row, e.name)
            if e.name == selected:
                self.table.selectRow(row)
        self._selected()

    def _fit_text(self, fit, kind: str) -> str:
        label = {"recommended": self.tr("★ recommended"), "fits": self.tr("✓ fits"),
                 "fits, slow": self.tr("~ fits, slow"), "too big": self.tr("✗ too big")}[fit.label]
        return label if kind != "chat" else label + " · " + speed_text(fit)

    def _base(self) -> str:
        try:
            return self.library.mirror
        except InvalidInput as e:           # a custom source without its base URL yet
            return translated(e.said[0])

    def _row_of(self, name: str) -> int:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).data(NAME_ROLE) == name:
                return row
        return -1

    def _show_status(self, row: int, name: str) -> None:
        """The Status cell: a progress bar while downloading or paused, else words."""
        status, download = self.statuses[name], self.downloads.get(name)
        if download is not None and download.state in (QUEUED, DOWNLOADING, PAUSED):
            bar = self.table.cellWidget(row, 7)
            if not isinstance(bar, QProgressBar):
                bar = QProgressBar()
                bar.setRange(0, 1000)
                self.table.setCellWidget(row, 7, bar)
            progress = download.progress
            fraction = progress.fraction if progress is not None else None
            if fraction is None and download.state == PAUSED and status.entry.size:
                fraction = min(1.0, status.partial / status.entry.size)
            bar.setValue(int(1000 * (fraction or 0)))
            if download.state == QUEUED:
                bar.setFormat(self.tr("queued"))
            elif download.state == PAUSED:
                bar.setFormat(self.tr("paused at {percent:.0%}").format(percent=fraction or 0))
            else:
                bar.setFormat(self._progress_text(progress))
            return
        self.table.removeCellWidget(row, 7)
        if status.installed:
            text = self.tr("in use") if status.in_use else (
                self.tr("bundled") if status.entry.bundled else self.tr("installed"))
        elif status.partial:
            text = self.tr("paused: {size} kept").format(size=format_size(status.partial))
        elif status.entry.bundled:
            text = self.tr("not in this build")
        else:
            text = ""
        if download is not None and download.state == FAILED:
            text = self.tr("failed (see above)")
        self.table.setItem(row, 7, QTableWidgetItem(text))
        self.table.item(row, 7).setData(NAME_ROLE, name)

    def _progress_text(self, progress) -> str:
        if progress is None:
            return self.tr("starting…")
        if progress.state == "checking":
            return self.tr("checking the part kept from before…")
        if progress.state == "verifying":
            return self.tr("verifying the checksum…")
        text = self.tr("%p% · {done} of {total} · {speed}/s").format(
            done=format_size(progress.done), total=format_size(progress.total), speed=format_size(int(progress.speed)))
        if (eta := progress.eta_s) is not None:
            text += " · " + self.tr("{time} left").format(time=translated(format_duration(eta)))
        return text

    def selected_name(self) -> str | None:
        items = self.table.selectedItems()
        return items[0].data(NAME_ROLE) if items else None

    def select(self, name: str) -> None:
        self.table.selectRow(self._row_of(name))

    def _selected(self) -> None:
        name = self.selected_name()
        status = self.statuses.get(name)
        state = self.downloads[name].state if name in self.downloads else None
        active = state in (QUEUED, DOWNLOADING)
        downloadable = status is not None and not status.entry.bundled and not status.installed
        self.download_button.setEnabled(downloadable and not active)
        self.download_button.setText(self.tr("Resume") if downloadable and status.partial and not active
                                     else self.tr("Download"))
        self.pause_button.setEnabled(active)
        self.cancel_button.setEnabled(downloadable and (active or bool(status.partial)))
        self.use_button.setEnabled(status is not None and status.installed and not status.in_use)
        self.remove_button.setEnabled(status is not None and not status.entry.bundled
                                      and (status.installed or bool(status.partial)) and not active)
        if status is None:
            self.details.setText("")
            return
        e = status.entry
        lines = [f"<b>{html.escape(e.title)}</b> · {html.escape(e.family)} · {e.parameters_b:g} B ·"
                 f" {html.escape(e.quantisation)} · {e.context_length:,} " + self.tr("tokens of context") + " · "
                 + self.tr("licence: {licence}").format(licence=html.escape(e.licence))]
        if e.chat_template:
            lines.append(self.tr("Chat template: {notes}").format(
                notes=html.escape(e.said("chat_template", language.current))))
        if e.kind == "chat":
            lines.append(self.tr("Speed here: {speed} ({basis})").format(
                speed=speed_text(status.fit), basis=html.escape(translated(status.fit.basis))))
        lines.append(html.escape(str(status.path) if e.bundled or status.installed else self._url(e)))
        if not e.sha256 and not e.bundled and not status.installed:
            lines.append(self.tr("Checked at download against the sha256 the server states for the file."))
        if e.note:
            lines.append(html.escape(e.said("note", language.current)))
        self.details.setText("<br>".join(lines))

    # -- actions ----------------------------------------------------------------------------------

    def download(self) -> None:
        if (name := self.selected_name()) is not None and self.queue is not None:
            self.notice.hide()
            self.queue.add(name)

    def pause(self) -> None:
        if (name := self.selected_name()) is not None and self.queue is not None:
            self.queue.pause(name)

    def cancel(self) -> None:
        if (name := self.selected_name()) is not None and self.queue is not None:
            queue = self.queue            # a cancel deletes the partial file: on the disk thread
            self.backend.disk(lambda _engram: queue.cancel(name), returned=lambda _: self.load(),
                              errored=self._failed)

    def _url(self, entry) -> str:
        try:
            return self.library.url(entry)
        except InvalidInput as e:           # not on this source: say so where the URL would be
            return translated(e.said[0])

    def _download_changed(self, state) -> None:
        self.downloads[state.name] = state
        if state.state == FAILED:
            self.notice.show_message(explain(state.error), "error",
                                     mirror_actions(state.error, self.source, lambda: self._retry(state.name)))
        if state.state in (DONE, FAILED, CANCELLED, PAUSED):
            self.load()                  # what is on disk now
        elif (row := self._row_of(state.name)) >= 0:
            self._show_status(row, state.name)
        if state.name == self.selected_name():
            self._selected()

    def _retry(self, name: str) -> None:
        self.notice.hide()
        if self.queue is not None:
            self.queue.add(name)

    def use(self) -> None:
        name = self.selected_name()
        if name is None or self.library is None:
            return
        library, kind = self.library, self.statuses[name].entry.kind

        def choose(engram):
            key, value = library.setting_for(name)
            if kind == "embedding":
                engram.use_embedding_model(value)     # one that does not load changes nothing
            elif kind == "reranker":
                engram.use_rerank_model(value)
            library.use(name)
            engram.apply_settings({key})              # a new chat model loads on its next use
            return _GROUPS[kind]

        self.notice.show_message(self.tr("Loading {name}…").format(name=html.escape(name)), "info")
        self.backend.disk(choose, returned=self._used, errored=self._failed)

    def _used(self, groups: set) -> None:
        self.notice.show_message(self.tr("Saved. Engram uses it from now on."), "info")
        self.applied.emit(groups)
        self.load()

    def remove(self) -> None:
        name = self.selected_name()
        if name is None or self.library is None:
            return
        status = self.statuses[name]
        question = self.tr("Delete {name} from this computer?").format(name=status.entry.title)
        if status.in_use:
            question += " " + self.tr("It is in use: Engram goes back to the default model.")
        if QMessageBox.question(self, self.tr("Remove model"), question,
                                QMessageBox.Yes | QMessageBox.Cancel) != QMessageBox.Yes:
            return
        library, in_use, kind = self.library, status.in_use, status.entry.kind

        def delete(engram):
            if in_use and kind == "embedding":
                engram.use_embedding_model("")        # the bundled one, before its file goes
            elif in_use and kind == "reranker":
                engram.use_rerank_model("")           # none, before its file goes
            done = library.remove(name)
            if in_use:
                engram.apply_settings({SETTING_OF_KIND[kind]})
            return done

        def removed(done) -> None:
            self.notice.show_message(html.escape("; ".join(done)), "info")
            if in_use:
                self.applied.emit(_GROUPS[kind])
            self.load()

        self.backend.disk(delete, returned=removed, errored=self._failed)

    def _failed(self, error) -> None:
        self.notice.show_message(explain(error), "error")


def speed_text(fit) -> str:
    """A chat model's pace here: measured, or ≈ the estimate."""
    words = QCoreApplication.translate("ModelsDialog", "{speed:.1f} tokens/s").format(speed=fit.tokens_per_second)
    return words if fit.measured else "≈ " + words


def person_library(engram, library=None):
    """The catalog as it suits this machine and this person (the window's language or the reply
    language preferred): ``library`` again when it still reads these settings. On the disk thread."""
    from engram.core.models.fit import language_of
    from engram.core.models.library import ModelLibrary

    wanted = language_of(language.current, str(engram.preferences.get(engram.user).get("language", "")))
    if library is not None and library.settings is engram.settings:    # not after a reopen
        library.language = wanted
        return library
    return ModelLibrary(engram.settings, language=wanted)
