"""A document attached by its web address: its body downloaded, as the server sends it, into a
file named after the page, which is then added like any other document (documents.py). The
download stops at the size limit for documents, and every failure (no network, a 404, a page too
large) is an InvalidInput that names the address, so nothing half-downloaded is kept.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from engram.core.errors import InvalidInput
from engram.core.files.formats import is_document_name

TIMEOUT = httpx.Timeout(30.0, connect=10.0)
# The suffix a body is saved under, by its content type (its bytes are sniffed all the same).
SUFFIX_OF_TYPE = {"application/pdf": ".pdf", "text/csv": ".csv", "application/epub+zip": ".epub",
                  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
                  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
                  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx"}
MAX_STEM = 80


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def download(url: str, folder: Path, max_bytes: int, client: httpx.Client | None = None) -> Path:
    """The body at ``url``, written into ``folder`` under the page's name."""
    client = client or httpx.Client(timeout=TIMEOUT, follow_redirects=True)
    try:
        with client.stream("GET", url) as response:
            if response.status_code >= 400:
                raise InvalidInput(f"{url} answered {response.status_code} {response.reason_phrase}",
                                   hint="check the address; a page behind a login cannot be downloaded")
            path = folder / page_name(response.url, response.headers.get("content-type", ""))
            size = 0
            with path.open("wb") as f:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        raise InvalidInput(f"{url} is larger than {max_bytes / 1e6:.0f} MB; documents over that"
                                           " are not converted", hint="raise the document_max_mb setting")
                    f.write(chunk)
    except httpx.HTTPError as e:
        raise InvalidInput(f"cannot download {url}: {e}", hint="check the address and the network") from e
    return path


def page_name(url: httpx.URL, content_type: str) -> str:
    """``report.pdf`` for an address ending in a document's name; otherwise one made of the host
    and path (``example.org-notes-trip.html``), with the suffix its content type says."""
    last = url.path.rsplit("/", 1)[-1]
    if is_document_name(last):
        return re.sub(r"[^\w.-]+", "-", last)
    suffix = SUFFIX_OF_TYPE.get(content_type.split(";")[0].strip().lower(), ".html")
    stem = re.sub(r"[^\w.-]+", "-", f"{url.host}{url.path}").strip("-.")[:MAX_STEM] or "page"
    return f"{stem}{suffix}"
