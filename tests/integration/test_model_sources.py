"""Download sources against loopback servers laid out like each: the hub and hf-mirror.com (the hub's
paths, /resolve/<commit>/), ModelScope (/models/<org>/<repo>/resolve/master/<file>, the entry's own
path) and a base URL of one's own. Each serves a real GGUF; the catalog's pinned sha256 and size
make every source equally safe."""

from __future__ import annotations

import hashlib

import pytest

from engram.core.errors import DownloadError, InvalidInput
from engram.core.models import measured, sources
from engram.core.models.catalog import load_catalog
from engram.core.models.library import ModelLibrary
from engram.core.paths import BUNDLED_EMBEDDING_MODEL
from engram.core.settings import Settings
from model_server import ModelServer, write_catalog

SHIPPED = load_catalog().get("qwen3-4b")        # its real paths on the hub and on ModelScope
SHA256 = hashlib.sha256(BUNDLED_EMBEDDING_MODEL.read_bytes()).hexdigest()
SIZE = BUNDLED_EMBEDDING_MODEL.stat().st_size


@pytest.fixture
def servers(tmp_path, monkeypatch):
    """hub, hf-mirror, modelscope and custom servers, each holding the file at its own layout; the
    catalog names the first three's bases, as the shipped one names the real hosts."""
    started = {name: ModelServer().start() for name in ("huggingface", "hf-mirror", "modelscope", "custom")}
    for name in ("huggingface", "hf-mirror", "custom"):
        started[name].serve(SHIPPED.url, BUNDLED_EMBEDDING_MODEL)
    started["modelscope"].announce_sha256 = False       # ModelScope is not the hub: the catalog's sha256 checks
    started["modelscope"].serve("models/" + SHIPPED.modelscope, BUNDLED_EMBEDDING_MODEL)
    entry = {"name": "qwen3-4b", "title": "Qwen3 4B", "kind": "chat", "url": SHIPPED.url,
             "modelscope": SHIPPED.modelscope, "sha256": SHA256, "size": SIZE, "languages": ["zh", "en"]}
    elsewhere = {"name": "hub-only", "title": "Hub only", "kind": "chat",
                 "url": "org/hub-only-GGUF/resolve/0123456789abcdef0123456789abcdef01234567/hub-only.gguf",
                 "sha256": SHA256, "size": SIZE}
    catalog = write_catalog(tmp_path, started["huggingface"].url, [entry, elsewhere],
                            {"hf-mirror": started["hf-mirror"].url, "modelscope": started["modelscope"].url + "/models"})
    monkeypatch.setenv("ENGRAM_MODEL_CATALOG", str(catalog))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    yield started
    for server in started.values():
        server.stop()


def library(source: str = "", mirror: str = "") -> ModelLibrary:
    settings = Settings.load()
    settings.model_source, settings.model_mirror = source, mirror
    settings.save()
    return ModelLibrary(Settings.load())


def asked(server) -> list[str]:
    return [r["path"] for r in server.requests if r["method"] == "GET"]


@pytest.mark.parametrize("source, path", [
    ("huggingface", "/" + SHIPPED.url), ("hf-mirror", "/" + SHIPPED.url),
    ("modelscope", "/models/" + SHIPPED.modelscope), ("custom", "/" + SHIPPED.url)])
def test_each_source_downloads_the_real_file_from_its_own_layout(servers, source, path):
    chosen = library(source, servers["custom"].url if source == "custom" else "")
    assert chosen.source == source and chosen.url(chosen.catalog.get("qwen3-4b")).endswith(path)
    target = chosen.download("qwen3-4b")
    assert target.read_bytes() == BUNDLED_EMBEDDING_MODEL.read_bytes() and target.name == "Qwen3-4B-Q4_K_M.gguf"
    assert asked(servers[source])[0] == path                       # then the redirect to its storage
    assert all(not asked(other) for name, other in servers.items() if name != source)
    assert measured.read(chosen.config_folder).download_bytes_per_second > 0    # the next time is told at it


def test_the_shipped_modelscope_paths_are_modelscope_layout_and_keep_the_file_name():
    catalog = load_catalog()
    on_modelscope = [e for e in catalog.of_kind("chat") if e.modelscope]
    assert {e.family for e in on_modelscope} >= {"Qwen3", "Qwen2.5"}
    for entry in on_modelscope:
        url = sources.url(entry, sources.MODELSCOPE, catalog)
        assert url.startswith("https://modelscope.cn/models/") and "/resolve/master/" in url
        assert url.rsplit("/", 1)[1] == entry.file_name                  # the same file the hub's sha256 pins
    [absent] = [e for e in catalog.of_kind("chat") if e.name == "phi-4-mini-instruct"]
    assert not sources.offers(absent, sources.MODELSCOPE) and sources.offers(absent, sources.HF_MIRROR)


def test_a_model_modelscope_lacks_is_refused_with_the_way_out_and_nothing_asked(servers):
    with pytest.raises(InvalidInput, match="Hub only is not on ModelScope") as error:
        library("modelscope").download("hub-only")
    assert "hf-mirror.com" in error.value.hint
    assert not any(asked(server) for server in servers.values())


def test_a_custom_source_needs_its_base_url(servers):
    with pytest.raises(InvalidInput, match="no base URL"):
        library("custom").download("qwen3-4b")


def test_model_mirror_alone_is_the_custom_source_as_before(servers):
    chosen = library("", servers["custom"].url)
    assert chosen.source == "custom" and chosen.download("qwen3-4b").is_file()
    assert asked(servers["custom"]) and not asked(servers["huggingface"])


def test_a_source_serving_another_file_is_refused_by_the_pinned_checksum(servers, tmp_path):
    other = tmp_path / "other.gguf"
    other.write_bytes(BUNDLED_EMBEDDING_MODEL.read_bytes()[:-1] + b"\1")    # same size, one byte changed
    servers["hf-mirror"].serve(SHIPPED.url, other)
    chosen = library("hf-mirror")
    with pytest.raises(DownloadError, match="not the expected"):
        chosen.download("qwen3-4b")
    assert not chosen.path(chosen.catalog.get("qwen3-4b")).exists()
