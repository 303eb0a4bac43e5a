"""Which device a data folder is on.

Devices may share one database (a PostgreSQL server), each with a data folder of its own: a
chat's folder of files stays on the device that has it. Each file's index rows name that device
(``session_files.device``), so every device keeps only its own files in step with its disk and
can say where the others' are.

A device is made once per data folder: a random id kept in ``<data dir>/device.json`` (a data
folder moved or restored elsewhere stays the same device), and the computer's name, to show
people. Edit ``name`` in that file to call the device something else.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

from engram.core.errors import DataDirError
from engram.core.storage.atomic import write_text_atomic

DEVICE_FILE = "device.json"


@dataclass(frozen=True)
class Device:
    id: str
    name: str


def this_device(data_dir: Path) -> Device:
    """The device of ``data_dir``, made the first time it is asked for."""
    path = data_dir / DEVICE_FILE
    if not path.exists():
        _make(path)
    try:
        found = json.loads(path.read_text("utf-8"))
        return Device(str(found["id"]), str(found.get("name") or found["id"][:8]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DataDirError(f"{path} does not say which device this is: {e}",
                           hint=f"move {DEVICE_FILE} away: Engram makes a new one (this data folder then"
                                " counts as a new device, and indexes its session files again)") from e


def _make(path: Path) -> None:
    """Write a new device file, unless another Engram starting on the same folder just did."""
    draft = path.with_name(f".{DEVICE_FILE}.{uuid.uuid4().hex}")
    write_text_atomic(draft, json.dumps({"id": uuid.uuid4().hex, "name": socket.gethostname() or "?"}) + "\n")
    try:
        os.link(draft, path)     # fails when the file exists: the first one made stays
    except FileExistsError:
        pass
    finally:
        draft.unlink(missing_ok=True)
