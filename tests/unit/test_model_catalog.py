"""The shipped model catalog, catalogs of one's own, mirrors, and what suits which machine."""

from __future__ import annotations

import hashlib
import json

import pytest

from engram.core import paths
from engram.core.errors import InvalidInput, NotFound
from engram.core.models.catalog import catalog_path, load_catalog
from engram.core.models.fit import Machine, assess
from model_server import write_catalog

GB = 10**9


def test_the_shipped_catalog_covers_small_chat_models_and_the_embedding_models():
    catalog = load_catalog()
    assert catalog.path == paths.RESOURCES_DIR / "model_catalog.json" and catalog.mirror.startswith("https://")
    chat = catalog.of_kind("chat")
    assert len(chat) >= 10 and all(1 <= e.parameters_b <= 8.5 and e.quantisation == "Q4_K_M" for e in chat)
    assert {"Qwen3", "Qwen2.5", "Llama 3.2", "Gemma 3", "Phi-4", "Mistral", "SmolLM3"} <= {e.family for e in chat}
    assert any("zh" in e.languages for e in chat)
    for e in chat:
        assert e.url.endswith(".gguf") and e.size and e.ram_gb * GB > e.size and e.licence and e.chat_template
        assert e.sha256 is None          # not known on the machine that wrote the catalog: never guessed
    assert {e.name for e in catalog.of_kind("embedding")} >= {"all-minilm-l6-v2", "multilingual-e5-small"}


@pytest.mark.parametrize("name, bundled", [("multilingual-e5-small", paths.BUNDLED_EMBEDDING_MODEL),
                                           ("all-minilm-l6-v2", paths.MINILM_EMBEDDING_MODEL)])
def test_the_bundled_embedding_model_entries_state_the_real_files(name, bundled):
    entry = load_catalog().get(name)
    path = paths.RESOURCES_DIR / entry.bundled
    assert path == bundled
    assert path.stat().st_size == entry.size and hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha256


def test_a_catalog_of_ones_own_replaces_the_shipped_one_setting_first(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine = write_catalog(tmp_path / "a", "http://mirror.test", [{"name": "x", "kind": "chat", "url": "o/r/x.gguf"}])
    other = write_catalog(tmp_path / "b", "http://other.test", [{"name": "y", "kind": "chat", "url": "y.gguf"}])
    monkeypatch.setenv("ENGRAM_MODEL_CATALOG", str(mine))
    assert [e.name for e in load_catalog().entries] == ["x"] and catalog_path() == mine
    assert [e.name for e in load_catalog(str(other)).entries] == ["y"]


def test_urls_are_relative_to_the_mirror_unless_absolute(tmp_path):
    path = write_catalog(tmp_path, "https://hub.test", [
        {"name": "rel", "kind": "chat", "url": "org/repo/resolve/main/a b.gguf"},
        {"name": "abs", "kind": "chat", "url": "https://elsewhere.test/x/model.gguf"}])
    catalog = load_catalog(str(path))
    rel = catalog.get("rel")
    assert rel.source_url("https://hub.test") == "https://hub.test/org/repo/resolve/main/a%20b.gguf"
    assert rel.source_url("https://mirror.test/hf/") == "https://mirror.test/hf/org/repo/resolve/main/a%20b.gguf"
    assert rel.file_name == "a b.gguf"
    assert catalog.get("abs").source_url("https://mirror.test") == "https://elsewhere.test/x/model.gguf"
    with pytest.raises(NotFound, match="no model named 'nope'") as error:
        catalog.get("nope")
    assert "rel, abs" in error.value.hint


@pytest.mark.parametrize("entry, message", [
    ({"name": "x", "kind": "chat"}, "either 'url'"),
    ({"name": "x", "kind": "chat", "url": "a.gguf", "bundled": "b.gguf"}, "not both"),
    ({"name": "x", "kind": "vision", "url": "a.gguf"}, "kind 'vision'"),
    ({"name": "x", "kind": "chat", "url": "a.bin"}, "must be a .gguf"),
    ({"name": "X Y", "kind": "chat", "url": "a.gguf"}, "lower case"),
    ({"name": "x", "kind": "chat", "url": "a.gguf", "sha256": "abc"}, "64 hex digits"),
    ({"name": "x", "kind": "chat", "url": "a.gguf", "ram_gb": "lots"}, "'ram_gb' is missing or not"),
    ({"name": "x", "kind": "chat", "url": "a.gguf", "tools": "yes"}, "'tools' is missing or not bool"),
])
def test_a_wrong_catalog_entry_is_named_in_the_error(tmp_path, entry, message):
    with pytest.raises(InvalidInput, match=message) as error:
        load_catalog(str(write_catalog(tmp_path, "", [entry])))
    assert "model 1" in str(error.value)


def test_an_unreadable_catalog_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidInput, match="cannot read the model catalog") as error:
        load_catalog(str(tmp_path / "missing.json"))
    assert "ENGRAM_MODEL_CATALOG" in error.value.hint
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not valid JSON"):
        load_catalog(str(broken))
    broken.write_text(json.dumps({"format": 2, "models": []}), encoding="utf-8")
    with pytest.raises(InvalidInput, match="format 2"):
        load_catalog(str(broken))
    two = write_catalog(tmp_path, "", [{"name": "x", "kind": "chat", "url": "a.gguf"}] * 2)
    with pytest.raises(InvalidInput, match="the name 'x' is used twice"):
        load_catalog(str(two))
    one_file = write_catalog(tmp_path, "", [{"name": "x", "kind": "chat", "url": "r1/a.gguf"},
                                            {"name": "y", "kind": "chat", "url": "r2/a.gguf"}])
    with pytest.raises(InvalidInput, match="the file name 'a.gguf' is used twice"):
        load_catalog(str(one_file))


def test_what_fits_and_what_is_recommended_follows_memory_and_cores():
    entries = load_catalog().entries
    small = assess(entries, Machine(6 * 2**30, 2))
    assert small["qwen3-8b"].label == "too big" and small["mistral-7b-instruct-v0.3"].label == "too big"
    assert small["gemma-3-1b-it"].fits and small["all-minilm-l6-v2"].fits
    [pick] = [name for name, fit in small.items() if fit.recommended]
    assert entries[[e.name for e in entries].index(pick)].size < 1.5 * GB       # on 2 cores, a small one

    big = assess(entries, Machine(64 * 2**30, 16))
    assert all(fit.fits for fit in big.values())
    [pick] = [name for name, fit in big.items() if fit.recommended]
    chosen = entries[[e.name for e in entries].index(pick)]
    assert chosen.tools and chosen.parameters_b >= 7                           # many cores: a large one is fast
    assert big["qwen3-8b"].tokens_per_second > small["qwen3-1.7b"].tokens_per_second

    none = assess(entries, Machine(2 * 2**30, 1))
    assert not any(fit.fits for name, fit in none.items() if name.startswith("qwen3"))
    assert not any(fit.recommended for fit in none.values())
