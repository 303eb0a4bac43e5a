"""Engram's translations, kept with Qt's own tools (run from the repository root):

    make translations                          # = .venv/bin/python tools/translations.py
    .venv/bin/python tools/translations.py --check

The first runs pyside6-lupdate over desktop/engram/ui and the core's models (whose Texts, see
engram/core/texts.py, the window shows translated): every text in a tr(), translate() or
QT_TRANSLATE_NOOP() call goes into resources/translations/engram_<language>.ts, the translations
already there are kept, a new text is marked unfinished (translate it, e.g. in pyside6-linguist),
and a text gone from the code is dropped. Then pyside6-lrelease compiles each .ts into the .qm that
the window loads. English is the language of the code, so engram_en.ts holds only plural forms
("%n memories").

--check changes nothing: it lists what is untranslated, what lost a placeholder (%n, %1, {name}) or
a tag, what the code has that the .ts lacks (or the reverse), and a .qm that is not the compiled
.ts; it exits 1 if anything is listed (the GUI tests run it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (ROOT / "desktop" / "engram" / "ui", ROOT / "desktop" / "engram" / "core" / "models")
TRANSLATIONS = ROOT / "resources" / "translations"
LANGUAGES = ("en", "zh_CN")
PLACEHOLDER = re.compile(r"%n|%L?\d+|\{[^{}]*\}")
TAG = re.compile(r"</?[a-zA-Z][^<>]*>")


def ts_file(language: str, folder: Path = TRANSLATIONS) -> Path:
    return folder / f"engram_{language}.ts"


def tool(name: str) -> str:
    """A Qt tool that PySide6-Essentials installs beside this Python (or else on the PATH)."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install PySide6-Essentials (it ships lupdate and lrelease)")
    return found


def run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")


def lupdate(ts: Path, language: str) -> None:
    """Bring ``ts`` up to date with the code (created if missing)."""
    sources = [str(path) for folder in SOURCES for path in sorted(folder.rglob("*.py"))]
    run([tool("pyside6-lupdate"), *sources, "-no-obsolete", "-locations", "none", "-target-language", language,
         *(["-pluralonly"] if language == "en" else []), "-ts", str(ts)])


def lrelease(ts: Path, qm: Path) -> None:
    run([tool("pyside6-lrelease"), "-nounfinished", str(ts), "-qm", str(qm)])


def messages(ts: Path) -> dict[tuple[str, str, str], list[str]]:
    """(context, source, comment) -> its translations (one per plural form; unfinished ones as None)."""
    found = {}
    for context in ElementTree.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            forms = translation.findall("numerusform") if message.get("numerus") == "yes" else [translation]
            unfinished = translation.get("type") in ("unfinished", "obsolete", "vanished")
            found[(name, message.findtext("source") or "", message.findtext("comment") or "")] = [
                None if unfinished else (form.text or "") for form in forms]
    return found


def problems(ts: Path) -> list[str]:
    """What is wrong with the translations in ``ts`` (empty: nothing)."""
    found = []
    for (context, source, _), forms in messages(ts).items():
        where = f"{ts.name} {context}: {source[:60]!r}"
        for form in forms:
            if form is None or not form.strip():
                found.append(f"{where} is not translated")
            elif sorted(PLACEHOLDER.findall(form)) != sorted(PLACEHOLDER.findall(source)):
                found.append(f"{where}: placeholders {PLACEHOLDER.findall(source)} became {PLACEHOLDER.findall(form)}")
            elif sorted(TAG.findall(form)) != sorted(TAG.findall(source)):
                found.append(f"{where}: tags {TAG.findall(source)} became {TAG.findall(form)}")
    return found


def check() -> list[str]:
    """Everything that keeps the committed translations from matching the code (empty: nothing)."""
    found = []
    with tempfile.TemporaryDirectory() as scratch:
        for language in LANGUAGES:
            committed = ts_file(language)
            if not committed.exists():
                found.append(f"{committed.name} is missing: run make translations")
                continue
            fresh = ts_file(language, Path(scratch))
            shutil.copy(committed, fresh)
            lupdate(fresh, language)
            before, after = set(messages(committed)), set(messages(fresh))
            found += [f"{committed.name} lacks {context}: {source!r} (run make translations)"
                      for context, source, _ in sorted(after - before)]
            found += [f"{committed.name} has {context}: {source!r}, which the code no longer says"
                      for context, source, _ in sorted(before - after)]
            found += problems(committed)
            qm = Path(scratch) / f"engram_{language}.qm"
            lrelease(committed, qm)
            shipped = committed.with_suffix(".qm")
            if not shipped.exists() or shipped.read_bytes() != qm.read_bytes():
                found.append(f"{shipped.name} is not the compiled {committed.name}: run make translations")
    return found


def update() -> None:
    for language in LANGUAGES:
        ts = ts_file(language)
        lupdate(ts, language)
        lrelease(ts, ts.with_suffix(".qm"))
        for problem in problems(ts):
            print(problem)


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        listed = check()
        print("\n".join(listed) or "translations are complete and up to date")
        sys.exit(1 if listed else 0)
    update()
