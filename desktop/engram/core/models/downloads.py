"""Fetching one model file over HTTP so that Engram never loads a half-written or wrong model.

The bytes go to ``<file>.part`` beside the target; a small ``<file>.part.json`` remembers where
they come from (URL, the server's validator, the expected sha256), so a download paused, dropped or
cut short by a restart goes on from where it stopped (HTTP Range, with If-Range so that a file
changed on the server starts over instead of being spliced). The sha256 is computed as the bytes
arrive and checked before the file takes its name (an atomic rename): a wrong file is deleted.

Which sha256: the caller's (the catalog's) when known, with the file's exact size (a server that
offers another length is refused before a byte arrives: a pinned file that changed), else the one the server announces for the
file (the Hugging Face hub and its mirrors send it as ``X-Linked-Etag``); with neither, nothing
is downloaded unless the caller accepts an unchecked file.

httpx does the HTTP (streaming, timeouts, redirects, proxies from the environment); this module
only decides what to ask for and what to keep.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from engram.core.storage.atomic import write_text_atomic
from engram.core.errors import DownloadError, SourceUnreachable
from engram.core.models.gguf import GGUF_MAGIC
from engram.core.texts import QT_TRANSLATE_NOOP, Text

CHUNK = 1 << 20
RETRIES = 3                              # dropped connections resumed in a row before giving up
RETRY_DELAY_S = 0.5                      # times the attempt number
TIMEOUT = httpx.Timeout(30.0, connect=10.0)
SPARE_DISK = 64 << 20                    # left free after the download, for the database's own growth
PROGRESS_EVERY_S = 0.2
SPEED_WINDOW_S = 5.0
SHA256 = re.compile(r"[0-9a-f]{64}")
OTHER_SOURCE = Text(QT_TRANSLATE_NOOP("Core", "check the network, or choose a download source you can reach (Models ›"
                                              " Download from: hf-mirror.com or ModelScope)"))


@dataclass(frozen=True)
class Progress:
    done: int                            # bytes in the partial file
    total: int | None                    # the file's size, once the server said
    speed: float = 0.0                   # bytes per second, over the last few seconds
    state: str = "downloading"           # checking (hashing a resumed part) | downloading | verifying

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None

    @property
    def eta_s(self) -> float | None:
        if not self.total or self.speed <= 0:
            return None
        return max(0.0, (self.total - self.done) / self.speed)


class DownloadStopped(Exception):
    """The caller's stop event was set: the partial file is kept (a pause; a cancel then discards it)."""


def format_size(size: int | None) -> str:
    if size is None:
        return "?"
    if size >= 2**30:
        return f"{size / 2**30:.1f} GiB"
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"


def format_duration(seconds: float) -> Text:
    """A time to wait, in its largest two units (a Text: the window says it in its language)."""
    seconds = int(round(seconds))
    if seconds < 60:
        return Text(QT_TRANSLATE_NOOP("Core", "{s} s"), s=seconds)
    if seconds < 3600:
        return Text(QT_TRANSLATE_NOOP("Core", "{m} min {s} s"), m=seconds // 60, s=seconds % 60)
    return Text(QT_TRANSLATE_NOOP("Core", "{h} h {m} min"), h=seconds // 3600, m=seconds % 3600 // 60)


def part_path(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + ".part.json")


def partial_size(target: Path) -> int:
    """Bytes already fetched toward target (0 when none)."""
    try:
        return part_path(target).stat().st_size
    except OSError:
        return 0


def discard_partial(target: Path) -> None:
    part_path(target).unlink(missing_ok=True)
    _record_path(target).unlink(missing_ok=True)


def fetch(url: str, target: Path, *, sha256: str | None = None, size: int | None = None,
          allow_unverified: bool = False, stop: threading.Event | None = None,
          on_progress: Callable[[Progress], None] | None = None, client: httpx.Client | None = None) -> str:
    """Download url to target and return the file's sha256 (checked against ``sha256`` or the one
    the server announces; ``size``, when given with it, is the file's exact length). DownloadError
    says what went wrong and what to do; DownloadStopped when ``stop`` was set. Either way a partial
    file that was right so far is kept to resume."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with claimed(target):
        return _fetch(url, target, sha256, size, allow_unverified, stop, on_progress, client)


def _fetch(url, target, sha256, size, allow_unverified, stop, on_progress, client) -> str:
    record = _read_record(target)
    if record.get("url") != url:
        discard_partial(target)             # bytes from elsewhere are no start for this file
        record = {"url": url}
    own_client = client is None
    client = client or httpx.Client(timeout=TIMEOUT, follow_redirects=True)
    job = _Job(url, target, sha256.lower() if sha256 else None, size if sha256 else None, allow_unverified,
               stop or threading.Event(),
               on_progress or (lambda progress: None), client, record)
    attempt = 0
    try:
        while True:
            attempt += 1
            try:
                return job.attempt()
            except (httpx.TransportError, _Incomplete) as e:
                if isinstance(e, httpx.ConnectError) and attempt == 1:
                    raise SourceUnreachable(Text(QT_TRANSLATE_NOOP("Core", "cannot reach {host}: {why}"),
                                                 host=httpx.URL(url).host, why=str(e)), hint=OTHER_SOURCE) from e
                if attempt > RETRIES:
                    raise DownloadError(
                        Text(QT_TRANSLATE_NOOP("Core", "the download of {file} failed {count} times in a row ({why});"
                                                       " {kept:,} bytes are kept"),
                             file=target.name, count=attempt, why=_transport(e), kept=partial_size(target)),
                        hint=Text(QT_TRANSLATE_NOOP("Core", "run the download again to resume from there"))) from e
                if job.stop.wait(RETRY_DELAY_S * attempt):
                    raise DownloadStopped() from e
    finally:
        if own_client:
            client.close()


@contextlib.contextmanager
def claimed(target: Path) -> Iterator[None]:
    """One download of a file at a time, also across processes (the window and a terminal): a
    second one is refused at once rather than writing into the same partial file."""
    lock = target.with_name(target.name + ".part.lock")
    with lock.open("a+b") as handle:
        try:
            _lock(handle, True)
        except OSError as e:
            raise DownloadError(Text(QT_TRANSLATE_NOOP("Core", "{file} is being downloaded already (by another Engram"
                                                               " window or command)"), file=target.name),
                                hint=Text(QT_TRANSLATE_NOOP("Core", "wait for that download to end, or pause it there"
                                                                    " and download here"))) from e
        try:
            yield
        finally:
            _lock(handle, False)
    lock.unlink(missing_ok=True)             # the folder keeps only models and partial downloads


def _lock(handle, take: bool) -> None:
    if os.name == "nt":
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK if take else msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle.fileno(), (fcntl.LOCK_EX | fcntl.LOCK_NB) if take else fcntl.LOCK_UN)


def _transport(error: Exception) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"no data for {TIMEOUT.read:.0f} s"
    return str(error) or type(error).__name__


class _Incomplete(Exception):
    """The server ended the body before the file's length: resumed like a dropped connection."""


class _Job:
    def __init__(self, url, target, sha256, size, allow_unverified, stop, on_progress, client, record):
        self.url, self.target, self.sha256, self.allow_unverified = url, target, sha256, allow_unverified
        self.size = size
        self.stop, self.on_progress, self.client, self.record = stop, on_progress, client, record
        self.part = part_path(target)

    def _start_over(self) -> None:
        discard_partial(self.target)
        self.record = {"url": self.url}

    def attempt(self) -> str:
        have = partial_size(self.target)
        headers = {"Accept-Encoding": "identity"}
        if have:
            headers["Range"] = f"bytes={have}-"
            if self.record.get("validator"):
                headers["If-Range"] = self.record["validator"]
        with self.client.stream("GET", self.url, headers=headers) as response:
            if response.status_code == 416 and have:  # nothing past what we have: a stale or longer part
                self._start_over()
                raise _Incomplete("the kept part did not match the file on the server; starting over")
            self._check_status(response)
            start, total = self._span(response, have)
            if start == 0 and have:
                self._start_over()         # the server ignored the range or the file changed
            expected = self._expected(response)
            self._check_size(total)
            self._check_disk(total, start)
            self.record.update(url=self.url, validator=_validator(response), sha256=expected, total=total)
            _write_record(self.target, self.record)
            digest = self._hash_part(start, total)
            self._receive(response, digest, start, total)
        return self._finish(digest, expected)

    def _check_status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status in (404, 410):
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "{file} is not at {url} (HTTP {status})"),
                     file=self.target.name, url=self.url, status=status),
                hint=Text(QT_TRANSLATE_NOOP("Core", "this source may not carry it: choose another download source"
                                                    " (Models › Download from), or fix the catalog entry")))
        if status in (401, 403):
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "the server refused {url} (HTTP {status})"), url=self.url, status=status),
                hint=Text(QT_TRANSLATE_NOOP("Core", "the model may need a login or a licence accepted on its page;"
                                                    " download it there and choose the .gguf in Settings")))
        if status >= 400:
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "the server answered HTTP {status} for {url}"), status=status, url=self.url),
                hint=Text(QT_TRANSLATE_NOOP("Core", "try again later, or choose another download source"
                                                    " (Models › Download from)")))

    def _span(self, response: httpx.Response, have: int) -> tuple[int, int | None]:
        """Where the body starts in the file and the file's size."""
        length = response.headers.get("content-length")
        if response.status_code == 206:
            match = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)", response.headers.get("content-range", "").strip())
            if not match or int(match[1]) != have:
                self._start_over()
                raise _Incomplete(f"the server sent another range than the one asked for ({match and match[0]})")
            return have, int(match[3]) if match[3] != "*" else None
        return 0, int(length) if length and length.isdigit() else None

    def _expected(self, response: httpx.Response) -> str | None:
        announced = _announced_sha256(response)
        kept = self.record.get("sha256")
        if kept and announced and kept != announced and not self.sha256:
            self._start_over()             # the server's file changed since the part began
            raise _Incomplete("the file changed on the server; starting over")
        expected = self.sha256 or kept or announced
        if expected is None and not self.allow_unverified:
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "no sha256 is known for {file}, so it could not be checked; nothing"
                                               " was downloaded"), file=self.target.name),
                hint=Text(QT_TRANSLATE_NOOP("Core", "add its sha256 to a catalog of your own (setting model_catalog), or"
                                                    " accept an unchecked file: engram models download --unverified")))
        return expected

    def _check_size(self, total: int | None) -> None:
        if self.size is not None and total is not None and total != self.size:
            self._start_over()
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "{url} offers {total:,} bytes, but {file} has {size:,}; nothing more"
                                               " was downloaded"),
                     url=self.url, total=total, file=self.target.name, size=self.size),
                hint=Text(QT_TRANSLATE_NOOP("Core", "the file changed upstream or this source serves another one:"
                                                    " choose another download source (Models › Download from), or"
                                                    " fix the catalog entry")))

    def _check_disk(self, total: int | None, start: int) -> None:
        if total is None:
            return
        free = shutil.disk_usage(self.target.parent).free
        need = total - start + SPARE_DISK
        if need > free:
            values = {"file": self.target.name, "need": need / 2**30, "free": free / 2**30, "folder": self.target.parent}
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "{file} needs {need:.2f} GiB of disk but only {free:.2f} GiB is free"
                                               " in {folder}; nothing more was downloaded (what arrived before is"
                                               " kept)"), **values) if start
                else Text(QT_TRANSLATE_NOOP("Core", "{file} needs {need:.2f} GiB of disk but only {free:.2f} GiB is"
                                                    " free in {folder}; nothing was downloaded"), **values),
                hint=Text(QT_TRANSLATE_NOOP("Core", "free some space, or set ENGRAM_MODELS_DIR to a folder on a larger"
                                                    " disk")))

    def _hash_part(self, start: int, total: int | None):
        """A resumed download's hash starts with the bytes already kept."""
        digest = hashlib.sha256()
        if not start:
            return digest
        self.on_progress(Progress(0, total, state="checking"))
        with self.part.open("rb") as f:
            while block := f.read(CHUNK):
                digest.update(block)
                if self.stop.is_set():
                    raise DownloadStopped()
        return digest

    def _receive(self, response: httpx.Response, digest, start: int, total: int | None) -> None:
        done, samples, last = start, deque([(time.monotonic(), start)]), 0.0
        try:
            with self.part.open("ab" if start else "wb") as f:
                for block in response.iter_raw(CHUNK):
                    f.write(block)
                    digest.update(block)
                    done += len(block)
                    now = time.monotonic()
                    if now - last >= PROGRESS_EVERY_S:
                        samples.append((now, done))
                        while len(samples) > 2 and now - samples[0][0] > SPEED_WINDOW_S:
                            samples.popleft()
                        elapsed = now - samples[0][0]
                        self.on_progress(Progress(done, total, (done - samples[0][1]) / elapsed if elapsed else 0.0))
                        last = now
                    if self.stop.is_set():
                        raise DownloadStopped()
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "cannot write {file}: {why}; {kept:,} bytes are kept"),
                     file=self.part, why=e.strerror or str(e), kept=partial_size(self.target)),
                hint=Text(QT_TRANSLATE_NOOP("Core", "free some disk space (or fix the folder's permissions), then"
                                                    " download again to resume"))) from e
        if total is not None and done < total:
            raise _Incomplete(f"the connection ended after {done:,} of {total:,} bytes")
        self.on_progress(Progress(done, total, state="verifying"))

    def _finish(self, digest, expected: str | None) -> str:
        actual = digest.hexdigest()
        if expected is not None and actual != expected:
            self._start_over()
            raise DownloadError(
                Text(QT_TRANSLATE_NOOP("Core", "{file} arrived with sha256 {actual}, not the expected {expected}; the"
                                               " file was deleted"),
                     file=self.target.name, actual=actual, expected=expected),
                hint=Text(QT_TRANSLATE_NOOP("Core", "download it again; if this repeats, this source serves another"
                                                    " file than the catalog names: choose another download source")))
        with self.part.open("rb") as f:
            if f.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
                self._start_over()
                raise DownloadError(
                    Text(QT_TRANSLATE_NOOP("Core", "what {url} sent is not a GGUF model file; it was deleted"),
                         url=self.url),
                    hint=Text(QT_TRANSLATE_NOOP("Core", "this source may answer with a web page: check the download"
                                                        " source's base URL (Models › Download from)")))
        os.replace(self.part, self.target)
        _record_path(self.target).unlink(missing_ok=True)
        return actual


def _announced_sha256(response: httpx.Response) -> str | None:
    """The file's sha256 as the server states it: X-Linked-Etag on the hub's redirect (or an ETag that
    is one), as huggingface_hub reads it."""
    for hop in (*response.history, response):
        for header in ("x-linked-etag", "etag"):
            value = hop.headers.get(header, "").removeprefix("W/").strip('"').lower()
            if SHA256.fullmatch(value):
                return value
    return None


def _validator(response: httpx.Response) -> str | None:
    """What If-Range may carry: a strong ETag, else Last-Modified."""
    etag = response.headers.get("etag", "")
    if etag and not etag.startswith("W/"):
        return etag
    return response.headers.get("last-modified")


def _read_record(target: Path) -> dict:
    try:
        data = json.loads(_record_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_record(target: Path, record: dict) -> None:
    write_text_atomic(_record_path(target), json.dumps(record) + "\n")
