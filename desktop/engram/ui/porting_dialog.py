"""File › Import… and File › Export…: the person's history in from ChatGPT, Claude, markdown or an
Engram export, and everything out again, with a progress bar.

The work runs on the dialog's own thread (an import may take minutes; the disk thread stays free
for the rest of the window). Stop (or closing the dialog) ends it after the conversation in hand:
what was imported stays, and archiving into memory goes on in the outbox."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QProgressBar, QPushButton, QVBoxLayout)

from engram.core.porting import importer
from engram.core.porting.export import export
from engram.ui.notice import explain
from engram.ui.workers import Pool, Worker

SOURCES = (("chatgpt", QT_TRANSLATE_NOOP("PortingDialog", "ChatGPT export (.zip or conversations.json)")),
           ("claude", QT_TRANSLATE_NOOP("PortingDialog", "Claude export (.zip or conversations.json)")),
           ("markdown", QT_TRANSLATE_NOOP("PortingDialog", "A folder of markdown files (one chat each)")),
           ("engram", QT_TRANSLATE_NOOP("PortingDialog", "An Engram export (.json)")))
FORMATS = (("json", QT_TRANSLATE_NOOP("PortingDialog", "One JSON file")),
           ("md", QT_TRANSLATE_NOOP("PortingDialog", "A folder of markdown files")))
STEPS = 1000
EXPORTING = "exporting"         # the phase of an export's progress (chats written)


class PortingDialog(QDialog):
    """One dialog for both directions (``importing``); ``changed`` tells the window to show the
    new chats and memories."""

    changed = Signal()

    def __init__(self, engram, importing: bool, parent=None):
        super().__init__(parent)
        self.engram, self.importing = engram, importing
        self.pool = Pool(1)
        self.worker: Worker | None = None
        self._closing = False            # close once the stopped work has finished
        self._listed = False             # the window was told of the imported chats
        self.setWindowTitle(self.tr("Import conversations") if importing else self.tr("Export everything"))
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.kind = QComboBox()
        for key, label in SOURCES if importing else FORMATS:
            self.kind.addItem(QCoreApplication.translate("PortingDialog", label), key)
        form.addRow(self.tr("From") if importing else self.tr("As"), self.kind)
        self.path = QLineEdit()
        browse = QPushButton(self.tr("Choose…"))
        browse.clicked.connect(self.choose)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form.addRow(self.tr("File or folder") if importing else self.tr("Save to"), row)
        layout.addLayout(form)
        self.note = QLabel(self.tr("Each conversation becomes a chat with its own dates, and its messages become"
                                   " memories. Importing the same file again adds nothing.") if importing
                           else self.tr("Your chats with their messages and files, your memories with where each"
                                        " came from and its history, and your preferences."))
        self.note.setWordWrap(True)
        self.note.setObjectName("Muted")
        layout.addWidget(self.note)
        self.bar = QProgressBar()
        self.bar.setRange(0, STEPS)
        self.bar.hide()
        layout.addWidget(self.bar)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.buttons = QDialogButtonBox()
        self.start_button = self.buttons.addButton(self.tr("Import") if importing else self.tr("Export"),
                                                   QDialogButtonBox.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.Close)
        self.start_button.clicked.connect(self.start)
        self.close_button.clicked.connect(lambda: self.stop() if self.running else self.reject())
        layout.addWidget(self.buttons)

    def choose(self) -> None:
        key = self.kind.currentData()
        if self.importing and key == "markdown":
            chosen = QFileDialog.getExistingDirectory(self, self.tr("Folder of markdown files"))
        elif self.importing:
            chosen, _ = QFileDialog.getOpenFileName(self, self.tr("Export file"), "",
                                                    self.tr("Exports (*.zip *.json);;All files (*)"))
        elif key == "md":
            chosen = QFileDialog.getExistingDirectory(self, self.tr("An empty folder for the export"))
        else:
            chosen, _ = QFileDialog.getSaveFileName(self, self.tr("Export file"), "engram-export.json",
                                                    self.tr("JSON (*.json)"))
        if chosen:
            self.path.setText(chosen)

    # -- running ---------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.worker is not None

    def start(self) -> None:
        path = self.path.text().strip()
        if not path:
            self.status.setText(self.tr("Choose a file or folder first."))
            return
        self.start_button.setEnabled(False)
        self.kind.setEnabled(False)
        self.path.setEnabled(False)
        self.close_button.setText(self.tr("Stop"))
        self.bar.setValue(0)
        self.bar.show()
        self._listed = False
        key, engram = self.kind.currentData(), self.engram
        worker = self.worker = Worker(lambda: (self._import if self.importing else self._export)(engram, key, path,
                                                                                                  worker))
        self.pool.submit(worker, yielded=self._progress, returned=self._done, errored=self._failed,
                         finished=self._finished)

    @staticmethod
    def _import(engram, source: str, path: str, worker: Worker):
        report = importer.import_file(engram, source, path, engram.user, progress=worker.emit, stop=worker.stop)
        if report.archive_jobs and not report.stopped:
            importer.wait_archived(engram, report, progress=worker.emit, stop=worker.stop)
        return report

    @staticmethod
    def _export(engram, fmt: str, path: str, worker: Worker):
        return export(engram, engram.user, fmt, path,
                      progress=lambda done, total: worker.emit(importer.Progress(EXPORTING, done, total, done)))

    def _progress(self, step: importer.Progress) -> None:
        self.bar.setValue(STEPS * step.done // step.total if step.total else 0)
        if step.phase == importer.READING:
            self.status.setText(self.tr("Reading… {count} conversation(s) imported").format(count=step.imported))
        elif step.phase == importer.ARCHIVING:
            if not self._listed:                 # every chat is stored now: show them while they are archived
                self._listed = True
                self.changed.emit()
            self.status.setText(self.tr("Archiving into memory: {done} of {total} conversation(s)")
                                .format(done=step.done, total=step.total))
        else:
            self.status.setText(self.tr("Writing chat {done} of {total}").format(done=step.done, total=step.total))

    def _done(self, result) -> None:
        if self.importing:
            self.status.setText("<br>".join(result.lines()) + (
                "" if result.archived or not result.archive_jobs else "<br>" + self.tr(
                    "Archiving into memory goes on in the background (see the memory health below the chat).")))
            self.changed.emit()
        elif result is not None:
            self.status.setText(self.tr("Wrote {path}: {sessions} chat(s), {messages} message(s), {memories}"
                                        " memories.").format(path=result.path, sessions=result.sessions,
                                                             messages=result.messages, memories=result.memories))
        self.bar.setValue(STEPS)

    def _failed(self, error) -> None:
        self.status.setText(explain(error))
        self.bar.hide()

    def _finished(self) -> None:
        self.worker = None
        self.close_button.setText(self.tr("Close"))
        self.close_button.setEnabled(True)
        self.start_button.setEnabled(True)
        self.kind.setEnabled(True)
        self.path.setEnabled(True)
        if self._closing:
            super().reject()

    def stop(self) -> None:
        """End the import after the conversation in hand; what was imported stays."""
        if self.worker is not None:
            self.worker.stop.set()
            self.close_button.setEnabled(False)
            self.status.setText(self.tr("Stopping…"))

    def reject(self) -> None:
        """Close (Esc, the window's ×); while running, stop first and close when done."""
        if self.worker is None:
            super().reject()
            return
        self._closing = True
        self.stop()
