"""Where catalog models download from, chosen in the window: Hugging Face, hf-mirror.com,
ModelScope or a base URL of one's own (core/models/sources.py). A choice is saved at once (on the
disk thread), so the next Download uses it; the Models dialog and the first-start choice show it."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from engram.core.errors import SourceUnreachable
from engram.core.models import sources

LABELS = {sources.HUGGING_FACE: QT_TRANSLATE_NOOP("SourcePicker", "Hugging Face"),
          sources.HF_MIRROR: QT_TRANSLATE_NOOP("SourcePicker", "hf-mirror.com (the hub's files, reachable in China)"),
          sources.MODELSCOPE: QT_TRANSLATE_NOOP("SourcePicker", "ModelScope (魔搭; Qwen, Llama and Gemma models)"),
          sources.CUSTOM: QT_TRANSLATE_NOOP("SourcePicker", "A base URL of my own (the hub's paths)")}


def source_name(source: str) -> str:
    """A source by its name (a custom one, as such)."""
    return sources.NAMES.get(source) or QCoreApplication.translate("SourcePicker", "my own base URL")


class SourcePicker(QWidget):
    changed = Signal(str)        # the source now in use, once saved

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel(self.tr("Download from")))
        self.combo = QComboBox()
        for source in sources.SOURCES:
            self.combo.addItem(self.tr(LABELS[source]), source)
        self.custom = QLineEdit(placeholderText=self.tr("https://my-mirror.example (the hub's paths)"))
        self.custom.setMinimumWidth(260)
        row.addWidget(self.combo)
        row.addWidget(self.custom, 1)
        row.addStretch(0)
        self.combo.activated.connect(lambda _: self.save())
        self.custom.editingFinished.connect(self.save)

    def show_setting(self, settings) -> None:
        """Show the source the settings name (without saving anything)."""
        self.combo.setCurrentIndex(self.combo.findData(sources.chosen(settings.model_source, settings.model_mirror)))
        self.custom.setText(settings.model_mirror)
        self.custom.setVisible(self.source() == sources.CUSTOM)

    def source(self) -> str:
        return self.combo.currentData()

    def choose(self, source: str) -> None:
        """Switch to a source and save it (e.g. a mirror the window suggested)."""
        self.combo.setCurrentIndex(self.combo.findData(source))
        self.save()

    def save(self) -> None:
        source, mirror = self.source(), self.custom.text().strip()
        self.custom.setVisible(source == sources.CUSTOM)
        if source == sources.CUSTOM and not mirror:
            self.custom.setFocus()          # saved once a base URL is typed
            return

        def write(engram):
            engram.settings.model_source = source
            engram.settings.model_mirror = mirror
            engram.settings.save()
            return source

        self.backend.disk(write, returned=self.changed.emit)


def mirror_actions(error: BaseException, picker: SourcePicker, retry) -> list:
    """When the source could not be reached, buttons that switch to a mirror (hf-mirror.com, then
    ModelScope: the usual routes in China) and try again; else none."""
    if not isinstance(error, SourceUnreachable):
        return []

    def switch(source: str):
        def run() -> None:
            picker.changed.connect(lambda _: retry(), type=Qt.SingleShotConnection)
            picker.choose(source)
        return run

    return [(QCoreApplication.translate("SourcePicker", "Use {source}").format(source=source_name(source)),
             switch(source)) for source in sources.CHINA if source != picker.source()]
