"""A web page attached by its address (issue 36: "a URL's downloaded body"): downloaded over a real
HTTP connection on loopback, kept in sources/ and converted; a missing page, a page over the size
limit and an address nobody answers are clear errors, and nothing is kept of them."""

import http.server
import threading
from pathlib import Path

import httpx
import pytest

from engram.cli import main
from engram.core.errors import InvalidInput
from engram.core.files.web import download, page_name

DATA = Path(__file__).resolve().parents[1] / "data" / "documents"


@pytest.fixture(scope="module")
def site():
    """An HTTP server on loopback serving tests/data/documents; its base address."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args):
            super().__init__(*args, directory=str(DATA))

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_engram_files_add_takes_a_web_address(site, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(tmp_path / "config"))
    assert main(["files", "add", "--session", "s1", f"{site}/test_blog.html", f"{site}/test.pdf"]) == 0
    out = capsys.readouterr().out
    assert "added sources/test_blog.html: web page (HTML)" in out and "added sources/test.pdf" in out
    assert main(["files", "search", "--session", "s1", "powerful agents"]) == 0
    assert "test.pdf, p. 1" in capsys.readouterr().out

    assert main(["files", "add", "--session", "s1", f"{site}/missing.html"]) == 1
    assert "missing.html answered 404" in capsys.readouterr().err


def test_a_page_over_the_size_limit_is_refused_and_not_kept(site, tmp_path):
    with pytest.raises(InvalidInput, match="larger than"):
        download(f"{site}/test.pdf", tmp_path, max_bytes=1000)


def test_an_address_nobody_answers_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidInput, match="cannot download http://127.0.0.1:9/"):
        download("http://127.0.0.1:9/page", tmp_path, 10**6, client=httpx.Client(timeout=2))


def test_a_page_is_named_after_its_address_and_type():
    assert page_name(httpx.URL("https://example.org/papers/report.pdf?x=1"), "application/pdf") == "report.pdf"
    assert page_name(httpx.URL("https://example.org/notes/trip"), "text/html; charset=utf-8") \
        == "example.org-notes-trip.html"
    assert page_name(httpx.URL("https://example.org/"), "application/pdf") == "example.org.pdf"
