"""Documents to markdown, one well-kept library per format (chosen by measurement,
docs/benchmarks.md): PDF with pypdfium2 (PDFium's text layer, page by page), DOCX with python-docx,
PPTX with python-pptx, XLSX with openpyxl, HTML and EPUB with BeautifulSoup and markdownify,
CSV with the standard library.

The markdown keeps each passage's place as a heading the chunker carries into every chunk:
``## p. 12`` for a PDF page, ``## slide 3``, ``## sheet Budget``, and a document's own headings
for DOCX, HTML and EPUB; so a hit cites "report.pdf, p. 12". Text taken from a page never
becomes a heading or a code fence by accident (a leading ``#`` or fence is escaped).

Whatever a library raises on a damaged file becomes InvalidInput naming the file and its kind.
``progress(done, total)`` is called as the work goes; it may raise to cancel.
"""

from __future__ import annotations

import csv
import io
import re
import threading
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from posixpath import dirname, join, normpath
from xml.etree import ElementTree

from engram.core.errors import InvalidInput
from engram.core.files.formats import KINDS

Progress = Callable[[int, int], None]
MAX_MARKDOWN_BYTES = 16 * 1024 * 1024     # the text of a long book is a few MB; more is not a document
MAX_SHEET_ROWS = 20_000
NO_TEXT_LAYER = "no text layer: scanned pages need OCR, not done"
_PDFIUM = threading.Lock()                 # PDFium is not thread-safe
_ESCAPE = re.compile(r"^([ \t]*)(#|```|~~~)", re.MULTILINE)
_CJK_WRAP = re.compile(r"(?<=[\u3400-\u9fff\u3001\uff0c])\n(?=[\u3400-\u9fff])")   # a PDF line end inside Chinese


class Cancelled(Exception):
    """Raised by a progress callback to stop a conversion."""


@dataclass(frozen=True)
class Converted:
    markdown: str
    pages: int = 0          # pages, slides, sheets or chapters; 0: the format has none
    unit: str = ""          # what ``pages`` counts
    title: str = ""         # the document's own title, when it has one
    note: str = ""          # e.g. pages without a text layer


def convert(path: Path, name: str, kind: str, progress: Progress) -> Converted:
    """The markdown of the document at ``path`` (of a kind ``formats.sniff`` told)."""
    try:
        converted = _CONVERTERS[kind](path, progress)
    except (InvalidInput, Cancelled, MemoryError):
        raise
    except Exception as e:   # each library has its own errors for a damaged file
        raise InvalidInput(f"{name} could not be read as a {KINDS[kind]}: {type(e).__name__}: {e}",
                           hint="open it in the program that made it and save it again") from None
    if len(converted.markdown.encode("utf-8")) > MAX_MARKDOWN_BYTES:
        raise InvalidInput(f"{name} holds more than {MAX_MARKDOWN_BYTES // (1024 * 1024)} MB of text",
                           hint="split the document")
    return converted


def plain(text: str) -> str:
    """Extracted text made safe as markdown: line ends unified, hyphenation joined, no line
    that a markdown reader would take for a heading or a code fence."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[\u00ad\ufffe\x02]\n", "", text).replace("\x00", "")
    return _ESCAPE.sub(lambda m: m.group(1) + "\\" + m.group(2), text).strip()


def _pdf(path: Path, progress: Progress) -> Converted:
    import pypdfium2 as pdfium

    with _PDFIUM:
        try:
            pdf = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as e:
            if "password" in str(e).lower():
                raise InvalidInput(f"{path.name} is encrypted (it needs a password to open); it cannot be read",
                                   hint="save a copy without a password and add that") from None
            raise
        try:
            total, parts, empty = len(pdf), [], []
            title = str(pdf.get_metadata_dict().get("Title", "")).strip()
            for number in range(1, total + 1):
                page = pdf[number - 1]
                textpage = page.get_textpage()
                text = _CJK_WRAP.sub("", plain(textpage.get_text_range()))
                textpage.close()
                page.close()
                if len(text) < 3:
                    empty.append(number)
                parts.append(f"## p. {number}\n\n{text}\n")
                progress(number, total)
        finally:
            pdf.close()
    if total == 0 or len(empty) == total:
        raise InvalidInput(NO_TEXT_LAYER, hint="run OCR on it (e.g. ocrmypdf) and add the result")
    note = f"{len(empty)} of {total} pages have no text layer (scanned: they need OCR, not done)" if empty else ""
    return Converted("\n".join(parts), total, "pages", title, note)


def _docx(path: Path, progress: Progress) -> Converted:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(str(path))
    lines: list[str] = []
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "tbl":
            lines += _table([[cell.text for cell in row.cells] for row in Table(element, document).rows])
        elif tag == "p":
            paragraph = Paragraph(element, document)
            text = plain(paragraph.text)
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            level = re.match(r"(?:Heading|标题)\s*(\d)", style)
            if not text:
                continue
            if level or style == "Title":
                lines += ["", "#" * (int(level.group(1)) if level else 1) + " " + " ".join(text.split()), ""]
            elif style.startswith("List"):
                lines.append(f"- {text}")
            else:
                lines += [text, ""]
    progress(1, 1)
    return Converted("\n".join(lines), _docx_pages(path), "pages", document.core_properties.title or "")


def _docx_pages(path: Path) -> int:
    """The page count Word saved in docProps/app.xml (a DOCX has no pages of its own)."""
    with zipfile.ZipFile(path) as z:
        try:
            found = re.search(rb"<Pages>(\d+)</Pages>", z.read("docProps/app.xml"))
        except KeyError:
            return 0
    return int(found.group(1)) if found else 0


def _pptx(path: Path, progress: Progress) -> Converted:
    from pptx import Presentation

    deck = Presentation(str(path))
    parts: list[str] = []
    total = len(deck.slides)
    title = ""
    for number, slide in enumerate(deck.slides, start=1):
        lines = [f"## slide {number}", ""]
        shape_title = slide.shapes.title
        if shape_title is not None and shape_title.has_text_frame and shape_title.text_frame.text.strip():
            lines += [f"**{' '.join(shape_title.text_frame.text.split())}**", ""]
            title = title or " ".join(shape_title.text_frame.text.split())
        for shape in _shapes(slide.shapes):
            if shape_title is not None and shape.shape_id == shape_title.shape_id:
                continue
            if getattr(shape, "has_table", False):
                lines += _table([[cell.text for cell in row.cells] for row in shape.table.rows]) + [""]
            elif getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
                lines += [plain(shape.text_frame.text), ""]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = plain(slide.notes_slide.notes_text_frame.text)
            if notes:
                lines += [f"Notes: {notes}", ""]
        parts.append("\n".join(lines))
        progress(number, total)
    return Converted("\n".join(parts), total, "slides", deck.core_properties.title or title)


def _shapes(shapes) -> Iterable:
    """Every shape, those inside groups too, in reading order."""
    for shape in shapes:
        if hasattr(shape, "shapes"):
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _xlsx(path: Path, progress: Progress) -> Converted:
    import openpyxl

    book = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    try:
        parts: list[str] = []
        total = len(book.worksheets)
        for number, sheet in enumerate(book.worksheets, start=1):
            rows: list[list[str]] = []
            for row in sheet.iter_rows(values_only=True):
                if len(rows) == MAX_SHEET_ROWS:
                    break
                if any(v is not None for v in row):
                    rows.append(["" if v is None else str(v) for v in row])
            lines = [f"## sheet {sheet.title}", "", *_table(rows)]
            if len(rows) == MAX_SHEET_ROWS:
                lines += ["", f"(only the first {MAX_SHEET_ROWS:,} rows are kept)"]
            parts.append("\n".join(lines) + "\n")
            progress(number, total)
    finally:
        book.close()
    return Converted("\n".join(parts), total, "sheets")


def _csv(path: Path, progress: Progress) -> Converted:
    data = path.read_bytes()
    for encoding in ("utf-8-sig", "gb18030", "latin-1"):     # Chinese spreadsheets often save GB18030
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = [row for row in csv.reader(io.StringIO(text), dialect) if any(cell.strip() for cell in row)]
    progress(1, 1)
    return Converted("\n".join(_table(rows[:MAX_SHEET_ROWS])) + "\n")


def html_markdown(data: bytes | str) -> tuple[str, str]:
    """(markdown, title) of an HTML page: scripts, styles and forms dropped, headings kept."""
    from bs4 import BeautifulSoup, Comment, Declaration, Doctype, ProcessingInstruction
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(data, "html.parser")
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    for tag in soup(["script", "style", "noscript", "template", "iframe", "svg", "form", "head"]):
        tag.decompose()
    for node in soup.find_all(string=lambda s: isinstance(s, (Comment, Declaration, Doctype, ProcessingInstruction))):
        node.extract()
    markdown = MarkdownConverter(heading_style="ATX", bullets="-", escape_misc=False).convert_soup(soup)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n", title


def _html(path: Path, progress: Progress) -> Converted:
    markdown, title = html_markdown(path.read_bytes())
    progress(1, 1)
    return Converted(markdown, 0, "", title)


def _epub(path: Path, progress: Progress) -> Converted:
    with zipfile.ZipFile(path) as z:
        container = ElementTree.fromstring(z.read("META-INF/container.xml"))
        opf_path = next(e.get("full-path", "") for e in container.iter() if e.tag.endswith("rootfile"))
        opf = ElementTree.fromstring(z.read(opf_path))
        items = {e.get("id"): e.get("href") for e in opf.iter() if e.tag.endswith("}item")}
        spine = [e.get("idref") for e in opf.iter() if e.tag.endswith("}itemref")]
        title = next((" ".join((e.text or "").split()) for e in opf.iter() if e.tag.endswith("}title")), "")
        parts = []
        for number, idref in enumerate(spine, start=1):
            href = items.get(idref)
            if href:
                member = normpath(join(dirname(opf_path), href.split("#")[0]))
                parts.append(html_markdown(z.read(member))[0])
            progress(number, len(spine))
    return Converted("\n".join(parts), len(spine), "chapters", title)


def _table(rows: list[list[str]]) -> list[str]:
    """A markdown table (the first row as its header); cells on one line, pipes escaped."""
    rows = [[" ".join(cell.split()).replace("|", "\\|") for cell in row] for row in rows]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    return ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width,
            *("| " + " | ".join(row) + " |" for row in rows[1:])]


_CONVERTERS: dict[str, Callable[[Path, Progress], Converted]] = {
    "pdf": _pdf, "docx": _docx, "pptx": _pptx, "xlsx": _xlsx, "csv": _csv, "html": _html, "epub": _epub}
