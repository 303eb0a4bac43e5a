"""Documents attached to a chat: the original kept in ``sources/``, its markdown beside it.

One operation whichever way a document arrives: ``add`` (the command line, the window's drop or
paperclip) copies it into ``sources/`` (``add_url`` downloads a web page's body first; a text or
markdown file, which needs no conversion, goes into the folder itself, as a file of the chat's); a
document a person drops into the chat's folder is moved
there by the index (``adopt``). Either way the index sees new bytes in ``sources/`` and queues
a conversion on the outbox: durable (a crash or a restart resumes it), retried when the disk
fails, and visible (the outbox's health, the source's status detail ``CONVERTING``, and the
pages done so far for those who ``subscribe``).

The conversion writes ``report.pdf.md`` in one atomic rename, with front matter that names its
source (file name, size, sha256, pages), so the markdown appears complete or not at all, and
the index then treats it as any markdown file. That file is the truth from then on: a hand edit
is indexed as it is, and the original is converted again only when its own bytes change, when
the hand-edited copy is kept beside the new one and the status says so. A document that cannot
be converted (encrypted, scanned without a text layer, damaged, a zip bomb, a misleading suffix
or too large) gets a ``problem`` status that says why; its original is kept.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from engram.core.errors import DataDirError, InvalidInput, NotFound
from engram.core.files import document, web
from engram.core.files.catalog import INDEXED, PROBLEM
from engram.core.files.converters import Cancelled, Converted, convert
from engram.core.files.folder import MAX_FILE_BYTES, file_hash
from engram.core.files.formats import KINDS, SOURCES_DIR, SUFFIXES, is_document_name, markdown_name, sniff
from engram.core.files.index import FileIndex
from engram.core.files.names import check_name, is_text_name
from engram.core.storage.atomic import write_bytes_atomic

log = logging.getLogger(__name__)
CONVERT_JOB = "convert_document"
CONVERTING = "waiting to be converted"    # a source's detail until its markdown is written
Listener = Callable[[str, str, int, int], None]      # (folder, source name, done, total)


def check_text(path: Path, name: str) -> None:
    """A text or markdown file a chat's folder can hold as it is: UTF-8 text of at most MAX_FILE_BYTES."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidInput(f"{name} is larger than {MAX_FILE_BYTES // 1024} KiB, the limit for a file of a chat",
                           hint="split it into smaller files")
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{name} is not UTF-8 text", hint="save it as UTF-8 and add it again") from e


class Documents:
    def __init__(self, index: FileIndex, enqueue: Callable[[dict], object], max_mb: Callable[[], int],
                 embed_later: Callable[[], None]):
        """``enqueue``: queues a CONVERT_JOB with its payload on the outbox (whose handler calls
        ``run``); ``max_mb``: the document_max_mb setting, read at each use (Settings may change it);
        ``embed_later``: queues the embedding of chunks stored without vectors (a document's)."""
        self.index = index
        self.enqueue = enqueue
        self.embed_later = embed_later
        self.max_mb = max_mb
        self._listeners: list[Listener] = []
        self._cancelled: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        index.documents = self

    # -- arriving ------------------------------------------------------------------------------

    def add(self, folder: str, path: Path | str) -> str:
        """Attach the document at ``path`` to the chat whose folder is ``folder``: checked (a
        clear InvalidInput for what cannot be converted, and nothing is copied), copied into
        ``sources/`` and queued for conversion; a text or markdown file is copied into the folder
        as it is, and indexed. Returns its name in the folder."""
        path = Path(path)
        if not path.is_file():
            raise NotFound(f"{path} is not a file", hint="give the path of a document")
        name = check_name(path.name)
        text = is_text_name(name)
        if not text and not is_document_name(name):
            raise InvalidInput(f"{name} is not a document Engram converts",
                               hint="add PDF, DOCX, PPTX, XLSX, CSV, HTML, EPUB, markdown or text files")
        if text:
            check_text(path, name)
        else:
            sniff(path, name, self.max_bytes)
        if self.index.scope_for(folder) is None:
            raise NotFound(f"{folder!r} is not the folder of a session (was the chat deleted?)")
        target = self._free_name(folder, name, file_hash(path), "" if text else SOURCES_DIR)
        dest = self.index.folder(folder).locate(target)
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, draft = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
            os.close(fd)
            try:
                shutil.copyfile(path, draft)
                os.replace(draft, dest)
            except OSError as e:
                Path(draft).unlink(missing_ok=True)
                raise DataDirError(f"cannot copy {name} into the chat's folder: {e.strerror or e}",
                                   hint="check the free disk space") from e
        self.index.sync_file(folder, target)
        return target

    def add_url(self, folder: str, url: str) -> str:
        """Attach the document at a web address (web.py): its body downloaded, then ``add``."""
        with tempfile.TemporaryDirectory(prefix="engram-page-") as tmp:
            return self.add(folder, web.download(url, Path(tmp), self.max_bytes))

    def adopt(self, folder: str, name: str) -> str:
        """A document a person put in the folder itself, moved into ``sources/``; its new name."""
        session_folder = self.index.folder(folder)
        path = session_folder.locate(name)
        target = self._free_name(folder, name.rsplit("/", 1)[-1], file_hash(path))
        dest = session_folder.locate(target)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():            # the same bytes are there already
            path.unlink()
        else:
            os.replace(path, dest)
        return target

    def _free_name(self, folder: str, name: str, digest: str, under: str = SOURCES_DIR) -> str:
        """``sources/<name>``, or ``sources/<stem>-2<suffix>``... when another document has that name;
        the name of a source with the same bytes when there is one (adding twice adds once).
        ``under``: the subfolder ("" for the folder itself)."""
        stem, dot, suffix = name.rpartition(".")
        at = f"{under}/" if under else ""
        n = 1
        while True:
            candidate = f"{at}{name}" if n == 1 else f"{at}{stem}-{n}{dot}{suffix}"
            path = self.index.folder(folder).locate(candidate)
            if not path.exists() or file_hash(path) == digest:
                return candidate
            n += 1

    @property
    def max_bytes(self) -> int:
        return self.max_mb() * 1_000_000

    # -- the index's side ------------------------------------------------------------------------

    def queue(self, folder: str, name: str, digest: str) -> tuple[str, str, str]:
        """New bytes in ``sources/``: (status, detail, description) for the index to record. A
        markdown already made from these very bytes is kept (an index rebuilt from disk converts
        nothing); otherwise a conversion is queued."""
        made = self._markdown_source(folder, name)
        if made.get("sha256") == digest:
            return INDEXED, "", _description(made, markdown_name(name))
        self.enqueue({"folder": folder, "name": name, "sha256": digest})
        kind = KINDS.get(SUFFIXES.get(Path(name).suffix.lower(), ""), "document")
        return INDEXED, CONVERTING, f"{kind}; being converted to markdown"

    def _markdown_source(self, folder: str, name: str) -> dict:
        """The ``source`` front matter of the source's markdown, or {} when there is none."""
        try:
            return self.index.folder(folder).read(markdown_name(name)).source
        except (NotFound, InvalidInput, DataDirError):
            return {}

    # -- converting (the outbox's job) ---------------------------------------------------------

    def run(self, payload: dict) -> None:
        """Convert one source. A document that cannot be converted ends as the source's problem
        (the job is done: trying again would say the same); a disk failure raises, and the
        outbox retries."""
        folder, name = payload["folder"], payload["name"]
        key = (folder, name)
        try:
            path = self.index.folder(folder).locate(name)
            if self.index.scope_for(folder) is None or not path.is_file():
                return                  # the chat or the file went meanwhile
            digest, size = file_hash(path), path.stat().st_size
            try:
                if key in self._cancelled:
                    raise Cancelled()
                sniffed = sniff(path, name.rsplit("/", 1)[-1], self.max_bytes)
                converted = convert(path, name.rsplit("/", 1)[-1], sniffed.kind, lambda d, t: self._step(key, d, t))
            except InvalidInput as e:
                self.index.record_source(folder, name, PROBLEM, e.message, digest=digest, size=size)
                return
            except Cancelled:
                self.index.record_source(folder, name, PROBLEM, "conversion cancelled; add the document again to"
                                         " convert it", digest=digest, size=size)
                return
            source = {"name": name.rsplit("/", 1)[-1], "path": name, "kind": sniffed.kind, "size": size,
                      "sha256": digest, "pages": converted.pages, "unit": converted.unit}
            detail = self._write(folder, name, converted, source, [sniffed.note, converted.note])
            self.index.record_source(folder, name, INDEXED, detail, _description(source, markdown_name(name)),
                                     digest=digest, size=size)
        finally:
            with self._lock:
                self._cancelled.discard(key)
            self._tell(folder, name, -1, -1)

    def _write(self, folder: str, name: str, converted: Converted, source: dict, notes: list[str]) -> str:
        """Write the markdown (atomically) and index it; returns the notes for the status. A hand
        edit of an earlier conversion is kept beside it, under a name that says so."""
        session_folder = self.index.folder(folder)
        target = markdown_name(name)
        path = session_folder.locate(target)
        before = self._markdown_source(folder, name)
        if before:
            notes.append("converted again: the original changed")
            old = session_folder.read(target)
            if before.get("body_sha256") != _body_hash(old.body):
                stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d_%H%M%S")
                kept = f"{target[:-3]}.edited-{stamp}.md"
                os.replace(path, session_folder.locate(kept))
                notes.append(f"your edits are kept in {kept}")
                self.index.sync_file(folder, kept)
        body = converted.markdown.rstrip() + "\n"
        first = next((line for line in body.splitlines() if line.strip() and not line.startswith("#")), "")
        header = {"description": converted.title or f"{source['name']}: {first.strip()}".rstrip(": "),
                  "source": source | {"body_sha256": _body_hash(body)}}
        write_bytes_atomic(path, document.render_meta(header, body).encode("utf-8"))
        self.index.sync_file(folder, target)
        return "; ".join(n for n in notes if n)

    # -- progress and cancelling ---------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """``listener(folder, name, done, total)`` on the converting thread; done -1 when it ended."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def cancel(self, folder: str, name: str) -> None:
        """Stop the conversion of a source (running now or still queued) at the next page."""
        with self._lock:
            self._cancelled.add((folder, name))

    def _step(self, key: tuple[str, str], done: int, total: int) -> None:
        with self._lock:
            if key in self._cancelled:
                raise Cancelled()
        self._tell(*key, done, total)

    def _tell(self, folder: str, name: str, done: int, total: int) -> None:
        for listener in list(self._listeners):
            try:
                listener(folder, name, done, total)
            except Exception:  # a listener's bug must not stop a conversion
                log.exception("document progress listener failed")


def _body_hash(body: str) -> str:
    return hashlib.sha256(body.strip().encode("utf-8")).hexdigest()


def _description(source: dict, markdown: str) -> str:
    """What a listing says of a converted source: its kind, its pages, where its text is."""
    count, unit = source.get("pages") or 0, source.get("unit") or "pages"
    pages = f", {count} {unit[:-1] if count == 1 else unit}" if count else ""
    return f"{KINDS.get(source.get('kind', ''), 'document')}{pages}; text in {markdown}"
