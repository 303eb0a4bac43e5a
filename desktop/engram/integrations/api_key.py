"""The API's key: made on first use, kept in the data folder (readable by its owner only, never
logged), shown by ``engram serve --show-key`` and in Settings › Integrations. The file is the
truth: a key regenerated in the window holds at once for a server in another process too."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

from engram.core.storage.atomic import write_text_atomic

KEY_FILE = "api-key"
PREFIX = "engram-"


def key_path(data_dir: Path) -> Path:
    return Path(data_dir) / KEY_FILE


def new_key() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def api_key(data_dir: Path) -> str:
    """The key, made now if there is none yet (or the file was emptied). Two programs starting at
    once (``engram serve &`` and ``engram serve --show-key``) agree: the first key written wins."""
    path = key_path(data_dir)
    try:
        if key := path.read_text(encoding="utf-8").strip():
            return key
    except FileNotFoundError:
        fd, made = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")      # mode 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new_key() + "\n")
        try:
            os.link(made, path)             # never replaces a key another program made meanwhile
        except FileExistsError:
            pass
        except OSError:                     # a file system without hard links: a plain rename
            os.replace(made, path)
        finally:
            Path(made).unlink(missing_ok=True)
        return api_key(data_dir)
    return regenerate(data_dir)


def regenerate(data_dir: Path) -> str:
    """A new key in place of the old one, which stops working at once."""
    key = new_key()
    write_text_atomic(key_path(data_dir), key + "\n")      # mkstemp: mode 0600
    return key


def accepts(data_dir: Path, offered: str) -> bool:
    """Whether ``offered`` is the key (compared in constant time)."""
    return bool(offered) and secrets.compare_digest(offered.encode(), api_key(data_dir).encode())
