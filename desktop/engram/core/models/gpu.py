"""Which device runs the models: the GPU the llama.cpp build can use (Metal, CUDA, Vulkan), else the CPU.

llama.cpp registers each backend it was built with and the devices each one finds; this asks that
registry (ggml's backend API, through llama-cpp-python's loaded library) rather than guessing from
the system, so what it reports is what llama.cpp will really use. A CPU-only build reports the CPU.
The ``auto`` setting offloads as many layers as the device's free memory holds beside the KV cache;
a load that fails on the GPU is done again on the CPU, with the reason kept for ``engram doctor``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from engram.core.errors import ModelError
from engram.core.models.gguf_info import read_model_info

AUTO = "auto"
ALL = -1                          # llama.cpp's n_gpu_layers for every layer, the output too
RESERVE_BYTES = 512 * 2**20       # the backend's compute buffers and scratch, beside weights and KV cache
KV_BYTES = 2                      # f16 K and V caches: bytes per number
_CPU_TYPE = 0                     # ggml_backend_dev_type: CPU, GPU, IGPU (shared memory), ACCEL, META
_GPU_TYPES = (1, 2)

T = TypeVar("T")


def parse_layers(value: object) -> int | str:
    """A GPU layers setting: "auto", or how many layers (0: none, -1: all). ValueError otherwise."""
    if value == AUTO:
        return AUTO
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"GPU layers must be {AUTO!r} or a whole number, not {value!r}")
    try:
        layers = int(value)
    except ValueError:
        raise ValueError(f"GPU layers must be {AUTO!r} or a whole number, not {value!r}") from None
    if layers < ALL:
        raise ValueError(f"GPU layers must be {AUTO!r}, -1 (all) or 0 and up, not {layers}")
    return layers


@dataclass(frozen=True)
class Device:
    backend: str                  # the llama.cpp backend: "CUDA", "Vulkan", "Metal", "CPU"
    name: str                     # the backend's name for it: "CUDA0", "Vulkan0", "CPU"
    description: str              # what the driver calls it: "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
    gpu: bool
    free_bytes: int
    total_bytes: int

    @property
    def label(self) -> str:
        return f"{self.backend}: {self.description}" if self.gpu else "CPU"

    def memory(self) -> str:
        return f"{self.free_bytes / 2**30:.1f} of {self.total_bytes / 2**30:.1f} GiB free"


def backends() -> list[str]:
    """The backends this llama.cpp build has ("Vulkan", "CPU"), with or without devices."""
    lib = _library()
    return [lib.ggml_backend_reg_name(lib.ggml_backend_reg_get(i)).decode("utf-8", "replace")
            for i in range(lib.ggml_backend_reg_count())]


def devices() -> list[Device]:
    """Every device the loaded llama.cpp build registered, GPUs and the CPU, in its order."""
    lib = _library()
    found = []
    for index in range(lib.ggml_backend_dev_count()):
        dev = lib.ggml_backend_dev_get(index)
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        lib.ggml_backend_dev_memory(dev, ctypes.byref(free), ctypes.byref(total))
        backend = lib.ggml_backend_reg_name(lib.ggml_backend_dev_backend_reg(dev)).decode("utf-8", "replace")
        found.append(Device(backend, lib.ggml_backend_dev_name(dev).decode("utf-8", "replace"),
                            lib.ggml_backend_dev_description(dev).decode("utf-8", "replace").strip(),
                            lib.ggml_backend_dev_type(dev) in _GPU_TYPES, free.value, total.value))
    return found


def _library() -> ctypes.CDLL:
    """llama-cpp-python's libllama (which links libggml in), its ggml backend functions typed."""
    from llama_cpp import llama_cpp  # the library loads on first use: slow, so not at import

    lib = llama_cpp._lib
    text, pointer = ctypes.c_char_p, ctypes.c_void_p
    for count in ("ggml_backend_dev_count", "ggml_backend_reg_count"):
        getattr(lib, count).argtypes, getattr(lib, count).restype = [], ctypes.c_size_t
    for get in ("ggml_backend_dev_get", "ggml_backend_reg_get"):
        getattr(lib, get).argtypes, getattr(lib, get).restype = [ctypes.c_size_t], pointer
    for name, result in (("ggml_backend_dev_name", text), ("ggml_backend_dev_description", text),
                         ("ggml_backend_dev_type", ctypes.c_int), ("ggml_backend_dev_backend_reg", pointer),
                         ("ggml_backend_reg_name", text)):
        getattr(lib, name).argtypes, getattr(lib, name).restype = [pointer], result
    size = ctypes.POINTER(ctypes.c_size_t)
    lib.ggml_backend_dev_memory.argtypes, lib.ggml_backend_dev_memory.restype = [pointer, size, size], None
    return lib


def best_device(found: list[Device] | None = None) -> Device:
    """The GPU llama.cpp offloads to first (it is first in the registry), else the CPU."""
    found = devices() if found is None else found
    gpus = [d for d in found if d.gpu]
    if gpus:
        return gpus[0]
    cpu = [d for d in found if d.backend == "CPU"]
    return cpu[0] if cpu else Device("CPU", "CPU", "", False, 0, 0)


def layers_to_offload(model_bytes: int, layers: int, free_bytes: int, kv_bytes: int = 0) -> int:
    """How many of a model's ``layers`` fit in ``free_bytes`` of GPU memory, with RESERVE_BYTES
    kept for the backend's buffers. Each offloaded layer takes its weights (the model over layers
    plus one: the embeddings and output are about one more) and its share of the KV cache.
    ``layers`` when the whole model and its cache fit, which llama.cpp then offloads entirely."""
    if layers <= 0:
        return 0
    budget = free_bytes - RESERVE_BYTES
    if budget >= model_bytes + kv_bytes:
        return layers
    per_layer = model_bytes / (layers + 1) + kv_bytes / layers
    return max(0, min(layers - 1, int(budget // per_layer)))


@dataclass(frozen=True)
class Placement:
    """Where a model runs: its layers on a device, and why not there when a load on it failed."""

    device: Device
    layers: int                   # offloaded to device (0: all on the CPU; ALL: every one, their number unknown)
    total: int                    # the model's layers (0: unknown)
    fallback: str = ""            # the GPU load's error, when the model runs on the CPU after it

    @property
    def n_gpu_layers(self) -> int:
        """What llama.cpp is given: every layer offloaded is ALL, so the output goes too."""
        return ALL if self.layers == ALL or (self.total and self.layers >= self.total) else self.layers

    def layers_text(self) -> str:
        """ "29/29", "12/29", or "all" (or the number) when the file does not say how many it has."""
        if self.total:
            return f"{self.total if self.layers == ALL else min(self.layers, self.total)}/{self.total}"
        return "all" if self.layers == ALL else str(self.layers)

    def describe(self) -> str:
        """ "Vulkan: llvmpipe (LLVM 15.0.6, 256 bits) — 29/29 layers", or "CPU" (and why not the GPU)."""
        if self.layers and self.device.gpu:
            return f"{self.device.label} — {self.layers_text()} layers"
        return f"CPU (the GPU failed: {self.fallback})" if self.fallback else "CPU"


def plan(path: str | Path, setting: int | str, context_tokens: int, device: Device | None = None,
         role: str = "chat") -> Placement:
    """Where a model file will run under a GPU layers setting: ``auto`` asks the device's free
    memory; a number is taken as given (-1: all), on a build that has a GPU."""
    setting = parse_layers(setting)
    device = device or best_device()
    if not device.gpu or setting == 0:
        return Placement(device, 0, 0)
    info = read_model_info(path, role)
    total = info.layers or 0
    if setting != AUTO:
        return Placement(device, (total or ALL) if setting == ALL else int(setting), total)
    kv = KV_BYTES * 2 * context_tokens * total * (info.kv_width or 0)
    return Placement(device, layers_to_offload(info.size, total, device.free_bytes, kv), total)


def load_offloaded(load: Callable[[int], T], planned: Placement) -> tuple[T, Placement]:
    """``load(n_gpu_layers)`` with the planned layers; when that fails with layers on the GPU
    (too little memory after all, a driver that refuses), once more on the CPU."""
    if planned.layers == 0:
        return load(0), planned
    try:
        return load(planned.n_gpu_layers), planned
    except ModelError as e:
        return load(0), replace(planned, layers=0, fallback=e.message)
