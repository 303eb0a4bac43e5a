"""Where a deleted session's folder goes: ``<data dir>/trash/``, never erased outright.

A session's files may hold notes a person wrote by hand, so deleting the session moves its folder
aside instead of removing it; the person empties the trash folder when they choose. The moved
folder keeps its name with the time of the deletion added, so two folders never clash there.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from engram.core.errors import DataDirError

TRASH_DIR = "trash"


def move_to_trash(path: Path, trash: Path) -> Path | None:
    """Move the folder at ``path`` into ``trash``; returns where it went, or None when there was
    no folder. Raises DataDirError when it cannot be moved; it is then left where it was."""
    if not os.path.lexists(path):
        return None
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d_%H%M%S")
    try:
        trash.mkdir(parents=True, exist_ok=True)
        target, n = trash / f"{path.name}_deleted-{stamp}", 1
        while os.path.lexists(target):
            n += 1
            target = trash / f"{path.name}_deleted-{stamp}-{n}"
        os.rename(path, target)
    except OSError as e:
        raise DataDirError(f"the chat's files could not be moved to the trash folder {trash}: {e.strerror or e}",
                           hint=f"they are still in {path}; move or delete that folder yourself") from e
    return target
