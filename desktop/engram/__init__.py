"""Engram: an offline personal assistant for the desktop that remembers."""

import os

__version__ = "0.1.0"

# llama.cpp's OpenMP threads spin while they wait; on a busy desktop that steals the CPU from
# everything else (a single query embedding took ~116 ms spinning vs ~35 ms sleeping, measured
# on a loaded 2-core machine). Set before llama_cpp loads; a person's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
