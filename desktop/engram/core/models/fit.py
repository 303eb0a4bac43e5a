"""Which catalog models suit this machine and this person: what fits in its memory, what answers at
a pace a person will wait for, what speaks their language and can call tools.

On a CPU, writing each token reads the whole model from memory once, so the pace is about memory
bandwidth divided by the model's size. Bandwidth is not something a program can ask the system
for; it grows with the cores a desktop has, so we estimate it from them (about 4 GB/s a core, at
most 16 cores' worth). On a GPU the same holds with the GPU's memory, whose bandwidth we assume
(GPU_BANDWIDTH_GB: an integrated or entry-level GPU's; a discrete one is several times faster) when
the whole model fits the GPU's memory; a model that only partly fits is estimated as on the CPU. The
estimate is rough on purpose, and says so with its basis; once a model has answered here, its
measured speed replaces it (measured.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import psutil

from engram.core.models import gpu
from engram.core.models.catalog import CatalogEntry
from engram.core.texts import QT_TRANSLATE_NOOP, Text

GB = 10**9
RESERVED_GB = 2.0                 # for the system, the window and the embedding model
VRAM_RESERVED_GB = 0.5            # the GPU's own buffers
BANDWIDTH_PER_CORE_GB = 4.0       # memory read per second a core drives while decoding (an estimate)
BANDWIDTH_CORES = 16
GPU_BANDWIDTH_GB = 100.0          # GPU memory read per second while decoding (assumed: Apple M1, a laptop GPU)
FAST_TOKENS_PER_SECOND = 8.0      # about reading speed: a reply does not keep the person waiting
USABLE_TOKENS_PER_SECOND = 3.0    # slower, a reply of a few sentences takes over a minute
CHINESE_WORDS = ("zh", "chinese", "中文", "汉语", "漢語", "普通话", "简体", "繁體")


@dataclass(frozen=True)
class Machine:
    ram_bytes: int
    cores: int                    # physical cores where known: llama.cpp runs one thread per core
    vram_bytes: int | None = None  # the GPU's memory, read only when a GPU is used
    gpu: str = ""                 # the device llama.cpp uses ("CUDA: NVIDIA H200"), when there is one

    @classmethod
    def this(cls, gpu: bool = False) -> "Machine":
        """This machine; with ``gpu``, the GPU device this llama.cpp build offloads to, if any."""
        cores = psutil.cpu_count(logical=False) or os.cpu_count() or 1
        device = _gpu_device() if gpu else None
        return cls(psutil.virtual_memory().total, cores, device.total_bytes if device else None,
                   device.label if device else "")

    def describe(self) -> Text:
        text = Text(QT_TRANSLATE_NOOP("Core", "{memory} GiB of memory, {cores} CPU cores"),
                    memory=f"{self.ram_bytes / 2**30:.0f}", cores=self.cores)
        if self.vram_bytes:
            return Text(QT_TRANSLATE_NOOP("Core", "{machine}, a GPU with {memory} GiB"), machine=text,
                        memory=f"{self.vram_bytes / 2**30:.0f}")
        return text


def _gpu_device() -> gpu.Device | None:
    device = gpu.best_device()
    return device if device.gpu and device.total_bytes else None


@dataclass(frozen=True)
class Fit:
    fits: bool                    # its memory need is within what the machine can spare
    tokens_per_second: float      # measured here, else the estimate (chat models)
    fast: bool
    basis: Text                   # how the speed was found, for the person to judge it
    measured: bool = False
    speaks: bool = True           # it writes the person's language
    recommended: bool = False

    @property
    def label(self) -> str:
        if not self.fits:
            return "too big"
        if self.recommended:
            return "recommended"
        return "fits" if self.fast else "fits, slow"


def language_of(window_language: str, reply_language: str = "") -> str:
    """The person's language as the catalog's ``languages`` write it ("zh", "en"): Chinese when the
    window speaks it or the reply-language preference asks for it, else the window's."""
    if any(word in reply_language.lower() for word in CHINESE_WORDS) or window_language.startswith("zh"):
        return "zh"
    return window_language.split("_")[0] or "en"


def estimate(entry: CatalogEntry, machine: Machine, measured: float | None = None, gpu_layers: int | str = 0,
             language: str = "en") -> Fit:
    """``gpu_layers`` as the setting: with -1 (all) the model must fit the GPU's memory; with auto
    it runs there when it fits, else on the CPU with the layers that fit."""
    on_gpu = gpu_layers != 0 and machine.vram_bytes is not None
    vram_spare = machine.vram_bytes / GB - VRAM_RESERVED_GB if on_gpu and machine.vram_bytes else 0.0
    whole_on_gpu = on_gpu and gpu_layers in (gpu.AUTO, gpu.ALL) and entry.ram_gb <= vram_spare
    spare = vram_spare if on_gpu and gpu_layers == gpu.ALL else machine.ram_bytes / GB - RESERVED_GB
    fits = entry.ram_gb <= spare
    speaks = entry.kind != "chat" or language in entry.languages
    if measured:
        basis = Text(QT_TRANSLATE_NOOP("Core", "measured over your replies on this computer"))
        return Fit(fits, round(measured, 1), fits and measured >= FAST_TOKENS_PER_SECOND, basis, True, speaks)
    size_gb = (entry.size or entry.ram_gb * GB) / GB
    if whole_on_gpu:
        speed = GPU_BANDWIDTH_GB / max(size_gb, 0.01)
        basis = Text(QT_TRANSLATE_NOOP("Core", "estimate: a GPU reading about {rate:g} GB/s of its memory ÷"
                                               " {size:.1f} GB read for each token"), rate=GPU_BANDWIDTH_GB, size=size_gb)
        return Fit(fits, round(speed, 1), fits and speed >= FAST_TOKENS_PER_SECOND, basis, False, speaks)
    cores = min(machine.cores, BANDWIDTH_CORES)
    speed = BANDWIDTH_PER_CORE_GB * cores / max(size_gb, 0.01)
    basis = Text(QT_TRANSLATE_NOOP("Core", "estimate: {cores} CPU cores × {rate:g} GB/s of memory bandwidth ÷"
                                           " {size:.1f} GB read for each token"),
                 cores=cores, rate=BANDWIDTH_PER_CORE_GB, size=size_gb)
    if on_gpu:
        basis = Text(QT_TRANSLATE_NOOP("Core", "{basis}; on the GPU it is faster"), basis=basis)
    return Fit(fits, round(speed, 1), fits and (entry.kind != "chat" or speed >= FAST_TOKENS_PER_SECOND),
               basis, False, speaks)


def assess(entries: Sequence[CatalogEntry], machine: Machine, language: str = "en",
           measured: Mapping[str, float] | None = None, gpu_layers: int | str = 0) -> dict[str, Fit]:
    """Each entry's fit (``measured``: speeds seen here, by file name), and one chat model
    recommended among those that fit: one that writes the person's language first, then one that
    answers at a usable pace, then one that can call tools (recall on demand and the file tools need
    them), then a fast one, the largest of those; where none is fast, the fastest."""
    measured = measured or {}
    fits = {e.name: estimate(e, machine, measured.get(e.file_name), gpu_layers, language) for e in entries}

    def rank(entry: CatalogEntry):
        fit = fits[entry.name]
        usable = fit.tokens_per_second >= USABLE_TOKENS_PER_SECOND
        return (fit.speaks, usable, entry.tools, fit.fast,
                entry.parameters_b if fit.fast else fit.tokens_per_second)

    chat = [e for e in entries if e.kind == "chat" and fits[e.name].fits]
    if not chat:
        return fits
    best = max(chat, key=rank)
    fits[best.name] = replace(fits[best.name], recommended=True)
    return fits
