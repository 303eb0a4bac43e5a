"""What kind of document a file is, told by its bytes, and the limits a document is held to.

The suffix is only a claim: a file is sniffed (its first bytes, and for zip containers the names
inside) and converted as what it is, so that a ``.pdf`` that is a Word file still works and a
``.docx`` that is a picture gets a clear note instead of a library's traceback. Zip containers
(DOCX, PPTX, XLSX, EPUB) are refused by their unpacked size before a byte is inflated: a zip bomb
never reaches the XML parsers.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from engram.core.errors import InvalidInput

SOURCES_DIR = "sources"              # the originals, beside their markdown in the chat's folder
DEFAULT_MAX_MB = 100                 # the document_max_mb setting's default: a 300-page scanned-size book
UNPACKED_FACTOR = 8                  # a zip container may unpack to this many times the size limit

# The suffixes a person's documents come with, and what each is called in a note.
KINDS = {"pdf": "PDF", "docx": "Word document (DOCX)", "pptx": "PowerPoint slides (PPTX)",
         "xlsx": "Excel workbook (XLSX)", "csv": "CSV table", "html": "web page (HTML)", "epub": "e-book (EPUB)"}
SUFFIXES = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx", ".xlsm": "xlsx", ".csv": "csv",
            ".html": "html", ".htm": "html", ".xhtml": "html", ".epub": "epub"}
_ZIP_MARKERS = (("word/document.xml", "docx"), ("ppt/presentation.xml", "pptx"), ("xl/workbook.xml", "xlsx"))
_OTHER_MAGIC = ((b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
                (b"\xd0\xcf\x11\xe0", "an old Office file (.doc, .xls or .ppt, not supported)"),
                (b"Rar!", "a RAR archive"), (b"7z\xbc\xaf", "a 7-Zip archive"), (b"\x1f\x8b", "a gzip archive"))


@dataclass(frozen=True)
class Sniffed:
    kind: str            # a key of KINDS
    note: str = ""       # said when the suffix claimed something else


def is_document_name(name: str) -> bool:
    """A file the folder converts (by its suffix; its bytes are checked when it is converted)."""
    return Path(name).suffix.lower() in SUFFIXES


def markdown_name(source: str) -> str:
    """Where a source's markdown goes: ``sources/report.pdf`` -> ``report.pdf.md``."""
    return source.rsplit("/", 1)[-1] + ".md"


def sniff(path: Path, name: str, max_bytes: int) -> Sniffed:
    """The document kind of the file at ``path``; InvalidInput saying what it is otherwise, or
    why it is refused (too large, a zip bomb, a broken container)."""
    size = path.stat().st_size
    if size > max_bytes:
        raise InvalidInput(f"{name} is {size / 1e6:.1f} MB; documents over {max_bytes / 1e6:.0f} MB are not converted",
                           hint="raise the document_max_mb setting, or split the document")
    with path.open("rb") as f:
        head = f.read(4096)
    claimed = SUFFIXES.get(Path(name).suffix.lower(), "")
    kind = _kind(path, name, head, max_bytes * UNPACKED_FACTOR, claimed)
    note = "" if not claimed or claimed == kind else \
        f"the name says {KINDS[claimed]}, but the file is a {KINDS[kind]}; converted as what it is"
    return Sniffed(kind, note)


def _kind(path: Path, name: str, head: bytes, max_unpacked: int, claimed: str) -> str:
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(path, name, max_unpacked)
    for magic, what in _OTHER_MAGIC:
        if head.startswith(magic):
            raise InvalidInput(f"{name} is {what}, not a document Engram converts",
                               hint="save it as PDF, DOCX, PPTX, XLSX, CSV, HTML or EPUB")
    if b"\x00" in head:
        raise InvalidInput(f"{name} holds binary data of an unknown kind, not a document Engram converts")
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<body" in lowered or b"<head" in lowered:
        return "html"
    if claimed in ("csv", "html"):
        return claimed
    raise InvalidInput(f"{name} is plain text, not a {KINDS.get(claimed, 'document')}",
                       hint="save it as .txt or .md: those are indexed as they are")


def _zip_kind(path: Path, name: str, max_unpacked: int) -> str:
    try:
        with zipfile.ZipFile(path) as z:
            members = z.infolist()
            unpacked = sum(m.file_size for m in members)
            if unpacked > max_unpacked:
                raise InvalidInput(f"{name} would unpack to {unpacked / 1e6:,.0f} MB (a zip bomb, or far too large);"
                                   f" the limit is {max_unpacked / 1e6:,.0f} MB", hint="it is not opened")
            names = {m.filename for m in members}
            mimetype = z.read("mimetype")[:64].strip() if "mimetype" in names else b""
    except zipfile.BadZipFile as e:
        raise InvalidInput(f"{name} is a damaged zip container ({e}); it cannot be read",
                           hint="open it in the program that made it and save it again") from None
    if mimetype == b"application/epub+zip":
        return "epub"
    for member, kind in _ZIP_MARKERS:
        if member in names:
            return kind
    raise InvalidInput(f"{name} is a zip archive that holds no Word, PowerPoint, Excel or EPUB document",
                       hint="unpack it and add the documents inside")
