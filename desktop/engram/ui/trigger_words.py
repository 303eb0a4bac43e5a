"""The trigger words of Settings: the English and the Chinese list (core/conversation/triggers.py), edited as
comma-separated text, each with a way back to its defaults."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from engram.core.conversation.triggers import CHINESE, ENGLISH

_SEPARATORS = re.compile(r"[,，、;；\n]")      # what a person separates words with, in either language
EN_SEPARATOR, ZH_SEPARATOR = ", ", "、"


def words_of(text: str) -> list[str]:
    return [word.strip() for word in _SEPARATORS.split(text) if word.strip()]


class TriggerWordsEdit(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.english = self._row(form, self.tr("English (whole words)"), ENGLISH, EN_SEPARATOR)
        self.chinese = self._row(form, self.tr("Chinese (anywhere)"), CHINESE, ZH_SEPARATOR)
        note = QLabel(self.tr("A message with one of these words, or a question about you (“What is my dog’s"
                              " name?”), asks about the past: with “Only when you ask about the past” it is the"
                              " only kind of message that searches your memories; otherwise such a message"
                              " recalls more of them."))
        note.setObjectName("Muted")
        note.setWordWrap(True)
        form.addRow(note)

    def _row(self, form: QFormLayout, label: str, defaults: tuple[str, ...], separator: str) -> QLineEdit:
        edit = QLineEdit(placeholderText=self.tr("(none)"))
        reset = QPushButton(self.tr("Default"))
        reset.clicked.connect(lambda: edit.setText(separator.join(defaults)))
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(reset)
        form.addRow(label, row)
        return edit

    def set_words(self, english: list[str], chinese: list[str]) -> None:
        self.english.setText(EN_SEPARATOR.join(english))
        self.chinese.setText(ZH_SEPARATOR.join(chinese))

    def words(self) -> tuple[list[str], list[str]]:
        return words_of(self.english.text()), words_of(self.chinese.text())
