"""Which catalog models suit this machine: what fits in its memory, and what answers at a pace a
person will wait for.

On a CPU, writing each token reads the whole model from memory once, so the pace is about memory
bandwidth divided by the model's size. Bandwidth is not something a program can ask the system
for; it grows with the cores a desktop has, so we estimate it from them (about 4 GB/s a core, at
most 16 cores' worth). The estimate is rough on purpose: it sorts models into "fast" and "slow"
here, it does not promise a figure.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import psutil

from engram.core.models.catalog import CatalogEntry

GB = 10**9
RESERVED_GB = 2.0                 # for the system, the window and the embedding model
BANDWIDTH_PER_CORE_GB = 4.0       # memory read per second a core drives while decoding (an estimate)
BANDWIDTH_CORES = 16
FAST_TOKENS_PER_SECOND = 8.0      # about reading speed: a reply does not keep the person waiting


@dataclass(frozen=True)
class Machine:
    ram_bytes: int
    cores: int                    # physical cores where known: llama.cpp runs one thread per core

    @classmethod
    def this(cls) -> "Machine":
        cores = psutil.cpu_count(logical=False) or os.cpu_count() or 1
        return cls(psutil.virtual_memory().total, cores)

    def describe(self) -> str:
        return f"{self.ram_bytes / 2**30:.0f} GiB of memory, {self.cores} CPU core{'s' if self.cores != 1 else ''}"


@dataclass(frozen=True)
class Fit:
    fits: bool                    # its memory need is within what the machine can spare
    tokens_per_second: float      # the estimate (chat models)
    fast: bool
    recommended: bool = False

    @property
    def label(self) -> str:
        if not self.fits:
            return "too big"
        if self.recommended:
            return "recommended"
        return "fits" if self.fast else "fits, slow"


def estimate(entry: CatalogEntry, machine: Machine) -> Fit:
    spare = machine.ram_bytes / GB - RESERVED_GB
    fits = entry.ram_gb <= spare
    size_gb = (entry.size or entry.ram_gb * GB) / GB
    bandwidth = BANDWIDTH_PER_CORE_GB * min(machine.cores, BANDWIDTH_CORES)
    speed = bandwidth / max(size_gb, 0.01)
    return Fit(fits, round(speed, 1), fits and (entry.kind != "chat" or speed >= FAST_TOKENS_PER_SECOND))


def assess(entries: list[CatalogEntry] | tuple[CatalogEntry, ...], machine: Machine) -> dict[str, Fit]:
    """Each entry's fit, and one chat model recommended: the largest that fits and is fast (one that
    can call tools first: recall on demand and the file tools need them); on a machine where none is
    fast, the fastest that fits."""
    fits = {e.name: estimate(e, machine) for e in entries}
    chat = [e for e in entries if e.kind == "chat" and fits[e.name].fits]
    fast = [e for e in chat if fits[e.name].fast]
    if fast:
        best = max(fast, key=lambda e: (e.tools, e.parameters_b))
    elif chat:
        best = max(chat, key=lambda e: fits[e.name].tokens_per_second)
    else:
        return fits
    fit = fits[best.name]
    fits[best.name] = Fit(fit.fits, fit.tokens_per_second, fit.fast, recommended=True)
    return fits
