"""GPU offloading: the layers setting, how many layers fit, the CPU fallback, and what this
(CPU-only) llama.cpp build reports. The Vulkan build's turn on lavapipe is packaging/check_vulkan.sh."""

from __future__ import annotations

import json

import pytest

from engram.core import doctor
from engram.core.errors import ModelError
from engram.core.models import gpu
from engram.core.models.chat_model import LlamaChatModel, Sampling
from engram.core.models.demo import demo_model_path
from engram.core.models.embeddings import GGUFEmbedder
from engram.core.models.fit import Machine, assess
from engram.core.models.catalog import load_catalog
from engram.core.models.gguf_info import read_model_info
from engram.core.paths import BUNDLED_EMBEDDING_MODEL
from engram.core.settings import Settings

MiB, GiB = 2**20, 2**30
VULKAN = gpu.Device("Vulkan", "Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", True, 8 * GiB, 16 * GiB)


@pytest.mark.parametrize("value, parsed", [("auto", "auto"), (0, 0), (-1, -1), (33, 33), ("12", 12)])
def test_a_layers_setting_is_auto_or_a_whole_number(value, parsed):
    assert gpu.parse_layers(value) == parsed


@pytest.mark.parametrize("value", ["some", -2, 1.5, True, None, ""])
def test_anything_else_is_refused_with_what_is_allowed(value):
    with pytest.raises(ValueError, match="'auto'"):
        gpu.parse_layers(value)


def test_settings_default_to_auto_and_a_bad_value_is_reported_not_kept(tmp_path):
    assert Settings().chat_gpu_layers == "auto" and Settings().embedding_gpu_layers == "auto"
    (tmp_path / "settings.json").write_text(json.dumps({"chat_gpu_layers": "lots", "embedding_gpu_layers": 4}))
    settings = Settings.load(tmp_path)
    assert settings.chat_gpu_layers == "auto" and settings.embedding_gpu_layers == 4
    assert "chat_gpu_layers" in settings.problem


def test_an_older_files_unchosen_zero_becomes_auto_and_a_chosen_number_stays(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps({"chat_gpu_layers": 0, "chat_threads": 2}))
    assert Settings.load(tmp_path).chat_gpu_layers == "auto"          # written before "auto" existed
    (tmp_path / "settings.json").write_text(json.dumps({"chat_gpu_layers": 20}))
    assert Settings.load(tmp_path).chat_gpu_layers == 20
    settings = Settings.load(tmp_path)
    settings.chat_gpu_layers = 0                                     # the CPU, chosen now: kept
    settings.save()
    again = Settings.load(tmp_path)
    assert again.chat_gpu_layers == 0 and again.embedding_gpu_layers == "auto" and not again.problem


def test_the_whole_model_goes_when_it_and_its_cache_fit():
    assert gpu.layers_to_offload(4 * GiB, 32, 8 * GiB, kv_bytes=1 * GiB) == 32


def test_part_of_the_model_goes_when_only_part_fits():
    # 33 shares of 99 MiB (3 MiB a layer, plus 1 MiB of cache each): 512 MiB reserved of 552 leaves 40.
    assert gpu.layers_to_offload(99 * MiB, 32, 552 * MiB, kv_bytes=32 * MiB) == 10
    assert gpu.layers_to_offload(99 * MiB, 32, 512 * MiB) == 0         # nothing past the reserve
    assert gpu.layers_to_offload(99 * MiB, 32, 100 * MiB) == 0
    assert gpu.layers_to_offload(10 * GiB, 0, 80 * GiB) == 0          # layers unknown: none


def test_partial_never_claims_every_layer():
    """All layers means the output too (n_gpu_layers -1), so a model that did not fit whole
    offloads at most all but one."""
    assert gpu.layers_to_offload(1000 * MiB, 10, 512 * MiB + 1000 * MiB - 1) == 9


def test_auto_plans_from_the_files_layers_and_the_devices_free_memory():
    info = read_model_info(demo_model_path())
    planned = gpu.plan(demo_model_path(), "auto", 2048, VULKAN)
    assert planned.layers == planned.total == info.layers == 30 and planned.n_gpu_layers == gpu.ALL
    assert planned.describe() == "Vulkan: llvmpipe (LLVM 15.0.6, 256 bits) — 30/30 layers"
    tight = gpu.Device("Vulkan", "Vulkan0", "small", True, 512 * MiB + 40 * MiB, GiB)
    assert 0 < gpu.plan(demo_model_path(), "auto", 2048, tight).layers < 30
    assert gpu.plan(demo_model_path(), 12, 2048, VULKAN).n_gpu_layers == 12
    assert gpu.plan(demo_model_path(), 12, 2048, VULKAN).describe().endswith("— 12/30 layers")
    assert gpu.plan(demo_model_path(), 0, 2048, VULKAN).describe() == "CPU"
    cpu = gpu.Device("CPU", "CPU", "AMD EPYC", False, 8 * GiB, 8 * GiB)
    assert gpu.plan(demo_model_path(), -1, 2048, cpu) == gpu.Placement(cpu, 0, 0)   # no GPU: the CPU


def test_all_layers_of_a_file_that_does_not_count_them_are_still_all():
    unknown = gpu.Placement(VULKAN, gpu.ALL, 0)
    assert unknown.n_gpu_layers == gpu.ALL and unknown.describe().endswith("— all layers")
    assert gpu.Placement(VULKAN, 99, 30).layers_text() == "30/30" and gpu.Placement(VULKAN, 99, 30).n_gpu_layers == -1


def test_a_load_that_fails_on_the_gpu_is_done_again_on_the_cpu():
    asked = []

    def load(layers: int) -> str:
        asked.append(layers)
        if layers:
            raise ModelError("ggml_vulkan: out of device memory")
        return "model"

    model, placement = gpu.load_offloaded(load, gpu.Placement(VULKAN, 30, 30))
    assert model == "model" and asked == [gpu.ALL, 0]
    assert placement.layers == 0 and "out of device memory" in placement.fallback
    assert placement.describe() == "CPU (the GPU failed: ggml_vulkan: out of device memory)"


def test_a_real_model_falls_back_to_the_cpu_when_the_gpu_load_fails(monkeypatch):
    """The real demo model: its first load (with layers) is made to fail as a GPU out of memory
    would, the second (none) is llama.cpp's real CPU load, which then answers."""
    real = gpu.load_offloaded

    def failing_first(load, planned):
        def load_or_fail(layers: int):
            if layers:
                raise ModelError("llama.cpp could not load the chat model: the GPU is out of memory")
            return load(layers)
        return real(load_or_fail, planned)

    monkeypatch.setattr("engram.core.models.chat_model.plan", lambda *a: gpu.Placement(VULKAN, 30, 30))
    monkeypatch.setattr("engram.core.models.chat_model.load_offloaded", failing_first)
    model = LlamaChatModel(demo_model_path(), context_size=512, sampling=Sampling(seed=7, max_tokens=4))
    try:
        assert model.placement.layers == 0 and "out of memory" in model.placement.fallback
        assert model.generate([{"role": "user", "content": "Hi"}]).completion_tokens > 0
    finally:
        model.close()


def test_this_cpu_only_build_reports_the_cpu():
    assert gpu.backends() == ["CPU"]
    device = gpu.best_device()
    assert not device.gpu and device.label == "CPU" and device.total_bytes > 0
    assert Machine.this(gpu=True).vram_bytes is None


def test_doctor_says_models_run_on_the_cpu_and_why(tmp_path):
    check = doctor._gpu({"settings": Settings.load(tmp_path)})
    assert check.ok and not check.required
    assert check.detail == ("none: models run on the CPU (no GPU backend: this llama.cpp build has none, or its"
                            " driver is missing; backends: CPU)")


def test_a_real_load_with_auto_layers_runs_on_this_build(tmp_path):
    settings = Settings.load(tmp_path)
    model = LlamaChatModel(demo_model_path(), context_size=512, gpu_layers=settings.chat_gpu_layers,
                           sampling=Sampling(seed=7, max_tokens=4))
    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, gpu_layers=settings.embedding_gpu_layers)
    try:
        assert model.placement.describe() == "CPU" and embedder.placement.describe() == "CPU"
        assert model.generate([{"role": "user", "content": "Hi"}]).completion_tokens > 0
        assert embedder.embed_query("peanuts").shape == (384,)
    finally:
        model.close()
        embedder.close()


def test_the_estimate_uses_the_gpus_memory_and_bandwidth_when_the_model_fits_there():
    entries = load_catalog().entries
    machine = Machine(16 * GiB, 2, vram_bytes=4 * GiB, gpu="CUDA: a laptop GPU")
    on_gpu, on_cpu = assess(entries, machine, gpu_layers="auto"), assess(entries, machine)
    assert on_gpu["qwen3-1.7b"].tokens_per_second > 5 * on_cpu["qwen3-1.7b"].tokens_per_second
    assert "GPU reading about 100 GB/s" in str(on_gpu["qwen3-1.7b"].basis)
    # 6.4 GB needed, 4 GiB there: auto runs the part that fits, estimated as on the CPU, and it fits in RAM.
    assert on_gpu["qwen3-8b"].fits and "2 CPU cores" in str(on_gpu["qwen3-8b"].basis)
    assert on_gpu["qwen3-8b"].tokens_per_second == on_cpu["qwen3-8b"].tokens_per_second
