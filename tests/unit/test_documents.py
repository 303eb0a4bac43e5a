"""Documents attached to a chat: each format into cited markdown chunks, and every bad file a clear note.

The documents in tests/data/documents/ are real public test files (tests/data/README.md); the
Chinese ones, the zip bomb and the misleading names are made here.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from engram.core.errors import InvalidInput
from engram.core.files.catalog import INDEXED, PROBLEM
from engram.core.files.converters import NO_TEXT_LAYER
from engram.core.files.documents import CONVERT_JOB, CONVERTING
from engram.core.files.formats import SOURCES_DIR

DATA = Path(__file__).resolve().parents[1] / "data" / "documents"


@pytest.fixture
def engram(make_engram):
    return make_engram()


@pytest.fixture
def chat(engram):
    session = engram.sessions.get_or_create("s1", "alice")
    engram.files.folder(session.folder).path.mkdir(parents=True)
    return session.folder


def attach(engram, chat, path) -> str:
    """Add a document and run its conversion, as the outbox would."""
    name = engram.documents.add(chat, path)
    assert engram.outbox.drain(timeout=30)
    return name


def search(engram, chat, query, k=5):
    return [hit.memory.text.split("\n", 1)[0] for hit in engram.files.search(chat, query, k=k, mode="words")]


@pytest.mark.parametrize(("file", "pages", "sentence", "cited"), [
    ("test.pdf", "PDF, 1 page", "crucial building block in developing powerful agents", "test.pdf, p. 1"),
    ("test.docx", "Word document (DOCX), 2 pages", "multi-agent conversation framework",
     "test.docx, AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation"),
    ("test.pptx", "PowerPoint slides (PPTX), 6 slides", "converse with each other to accomplish tasks",
     "test.pptx, slide 2"),
    ("test.xlsx", "Excel workbook (XLSX), 2 sheets", "Alpha Beta Gamma", "test.xlsx, sheet Sheet1"),
    ("test.epub", "e-book (EPUB), 3 chapters", "test paragraph", "test.epub, Chapter 1: Test Content"),
    ("test_blog.html", "web page (HTML)", "inference parameters", "test_blog.html"),
])
def test_each_format_becomes_markdown_beside_its_original_and_its_chunks_cite_the_place(
        engram, chat, file, pages, sentence, cited):
    name = attach(engram, chat, DATA / file)
    folder = engram.files.folder(chat).path
    assert name == f"{SOURCES_DIR}/{file}"
    assert (folder / name).read_bytes() == (DATA / file).read_bytes()          # the original, kept
    source = engram.files.status(chat, name)
    assert (source.status, source.detail) == (INDEXED, "")
    assert source.description.startswith(pages) and source.description.endswith(f"text in {file}.md")
    doc = engram.files.folder(chat).read(f"{file}.md")
    assert doc.source["name"] == file and doc.source["size"] == (DATA / file).stat().st_size
    assert len(doc.source["sha256"]) == 64
    markdown = engram.files.status(chat, f"{file}.md")
    assert markdown.status == INDEXED and markdown.chunks > 0 and not markdown.description.startswith("p. ")
    assert any(where.startswith(cited) for where in search(engram, chat, sentence))
    assert engram.store.pending_embeddings() == 0        # embedded by the outbox after the words were searchable


@pytest.mark.both_backends
def test_a_pdf_hit_cites_the_page_it_is_on(engram, chat, tmp_path):
    import pypdfium2

    # Two real pages (the test paper's page twice): each hit cites the page its chunk is on.
    merged = pypdfium2.PdfDocument.new()
    merged.import_pages(pypdfium2.PdfDocument(str(DATA / "test.pdf")))
    merged.import_pages(pypdfium2.PdfDocument(str(DATA / "test.pdf")))
    merged.save(str(tmp_path / "paper.pdf"))
    attach(engram, chat, tmp_path / "paper.pdf")
    text = (engram.files.folder(chat).path / "paper.pdf.md").read_text()
    assert "## p. 1\n" in text and "## p. 2\n" in text
    assert {where for where in search(engram, chat, "powerful agents", k=10)} == {"paper.pdf, p. 1", "paper.pdf, p. 2"}


def test_chinese_documents_are_found_by_their_words(engram, chat, tmp_path):
    import docx

    document = docx.Document()
    document.add_heading("会议记录", level=1)
    document.add_paragraph("我们决定下周三去杭州西湖考察新的办公地点。")
    document.save(str(tmp_path / "会议.docx"))
    (tmp_path / "说明.html").write_text("<html><head><title>说明</title></head><body><h1>安装</h1>"
                                      "<p>请先安装向量数据库，然后重新启动程序。</p></body></html>", encoding="utf-8")
    attach(engram, chat, tmp_path / "会议.docx")
    attach(engram, chat, tmp_path / "说明.html")
    assert search(engram, chat, "杭州西湖")[0] == "会议.docx, 会议记录"
    assert search(engram, chat, "向量数据库")[0] == "说明.html, 安装"


def test_a_document_dropped_into_the_folder_moves_to_sources_and_is_converted(engram, chat):
    folder = engram.files.folder(chat).path
    shutil.copy(DATA / "test.xlsx", folder / "budget.xlsx")
    engram.files.sync_folder(chat)                       # what the watcher does on its report
    assert not (folder / "budget.xlsx").exists() and (folder / SOURCES_DIR / "budget.xlsx").exists()
    assert engram.files.status(chat, f"{SOURCES_DIR}/budget.xlsx").detail == CONVERTING
    assert [job.kind for job in engram.outbox.jobs("pending")] == [CONVERT_JOB]     # durable: queued, not yet done
    assert engram.outbox.drain(timeout=30)
    assert engram.files.status(chat, "budget.xlsx.md").chunks > 0


def test_a_hand_edit_is_kept_and_a_changed_original_is_converted_again(engram, chat, tmp_path):
    original = tmp_path / "page.html"
    original.write_text("<h1>Plan</h1><p>first version</p>", encoding="utf-8")
    name = attach(engram, chat, original)
    folder = engram.files.folder(chat).path
    markdown = folder / "page.html.md"
    markdown.write_text(markdown.read_text().replace("first version", "my own words"), encoding="utf-8")
    engram.files.sync_folder(chat)
    assert search(engram, chat, "my own words")
    assert not [job for job in engram.outbox.jobs("pending") if job.kind == CONVERT_JOB]       # no re-conversion
    (folder / name).write_text("<h1>Plan</h1><p>second version</p>", encoding="utf-8")
    engram.files.sync_folder(chat)
    assert engram.outbox.drain(timeout=30)
    status = engram.files.status(chat, name)
    assert "converted again: the original changed" in status.detail and "your edits are kept in" in status.detail
    kept = status.detail.rsplit(" ", 1)[-1]
    assert "my own words" in (folder / kept).read_text() and "second version" in markdown.read_text()


def test_adding_the_same_document_twice_adds_it_once_and_a_namesake_gets_another_name(engram, chat, tmp_path):
    assert attach(engram, chat, DATA / "test.epub") == attach(engram, chat, DATA / "test.epub")
    other = tmp_path / "test.epub"
    shutil.copy(DATA / "test.xlsx", tmp_path / "x.xlsx")
    with zipfile.ZipFile(tmp_path / "x.xlsx") as z, zipfile.ZipFile(other, "w") as out:
        out.writestr("mimetype", "application/epub+zip")
        for item in z.infolist():
            out.writestr(item, z.read(item))
    assert engram.documents.add(chat, other) == f"{SOURCES_DIR}/test-2.epub"


# -- bad files: each refused by `add` with its reason, or noted as the source's problem ---------

def problem_of(engram, chat, tmp_path, file: Path) -> str:
    """The note a document gets when it lands in the folder by hand (no `add` to refuse it)."""
    folder = engram.files.folder(chat).path
    shutil.copy(file, folder / file.name)
    engram.files.sync_folder(chat)
    assert engram.outbox.drain(timeout=30)
    status = engram.files.status(chat, f"{SOURCES_DIR}/{file.name}")
    assert status.status == PROBLEM and (folder / SOURCES_DIR / file.name).exists()    # the original is kept
    assert not (folder / f"{file.name}.md").exists()                                     # nothing half-written
    return status.detail


def test_an_encrypted_pdf_is_noted_with_its_reason(engram, chat, tmp_path):
    assert "encrypted (it needs a password" in problem_of(engram, chat, tmp_path, DATA / "encrypted-rc4-128.pdf")


def test_a_scanned_pdf_says_it_needs_ocr(engram, chat, tmp_path):
    assert problem_of(engram, chat, tmp_path, DATA / "scanned-medical-report.pdf") == NO_TEXT_LAYER


def test_a_corrupt_docx_is_named_as_such(engram, chat, tmp_path):
    broken = tmp_path / "broken.docx"
    with zipfile.ZipFile(DATA / "test.docx") as z, zipfile.ZipFile(broken, "w") as out:
        for item in z.infolist():
            out.writestr(item, b"<w:document>truncated" if item.filename == "word/document.xml" else z.read(item))
    assert problem_of(engram, chat, tmp_path, broken).startswith("broken.docx could not be read as a Word document")


def test_a_zip_bomb_is_refused_by_its_unpacked_size_before_it_is_opened(engram, chat, tmp_path):
    engram.settings.document_max_mb = 1
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", b"\0" * 9_000_000)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InvalidInput, match="would unpack to 9 MB"):
        engram.documents.add(chat, bomb)
    assert "zip bomb" in problem_of(engram, chat, tmp_path, bomb)


def test_a_misleading_suffix_is_sniffed(engram, chat, tmp_path):
    shutil.copy(DATA / "test.docx", tmp_path / "report.pdf")
    attach(engram, chat, tmp_path / "report.pdf")
    assert "the name says PDF, but the file is a Word document (DOCX)" in \
        engram.files.status(chat, f"{SOURCES_DIR}/report.pdf").detail
    (tmp_path / "photo.docx").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 100)
    with pytest.raises(InvalidInput, match="photo.docx is a JPEG image, not a document"):
        engram.documents.add(chat, tmp_path / "photo.docx")


def test_a_document_over_the_size_limit_is_refused(engram, chat, tmp_path):
    engram.settings.document_max_mb = 1
    big = tmp_path / "big.csv"
    big.write_text("a,b\n" + "1,2\n" * 300_000)
    with pytest.raises(InvalidInput, match="big.csv is 1.2 MB; documents over 1 MB are not converted"):
        engram.documents.add(chat, big)
    assert not (engram.files.folder(chat).path / SOURCES_DIR).exists()                  # nothing copied


def test_a_name_that_would_leave_the_folder_is_refused(engram, chat, tmp_path):
    odd = tmp_path / "CON.pdf"
    shutil.copy(DATA / "test.pdf", odd)
    with pytest.raises(InvalidInput, match="reserved device name"):
        engram.documents.add(chat, odd)


def test_a_conversion_is_cancelled_at_the_next_page(engram, chat):
    seen = []
    engram.documents.subscribe(lambda folder, name, done, total: seen.append((done, total)))
    name = engram.documents.add(chat, DATA / "test.pptx")
    engram.documents.cancel(chat, name)
    assert engram.outbox.drain(timeout=30)
    assert engram.files.status(chat, name).detail.startswith("conversion cancelled")
    assert not (engram.files.folder(chat).path / "test.pptx.md").exists() and seen == [(-1, -1)]
    engram.documents.add(chat, DATA / "test.pptx")       # same bytes: recorded already, so nothing runs
    engram.files.sync_folder(chat, force=True)
    assert engram.outbox.drain(timeout=30)
    assert (engram.files.folder(chat).path / "test.pptx.md").exists() and (6, 6) in seen


def test_forgetting_words_of_a_document_removes_its_original_too(engram, chat, tmp_path):
    from engram.core.forget import forget_everywhere

    page = tmp_path / "letter.html"
    page.write_text("<h1>Letter</h1><p>My locker code is zebra-4471-quartz, keep it safe.</p>", encoding="utf-8")
    name = attach(engram, chat, page)
    folder = engram.files.folder(chat).path
    forget_everywhere(engram, "zebra-4471-quartz", "alice", files=True)
    assert not (folder / name).exists()
    assert "zebra-4471-quartz" not in (folder / "letter.html.md").read_text()
    assert not search(engram, chat, "zebra-4471-quartz") and engram.files.status(chat, name).status == "removed"


def test_the_watcher_converts_a_document_saved_into_the_folder(engram, chat):
    import time

    from engram.core.files.watcher import FolderWatcher

    engram.outbox.start()
    with FolderWatcher(engram.files):
        shutil.copy(DATA / "test.pdf", engram.files.folder(chat).path / "paper.pdf")
        deadline = time.monotonic() + 30
        while not search(engram, chat, "powerful agents") and time.monotonic() < deadline:
            time.sleep(0.05)
    assert search(engram, chat, "powerful agents")[0] == "paper.pdf, p. 1"


def test_engram_files_add_converts_and_says_how_each_went(tmp_path, capsys):
    from engram.cli import main

    assert main(["files", "add", "--session", "s1", str(DATA / "test.xlsx"), str(DATA / "scanned-medical-report.pdf"),
                 str(tmp_path / "missing.pdf")]) == 1
    out, err = capsys.readouterr()
    assert "added sources/test.xlsx: Excel workbook (XLSX), 2 sheets; text in test.xlsx.md" in out
    assert f"problem: sources/scanned-medical-report.pdf: {NO_TEXT_LAYER}" in err
    assert "missing.pdf is not a file" in err
    assert main(["files", "search", "--session", "s1", "Alpha Beta"]) == 0
    assert "test.xlsx, sheet Sheet1" in capsys.readouterr().out


QUESTION = "Which building block matters when developing powerful agents?"


def test_a_question_about_an_attached_document_brings_its_passage_citing_the_page(engram, chat):
    attach(engram, chat, DATA / "test.pdf")
    result = engram.turn_engine.send("s1", QUESTION)
    [found] = [m for m in result.record.recalled if m["via"] == "chat_files"][:1]
    assert found["kind"] == "file" and found["file"] == "test.pdf.md" and found["text"].startswith("test.pdf, p. 1\n")
    sent = result.record.messages[-1]["content"]
    assert sent.endswith(QUESTION) and '\n- test.pdf, p. 1: "' in sent and "say which file and page" in sent


@pytest.mark.parametrize("how", ["memory off", "on_demand with tools"])
def test_passages_are_not_searched_with_memory_off_or_when_the_model_searches_itself(engram, chat, how):
    attach(engram, chat, DATA / "test.pdf")
    if how == "memory off":
        engram.turn_engine.chat_settings.set("s1", memory=False)
    else:
        engram.settings.recall_mode = "on_demand"
        engram.apply_settings({"recall_mode"})
    result = engram.turn_engine.send("s1", QUESTION)
    assert not [m for m in result.record.recalled if m.get("via") == "chat_files"]
    assert "test.pdf, p. 1: " not in result.record.messages[-1]["content"]
