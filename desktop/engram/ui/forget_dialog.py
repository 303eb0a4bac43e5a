"""The question "Forget everywhere…" asks: every place a text is stored (core/forget.py's find),
named in the window's language, with a box for the files a person may have written. Its texts are
the Memories tab's (translation context MemoriesTab), which opens it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QCheckBox, QMessageBox

from engram.core.forget import Place, persons_files
from engram.ui.kinds import kind_name

SHOWN = 12            # places listed in the question; all of them under "Show Details…"
# Each kind of place (forget.PLACES) and how one is named (forget.WHERE), for translation.
PLACE_NAMES = {"message": QT_TRANSLATE_NOOP("MemoriesTab", "message"),
               "chat title": QT_TRANSLATE_NOOP("MemoriesTab", "chat title"),
               "chat folder": QT_TRANSLATE_NOOP("MemoriesTab", "chat folder"),
               "turn record": QT_TRANSLATE_NOOP("MemoriesTab", "turn record"),
               "chat version": QT_TRANSLATE_NOOP("MemoriesTab", "chat version"),
               "chat instructions": QT_TRANSLATE_NOOP("MemoriesTab", "chat instructions"),
               "memory": QT_TRANSLATE_NOOP("MemoriesTab", "memory"),
               "memory history": QT_TRANSLATE_NOOP("MemoriesTab", "memory history"),
               "background job": QT_TRANSLATE_NOOP("MemoriesTab", "background job"),
               "preference": QT_TRANSLATE_NOOP("MemoriesTab", "preference"),
               "profile line": QT_TRANSLATE_NOOP("MemoriesTab", "profile line"),
               "file": QT_TRANSLATE_NOOP("MemoriesTab", "file"),
               "file name": QT_TRANSLATE_NOOP("MemoriesTab", "file name"),
               "trash folder": QT_TRANSLATE_NOOP("MemoriesTab", "trash folder"),
               "trash file": QT_TRANSLATE_NOOP("MemoriesTab", "trash file")}
WHERE = {"chat title": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}"),       # {session}: the chat's name
         "chat folder": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}: folder {folder}"),
         "message": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}, message #{message}"),
         "turn record": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}, turn record #{turn}"),
         "chat version": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}, version #{version} (not shown)"),
         "chat instructions": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}: its instructions"),
         "memory": QT_TRANSLATE_NOOP("MemoriesTab", "memory #{memory} ({kind})"),
         "memory history": QT_TRANSLATE_NOOP("MemoriesTab", "memory #{memory}, change #{change}"),
         "background job": QT_TRANSLATE_NOOP("MemoriesTab", "background job #{job}"),
         "preference": QT_TRANSLATE_NOOP("MemoriesTab", "preference {key}"),
         "profile line": QT_TRANSLATE_NOOP("MemoriesTab", "profile: line #{line}"),
         "file": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}: {name}"),
         "file name": QT_TRANSLATE_NOOP("MemoriesTab", "chat {session}: file name {name}"),
         "trash folder": QT_TRANSLATE_NOOP("MemoriesTab", "trash: {name}"),
         "trash file": QT_TRANSLATE_NOOP("MemoriesTab", "trash: {name}"),
         "trash file name": QT_TRANSLATE_NOOP("MemoriesTab", "trash: file name {name}")}


def _translated(texts: dict[str, str], key: str, fallback: str) -> str:
    return QCoreApplication.translate("MemoriesTab", texts[key]) if key in texts else fallback


def place_line(place: Place, chat_name: Callable[[str], str]) -> str:
    """One place as the person reads it, e.g. "message: chat “Trip” (3 Dec 2026), message #12"."""
    at = place.at | ({"kind": kind_name(str(place.at["kind"]))} if "kind" in place.at else {}) \
        | ({"session": chat_name(str(place.at["session"]))} if "session" in place.at else {})
    where = _translated(WHERE, place.form or place.what, place.where).format(**at)
    return f"{_translated(PLACE_NAMES, place.what, place.what)}: {where}"


def forget_box(parent, text: str, places: list[Place], chat_name: Callable[[str], str]) -> QMessageBox:
    """The question, with Yes and Cancel (Cancel the default) and, when some places are files a
    person may have written, a box to tick to change those too (``checkBox()``). It says that
    paraphrases are not the same words; its button ``related`` asks to search by meaning instead."""
    translate = QCoreApplication.translate
    box = QMessageBox(QMessageBox.Warning, translate("MemoriesTab", "Forget everywhere"),
                      translate("MemoriesTab", "Forget “{text}” in these {count} places?").format(
                          text=text[:200], count=len(places)),
                      QMessageBox.Yes | QMessageBox.Cancel, parent)
    lines = [place_line(place, chat_name) for place in places]
    same_only = translate("MemoriesTab", "Only these very words are forgotten (case aside). Words that say the same"
                                         " thing differently, such as a reply that paraphrased them, stay: look for"
                                         " them with Find related memories.")
    box.setInformativeText("\n".join(lines[:SHOWN]) + ("\n…" if len(lines) > SHOWN else "") + "\n\n" + same_only)
    box.setDetailedText("\n".join(lines))
    if files := len(persons_files(places)):     # the box its parent: PySide6 would delete it
        box.setCheckBox(QCheckBox(translate("MemoriesTab", "Also change the files that hold it ({count}; you may"
                                                           " have written them)").format(count=files), box))
    box.related = box.addButton(translate("MemoriesTab", "Find related memories"), QMessageBox.ActionRole)
    box.setDefaultButton(QMessageBox.Cancel)
    return box
