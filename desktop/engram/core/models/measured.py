"""What this machine has shown: each chat model's speed over real replies, and how fast downloads
arrive. The catalog's figures are estimates; once a model has answered here, its measured speed is
what the person is told (fit.py), and a download's time is reckoned at the rate last seen.

Kept as a small JSON file beside the settings (the models folder holds only models); unreadable,
it is treated as empty (nothing measured yet), never as an error.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from engram.core.storage.atomic import write_text_atomic

FILE = "measured.json"
MIN_TOKENS = 16                  # a shorter reply's speed is mostly noise
WEIGHT = 0.3                     # a new reply's share of the running figure
_lock = threading.Lock()         # the window's reply and download threads may both write


@dataclass
class Measured:
    tokens_per_second: dict[str, float] = field(default_factory=dict)   # model file name -> speed
    download_bytes_per_second: float = 0.0


def read(folder: Path) -> Measured:
    try:
        data = json.loads((folder / FILE).read_text(encoding="utf-8"))
        speeds = {str(k): float(v) for k, v in data.get("tokens_per_second", {}).items()}
        return Measured(speeds, float(data.get("download_bytes_per_second", 0.0)))
    except (OSError, ValueError, TypeError, AttributeError):
        return Measured()


def _write(folder: Path, measured: Measured) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(folder / FILE, json.dumps({"tokens_per_second": measured.tokens_per_second,
                                                 "download_bytes_per_second": measured.download_bytes_per_second})
                      + "\n")


def note_reply(folder: Path, model_file: str, tokens: int, tokens_per_second: float) -> None:
    """A reply of ``tokens`` tokens came at this speed from the model in ``model_file``."""
    if tokens < MIN_TOKENS or tokens_per_second <= 0:
        return
    with _lock:
        measured = read(folder)
        before = measured.tokens_per_second.get(model_file)
        now = tokens_per_second if before is None else (1 - WEIGHT) * before + WEIGHT * tokens_per_second
        measured.tokens_per_second[model_file] = round(now, 2)
        _write(folder, measured)


def note_download(folder: Path, bytes_per_second: float) -> None:
    """A download ran at this rate (the last few seconds' speed when it ended)."""
    if bytes_per_second <= 0:
        return
    with _lock:
        measured = read(folder)
        measured.download_bytes_per_second = round(bytes_per_second, 1)
        _write(folder, measured)
