"""Checks on a model file before llama.cpp sees it, so a bad path gets a plain answer."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from engram.core.errors import ModelError

GGUF_MAGIC = b"GGUF"


def check_model_file(path: str | os.PathLike, role: str) -> Path:
    """Return the path if it names a readable GGUF file; otherwise raise ModelError saying why."""
    p = Path(path).expanduser()
    if not p.exists():
        raise ModelError(f"the {role} model file {p} does not exist",
                         hint=f"choose an existing .gguf file for the {role} model in Settings or the config")
    if not p.is_file():
        raise ModelError(f"the {role} model path {p} is not a file")
    try:
        with p.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelError(f"cannot read the {role} model file {p}: {e.strerror}") from e
    if magic != GGUF_MAGIC:
        raise ModelError(f"{p} is not a GGUF model file (it does not start with 'GGUF')",
                         hint="llama.cpp needs .gguf files; convert or download the model in GGUF format")
    return p


def fingerprint(path: Path, sample: int = 1 << 20) -> str:
    """Identify a model file cheaply: size plus hashes of its first and last MiB."""
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with path.open("rb") as f:
        digest.update(f.read(sample))
        f.seek(max(0, size - sample))
        digest.update(f.read(sample))
    return digest.hexdigest()[:16]
