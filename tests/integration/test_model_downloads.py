"""Downloads of real GGUF files from a loopback server that behaves like a model hub (and, on
request, like a bad network): resumed, verified, refused, queued; then used for a real turn."""

from __future__ import annotations

import hashlib
import shutil
import socket
import threading
from collections import namedtuple

import httpx
import pytest

from engram.core.models import downloads
from engram.core.models.download_queue import CANCELLED, DONE, FAILED, PAUSED, DownloadQueue
from engram.core.models.downloads import DownloadStopped, part_path, partial_size
from engram.core.errors import DownloadError, InvalidInput
from engram.core.models.library import ModelLibrary
from engram.core.paths import BUNDLED_EMBEDDING_MODEL
from engram.core.settings import Settings
from model_server import ModelServer, write_catalog

EMBEDDING = "minilm"
EMBEDDING_URL = "test/minilm-GGUF/resolve/main/all-MiniLM-L6-v2.Q8_0.gguf"
MB = 1 << 20


def sha256_of(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def server():
    served = ModelServer().start()
    served.serve(EMBEDDING_URL, BUNDLED_EMBEDDING_MODEL)
    yield served
    served.stop()


def served_as(server, name: str) -> str:
    """The bundled model served again under another file name; returns its URL in the catalog."""
    url = f"test/{name}-GGUF/resolve/main/{name}.gguf"
    server.serve(url, BUNDLED_EMBEDDING_MODEL)
    return url


@pytest.fixture
def catalog(server, tmp_path, monkeypatch):
    """The tests' catalog on the loopback mirror; returns a function that rewrites it."""
    def write(*extra, mirror=server.url):
        entries = [{"name": EMBEDDING, "kind": "embedding", "url": EMBEDDING_URL}, *extra]
        path = write_catalog(tmp_path, mirror, entries)
        monkeypatch.setenv("ENGRAM_MODEL_CATALOG", str(path))
        return path

    write()
    return write


@pytest.fixture
def models_dir(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(folder))
    return folder


@pytest.fixture
def library(catalog, models_dir):
    return lambda: ModelLibrary(Settings.load())          # a fresh one is what a restart sees


def stop_after(server, nbytes: int):
    """A stop event and a progress callback that sets it once nbytes have arrived (a pause); the
    server is slowed so that progress is reported before the whole file is there."""
    server.pace_s = 0.002
    stop, seen = threading.Event(), []

    def progressed(progress):
        seen.append(progress)
        if progress.done >= nbytes:
            stop.set()

    return stop, progressed, seen


def test_a_download_is_verified_against_the_announced_sha256_and_takes_its_name_atomically(server, library):
    seen = []
    path = library().download(EMBEDDING, on_progress=seen.append)
    assert path.read_bytes() == BUNDLED_EMBEDDING_MODEL.read_bytes()
    assert not part_path(path).exists() and list(path.parent.iterdir()) == [path]
    downloading = [p for p in seen if p.state == "downloading"]
    assert downloading and all(p.total == BUNDLED_EMBEDDING_MODEL.stat().st_size for p in downloading)
    assert [p.done for p in downloading] == sorted(p.done for p in downloading)
    assert seen[-1].state == "verifying" and seen[-1].done == seen[-1].total
    status = library().status(EMBEDDING)
    assert status.installed and status.partial == 0


def test_a_dropped_connection_mid_file_resumes_where_it_stopped(server, library):
    server.drop_after = [5 * MB]
    path = library().download(EMBEDDING)
    assert sha256_of(path) == sha256_of(BUNDLED_EMBEDDING_MODEL)
    first, second = server.ranges()
    assert first is None and second.startswith("bytes=") and 0 < int(second[6:-1]) <= 5 * MB


def test_a_paused_download_resumes_after_a_restart_from_the_partial_file(server, library):
    stop, progressed, _ = stop_after(server, 4 * MB)
    with pytest.raises(DownloadStopped):
        library().download(EMBEDDING, stop=stop, on_progress=progressed)
    target = library().path(library().catalog.get(EMBEDDING))
    kept = partial_size(target)
    assert kept >= 4 * MB and not target.exists()
    assert library().status(EMBEDDING).partial == kept

    seen = []
    path = library().download(EMBEDDING, on_progress=seen.append)       # a new library: as after a restart
    assert server.ranges()[-1] == f"bytes={kept}-"
    assert seen[0].state == "checking"                                    # the kept bytes are hashed first
    assert sha256_of(path) == sha256_of(BUNDLED_EMBEDDING_MODEL)


def test_a_server_that_ignores_range_restarts_from_zero_and_the_file_is_right(server, library):
    stop, progressed, _ = stop_after(server, 3 * MB)
    with pytest.raises(DownloadStopped):
        library().download(EMBEDDING, stop=stop, on_progress=progressed)
    server.ignore_range = True
    path = library().download(EMBEDDING)
    assert server.ranges()[-1].startswith("bytes=")                       # asked, answered with the whole file
    assert sha256_of(path) == sha256_of(BUNDLED_EMBEDDING_MODEL)


def test_a_kept_part_longer_than_the_file_is_refused_by_the_server_and_started_over(server, library):
    stop, progressed, _ = stop_after(server, 2 * MB)
    with pytest.raises(DownloadStopped):
        library().download(EMBEDDING, stop=stop, on_progress=progressed)
    target = library().path(library().catalog.get(EMBEDDING))
    with part_path(target).open("ab") as part:                           # e.g. a file shortened on the server
        part.write(b"\0" * BUNDLED_EMBEDDING_MODEL.stat().st_size)
    path = library().download(EMBEDDING)
    assert sha256_of(path) == sha256_of(BUNDLED_EMBEDDING_MODEL)
    assert server.ranges()[-2].startswith("bytes=") and server.ranges()[-1] is None     # 416, then from 0


def test_a_file_changed_on_the_server_since_the_pause_starts_over(server, library, tmp_path):
    stop, progressed, _ = stop_after(server, 3 * MB)
    with pytest.raises(DownloadStopped):
        library().download(EMBEDDING, stop=stop, on_progress=progressed)
    changed = tmp_path / "changed.gguf"                                   # a new upload: other bytes, other ETag
    changed.write_bytes(BUNDLED_EMBEDDING_MODEL.read_bytes()[:-4096] + b"\0" * 4096)
    server.serve(EMBEDDING_URL, changed)
    path = library().download(EMBEDDING)
    assert server.requests[-1]["if_range"] is not None                    # the resume named the old version
    assert sha256_of(path) == sha256_of(changed)


def test_a_second_download_of_the_same_file_is_refused_while_one_runs(server, library):
    target = library().path(library().catalog.get(EMBEDDING))
    target.parent.mkdir(parents=True)
    with downloads.claimed(target):                                       # as another process would hold it
        with pytest.raises(DownloadError, match="is being downloaded already"):
            library().download(EMBEDDING)
    assert server.requests == []
    assert library().download(EMBEDDING).is_file() and list(target.parent.iterdir()) == [target]


def test_a_wrong_checksum_is_refused_and_the_bad_file_deleted(server, catalog, library):
    catalog({"name": "wrong", "kind": "embedding", "url": served_as(server, "wrong"), "sha256": "0" * 64})
    with pytest.raises(DownloadError, match="sha256 .* not the expected 0000") as error:
        library().download("wrong")
    assert "deleted" in str(error.value)
    target = library().path(library().catalog.get("wrong"))
    assert not target.exists() and not part_path(target).exists() and not library().status("wrong").installed


def test_the_catalog_sha256_wins_over_the_announced_one(server, catalog, library):
    known = served_as(server, "known")
    for url in (EMBEDDING_URL, known):
        server.files[url].sha256 = "1" * 64                               # the server announces a wrong one
    catalog({"name": "known", "kind": "embedding", "url": known, "sha256": sha256_of(BUNDLED_EMBEDDING_MODEL)})
    assert library().download("known").is_file()
    with pytest.raises(DownloadError, match="not the expected 1111"):
        library().download(EMBEDDING)                                     # no catalog sha256: the server's is used


def test_a_full_disk_is_refused_before_a_byte_is_written(server, library, monkeypatch):
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10 * MB, 9 * MB, 1 * MB))
    with pytest.raises(DownloadError, match="needs .* GiB of disk but only 0.00 GiB is free") as error:
        library().download(EMBEDDING)
    assert "nothing was downloaded" in str(error.value) and "ENGRAM_MODELS_DIR" in error.value.hint
    target = library().path(library().catalog.get(EMBEDDING))
    assert not part_path(target).exists() and not target.exists()


def test_a_missing_file_is_a_clear_404(server, catalog, library):
    catalog({"name": "gone", "kind": "chat", "url": "test/gone/resolve/main/gone.gguf"})
    with pytest.raises(DownloadError, match="gone.gguf is not at .* \\(HTTP 404\\)") as error:
        library().download("gone")
    assert "Download from" in error.value.hint
    assert not part_path(library().path(library().catalog.get("gone"))).exists()


def test_with_no_checksum_known_nothing_is_fetched_unless_accepted(server, library):
    server.announce_sha256 = False
    with pytest.raises(DownloadError, match="no sha256 is known") as error:
        library().download(EMBEDDING)
    assert "--unverified" in error.value.hint and partial_size(library().path(library().catalog.get(EMBEDDING))) == 0
    path = library().download(EMBEDDING, allow_unverified=True)
    assert sha256_of(path) == sha256_of(BUNDLED_EMBEDDING_MODEL)


def test_a_refused_connection_and_a_silent_server_are_clear_errors(catalog, library, monkeypatch):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    catalog(mirror=f"http://127.0.0.1:{port}")
    with pytest.raises(DownloadError, match="cannot reach 127.0.0.1") as error:
        library().download(EMBEDDING)
    assert "Download from" in error.value.hint

    silent = socket.socket()                 # accepts connections (the backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        catalog(mirror=f"http://127.0.0.1:{silent.getsockname()[1]}")
        monkeypatch.setattr(downloads, "RETRY_DELAY_S", 0.01)
        with httpx.Client(timeout=0.3) as client, pytest.raises(DownloadError, match="failed 4 times") as error:
            library().download(EMBEDDING, client=client)
        assert "resume" in error.value.hint
    finally:
        silent.close()


def test_the_mirror_setting_is_the_download_base(server, catalog, library, tmp_path):
    catalog(mirror="http://127.0.0.1:9/nowhere")                        # the catalog's own mirror is unreachable
    settings = Settings.load()
    settings.model_mirror = server.url + "/"
    settings.save()
    assert library().download(EMBEDDING).is_file()


def test_a_pinned_entry_downloads_through_the_mirror_and_its_revision_is_kept(server, catalog, library):
    """The shipped catalog's shape: /resolve/<commit>/, exact size and sha256, fetched from model_mirror."""
    pinned = "org/pinned-GGUF/resolve/0123456789abcdef0123456789abcdef01234567/pinned.gguf"
    server.serve(pinned, BUNDLED_EMBEDDING_MODEL)
    catalog({"name": "pinned", "kind": "embedding", "url": pinned, "sha256": sha256_of(BUNDLED_EMBEDDING_MODEL),
             "size": BUNDLED_EMBEDDING_MODEL.stat().st_size}, mirror="http://127.0.0.1:9/nowhere")
    settings = Settings.load()
    settings.model_mirror = server.url + "/"
    settings.save()
    assert library().download("pinned").read_bytes() == BUNDLED_EMBEDDING_MODEL.read_bytes()


def test_a_pinned_file_of_another_size_is_refused_before_a_byte_arrives(server, catalog, library):
    url = served_as(server, "resized")
    size = BUNDLED_EMBEDDING_MODEL.stat().st_size
    catalog({"name": "resized", "kind": "embedding", "url": url, "sha256": sha256_of(BUNDLED_EMBEDDING_MODEL),
             "size": size + 1})
    with pytest.raises(DownloadError, match=f"offers {size:,} bytes, but resized.gguf has {size + 1:,}") as error:
        library().download("resized")
    assert "Download from" in error.value.hint
    target = library().path(library().catalog.get("resized"))
    assert not part_path(target).exists() and not target.exists()


def test_the_queue_downloads_several_in_turn_and_pauses_resumes_and_cancels(server, catalog, library, monkeypatch):
    monkeypatch.setattr(downloads, "RETRY_DELAY_S", 0.01)
    catalog({"name": "second", "kind": "embedding", "url": served_as(server, "second")},
            {"name": "third", "kind": "embedding", "url": served_as(server, "third")})
    states = []
    queue = DownloadQueue(library(), states.append)
    try:
        for name in (EMBEDDING, "second", "third"):
            queue.add(name)
        queue.cancel("third")                                            # still queued: never starts
        assert queue.wait(60)
        assert [queue.state(n).state for n in (EMBEDDING, "second", "third")] == [DONE, DONE, CANCELLED]
        started = [s.name for s in states if s.state == "downloading" and s.progress is None]
        assert started == [EMBEDDING, "second"]                          # one after the other, in order

        library().remove(EMBEDDING)
        server.pace_s = 0.002
        paused = threading.Event()
        queue.on_change = lambda s: (states.append(s), s.progress and s.progress.done >= 2 * MB and paused.set())
        queue.add(EMBEDDING)
        assert paused.wait(30)
        queue.pause(EMBEDDING)
        assert queue.wait(30) and queue.state(EMBEDDING).state == PAUSED
        kept = partial_size(library().path(library().catalog.get(EMBEDDING)))
        assert kept >= 2 * MB
        queue.on_change = states.append
        queue.add(EMBEDDING)                                             # resume
        assert queue.wait(60) and queue.state(EMBEDDING).state == DONE
        assert server.ranges()[-1] == f"bytes={kept}-"

        library().remove("second")
        server.drop_after = [2 * MB] * 10
        queue.add("second")
        assert queue.wait(60) and queue.state("second").state == FAILED
        assert "failed 4 times" in str(queue.state("second").error)
        assert library().status("second").partial > 0
        queue.cancel("second")                                           # failed: cancel deletes what arrived
        assert queue.state("second").state == CANCELLED and library().status("second").partial == 0
    finally:
        queue.close()


def test_bundled_models_are_neither_downloaded_nor_removed(catalog, library):
    catalog({"name": "shipped", "kind": "embedding", "bundled": "models/multilingual-e5-small.Q4_0.gguf"})
    with pytest.raises(InvalidInput, match="ships with Engram"):
        library().download("shipped")
    with pytest.raises(InvalidInput, match="cannot be removed"):
        library().remove("shipped")
    status = library().status("shipped")
    assert status.installed and status.in_use           # the bundled default embedding model
