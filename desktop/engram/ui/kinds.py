"""The kinds of memory as the person reads them, in the window's language: the Memories tab lists
them, the Context tab and "Forget everywhere…" name them. Their texts keep the Memories tab's
translation context (MemoriesTab), where they were first translated."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engram.core.memory.records import Kind

KIND_NAMES = {Kind.MESSAGE: QT_TRANSLATE_NOOP("MemoriesTab", "message"),
              Kind.FACT: QT_TRANSLATE_NOOP("MemoriesTab", "fact"),
              Kind.PREFERENCE: QT_TRANSLATE_NOOP("MemoriesTab", "preference"),
              Kind.TASK: QT_TRANSLATE_NOOP("MemoriesTab", "task"),
              Kind.SUMMARY: QT_TRANSLATE_NOOP("MemoriesTab", "summary"),
              Kind.EXPERIENCE: QT_TRANSLATE_NOOP("MemoriesTab", "experience"),
              Kind.FILE: QT_TRANSLATE_NOOP("MemoriesTab", "file")}


def kind_name(kind: str) -> str:
    """A kind of memory as the person reads it (an unknown one as it is stored)."""
    return QCoreApplication.translate("MemoriesTab", KIND_NAMES[kind]) if kind in KIND_NAMES else kind
