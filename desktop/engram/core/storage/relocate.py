"""Moving the data folder somewhere else, safely: copy, verify, and only then remove the old one.

Engram must be closed on this data folder while it moves (the window closes its facade first). If
anything fails before the copy is verified, the copy is removed and the old folder is untouched.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from engram.core.errors import DataDirError, InvalidInput


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(root: Path) -> list[Path]:
    return [Path(d, name).relative_to(root) for d, _, names in os.walk(root) for name in names]


def move_data_dir(source: str | os.PathLike, target: str | os.PathLike) -> Path:
    """Move everything in ``source`` into ``target`` (which must be empty or new); returns target."""
    source, target = Path(source).expanduser().resolve(), Path(target).expanduser().resolve()
    if source == target:
        raise InvalidInput("the new data folder is the current one")
    if target.is_relative_to(source) or source.is_relative_to(target):
        raise InvalidInput(f"{target} and {source} contain one another", hint="choose a folder outside the current one")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise DataDirError(f"{target} is not an empty folder", hint="choose a new or empty folder")
    created = not target.exists()
    try:
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        for name in _files(source):
            old, new = source / name, target / name
            if old.is_symlink():
                continue
            if not new.is_file() or new.stat().st_size != old.stat().st_size or _sha256(old) != _sha256(new):
                raise DataDirError(f"the copy of {name} in {target} differs from the original")
    except OSError as e:
        _undo(target, created)
        raise DataDirError(f"cannot copy the data folder to {target}: {e.strerror or e}",
                           hint="choose a writable folder with enough free space; nothing was changed") from e
    except DataDirError:
        _undo(target, created)
        raise
    shutil.rmtree(source, ignore_errors=True)
    return target


def _undo(target: Path, created: bool) -> None:
    if created:
        shutil.rmtree(target, ignore_errors=True)
    else:
        for child in target.iterdir():
            shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
