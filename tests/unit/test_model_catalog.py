"""The shipped model catalog, catalogs of one's own, mirrors, and what suits which machine."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from engram.core import paths
from engram.core.errors import InvalidInput, NotFound
from engram.core.models.catalog import TOOL_FORMATS, catalog_path, load_catalog
from engram.core.models import measured
from engram.core.models.fit import Machine, assess, language_of
from engram.core.models.sources import join
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
    assert {e.name for e in catalog.of_kind("embedding")} >= {"all-minilm-l6-v2", "multilingual-e5-small",
                                                              "qwen3-embedding-0.6b", "bge-m3"}
    assert {e.name for e in catalog.of_kind("reranker")} == {"bge-reranker-v2-m3", "qwen3-reranker-0.6b"}


# From ../shared/catalog-facts.md: each value seen in at least two public sources that agree.
PINNED = {
    "qwen3-1.7b": ("d7f544eead698dbd1f15126ef60b45a1e1933222", 1107409472, "b139949c5bd74937"),
    "qwen3-4b": ("bc640142c66e1fdd12af0bd68f40445458f3869b", 2497280256, "7485fe6f11af2943"),
    "qwen3-8b": ("7c41481f57cb95916b40956ab2f0b139b296d974", 5027783488, "d98cdcbd03e17ce4"),
    "qwen2.5-1.5b-instruct": ("91cad51170dc346986eccefdc2dd33a9da36ead9", 1117320736, "6a1a2eb6d15622bf"),
    "qwen2.5-3b-instruct": ("7dabda4d13d513e3e842b20f0d435c732f172cbe", 2104932768, "626b4a6678b86442"),
    "qwen2.5-7b-instruct": ("8911e8a47f92bac19d6f5c64a2e2095bd2f7d031", 4683074240, "65b8fcd92af6b4fe"),
    "llama-3.2-3b-instruct": ("5ab33fa94d1d04e903623ae72c95d1696f09f9e8", 2019377696, "6c1a2b4116103267"),
    "gemma-3-1b-it": ("116f76234503685a98f572982177b11d44ec8ff1", 806058496, "12bf0fff8815d5f7"),
    "gemma-3-4b-it": ("71506238f970075ca85125cd749c28b1b0eee84e", 2489758112, "4996030242583a40"),
    "phi-4-mini-instruct": ("7ff82c2aaa4dde30121698a973765f39be5288c0", 2491874688, "01999f17c39cc307"),
    "mistral-7b-instruct-v0.3": ("61fd4167fff3ab01ee1cfe0da183fa27a944db48", 4372812000, "1270d22c0fbb3d09"),
    "smollm3-3b": ("a7bc17204c8a326d6bd6e466e076959eddae2025", 1915306528, "4de907d2d388a550"),
    "qwen3-embedding-0.6b": ("370f27d7550e0def9b39c1f16d3fbaa13aa67728", 639150592, "06507c7b42688469"),
    "bge-m3": ("9eba04c5d75ba5a1595e45de734d36bef4e5cb98", 634553760, "aa473d51f451a22f"),
    "bge-reranker-v2-m3": ("3093af03b1a635e67b084b1d8c03c5f5e020fd05", 635676416, "a43c7c9b11a4c151"),
    "qwen3-reranker-0.6b": ("a02f48bb4f057028298c21fa033da2b30d7742d5", 639153184, "22c9979ce4fbcdc5"),
}


def test_every_download_is_pinned_to_a_revision_with_its_exact_size_and_sha256():
    downloads = [e for e in load_catalog().entries if e.url]
    assert {e.name for e in downloads} == set(PINNED)
    for e in downloads:
        revision, size, sha256 = PINNED[e.name]
        assert re.fullmatch(r"[^/]+/[^/]+/resolve/([0-9a-f]{40})/[^/]+\.gguf", e.url)[1] == revision, e.name
        assert e.size == size and e.sha256.startswith(sha256) and len(e.sha256) == 64, e.name
    assert load_catalog().get("qwen2.5-3b-instruct").licence.startswith("Qwen Research License")


def test_every_chat_family_says_how_it_writes_a_tool_call():
    formats = {e.family: e.tool_format for e in load_catalog().of_kind("chat")}
    assert formats == {"Qwen3": "hermes", "Qwen2.5": "hermes", "SmolLM3": "hermes", "Llama 3.2": "llama3",
                       "Mistral": "mistral", "Phi-4": "phi4", "Gemma 3": "json"}
    assert set(formats.values()) == set(TOOL_FORMATS)


def test_a_downloaded_file_is_known_by_its_name_wherever_it_lies(tmp_path):
    catalog = load_catalog()
    assert catalog.for_file(tmp_path / "Llama-3.2-3B-Instruct-Q4_K_M.gguf").name == "llama-3.2-3b-instruct"
    assert catalog.for_file("/models/mine.gguf") is None
    assert catalog.for_file("all-MiniLM-L6-v2.Q8_0.gguf") is None        # bundled, never downloaded


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
    assert join("https://hub.test", rel.url) == "https://hub.test/org/repo/resolve/main/a%20b.gguf"
    assert join("https://mirror.test/hf/", rel.url) == "https://mirror.test/hf/org/repo/resolve/main/a%20b.gguf"
    assert rel.file_name == "a b.gguf"
    pinned = load_catalog().get("qwen3-4b")
    assert join("https://hf-mirror.test/", pinned.url) == ("https://hf-mirror.test/Qwen/Qwen3-4B-GGUF/resolve/"
                                                           "bc640142c66e1fdd12af0bd68f40445458f3869b/Qwen3-4B-Q4_K_M.gguf")
    assert join("https://mirror.test", catalog.get("abs").url) == "https://elsewhere.test/x/model.gguf"
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
    ({"name": "x", "kind": "chat", "url": "a.gguf", "tool_format": "xml"}, "tool_format 'xml' is not one of"),
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


def recommended(fits) -> str:
    [name] = [name for name, fit in fits.items() if fit.recommended]
    return name


def test_the_recommendation_fits_the_persons_language_and_prefers_tools():
    """The issue's machine: 24 GiB and 2 cores, where no tool-calling model is fast."""
    entries = load_catalog().entries
    machine = Machine(24 * 2**30, 2)
    chinese = assess(entries, machine, language_of("zh_CN"))
    assert recommended(chinese).startswith("qwen")                              # writes Chinese, calls tools
    english = assess(entries, machine, language_of("en"))
    by_name = {e.name: e for e in entries}
    assert by_name[recommended(english)].tools                                  # not Gemma 3 1B, faster as it is
    assert english["gemma-3-1b-it"].fast and not english["gemma-3-1b-it"].recommended
    assert not chinese["gemma-3-1b-it"].speaks and chinese["qwen3-4b"].speaks
    assert language_of("en", "中文") == "zh" and language_of("en", "Chinese, please") == "zh"
    assert language_of("en_GB", "") == "en"


def test_every_speed_states_its_basis_and_a_measured_one_replaces_the_estimate():
    entries = load_catalog().entries
    machine = Machine(24 * 2**30, 2)
    estimated = assess(entries, machine)
    assert all("2 CPU cores × 4 GB/s" in str(fit.basis) for fit in estimated.values())
    assert estimated["qwen3-4b"].tokens_per_second == pytest.approx(8 / 2.497, abs=0.1)
    file_name = load_catalog().get("qwen3-4b").file_name
    seen = assess(entries, machine, measured={file_name: 11.5})
    assert seen["qwen3-4b"].measured and seen["qwen3-4b"].tokens_per_second == 11.5 and seen["qwen3-4b"].fast
    assert "measured" in str(seen["qwen3-4b"].basis) and not seen["qwen3-1.7b"].measured


def test_with_a_gpu_used_the_model_must_fit_its_memory():
    entries = load_catalog().entries
    machine = Machine(64 * 2**30, 8, vram_bytes=4 * 2**30)
    on_gpu = assess(entries, machine, gpu_layers=-1)
    assert on_gpu["qwen3-1.7b"].fits and not on_gpu["qwen3-8b"].fits           # 6.4 GB needed, 4 GiB there
    assert assess(entries, machine)["qwen3-8b"].fits                            # on the CPU, RAM decides
    assert "GPU with 4 GiB" in str(machine.describe())


def test_measured_speeds_are_a_running_figure_and_short_replies_do_not_count(tmp_path):
    measured.note_reply(tmp_path, "m.gguf", 4, 50.0)
    assert measured.read(tmp_path).tokens_per_second == {}
    measured.note_reply(tmp_path, "m.gguf", 100, 10.0)
    measured.note_reply(tmp_path, "m.gguf", 100, 20.0)
    assert measured.read(tmp_path).tokens_per_second["m.gguf"] == pytest.approx(13.0)
    (tmp_path / measured.FILE).write_text("not json")
    assert measured.read(tmp_path) == measured.Measured()


def test_every_note_of_the_shipped_catalog_has_its_chinese_translation():
    for entry in load_catalog().entries:
        if entry.chat_template:
            chinese = entry.said("chat_template", "zh_CN")
            assert chinese != entry.chat_template and re.search("[\u4e00-\u9fff]", chinese), entry.name
        assert entry.said("chat_template", "en") == entry.chat_template


def test_a_reply_speed_is_noted_for_the_model_in_use_beside_the_settings(tmp_path):
    from engram.core.models.demo import FILE_NAME
    from engram.core.models.library import note_reply
    from engram.core.settings import Settings

    settings = Settings.load(tmp_path)
    note_reply(settings, 40, 9.5)                                # the demo model
    settings.chat_model = str(tmp_path / "Qwen3-4B-Q4_K_M.gguf")
    note_reply(settings, 40, 4.0)
    note_reply(settings, 40, 30.0, str(tmp_path / "a-chats-own.gguf"))       # a chat's own model
    assert measured.read(tmp_path).tokens_per_second == {FILE_NAME: 9.5, "Qwen3-4B-Q4_K_M.gguf": 4.0,
                                                         "a-chats-own.gguf": 30.0}
