"""Everything one data folder needs, opened together: the facade the CLI and the window use."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from engram.core import paths
from engram.core.db import Database
from engram.core.embeddings import Embedder, GGUFEmbedder
from engram.core.errors import DataDirError
from engram.core.settings import Settings
from engram.core.store import MemoryStore


def check_writable(folder: Path) -> Path:
    """Create the folder if needed and prove that a file can be written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".engram-write-test-{uuid.uuid4().hex}"
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as e:
        raise DataDirError(f"the data folder {folder} is not writable: {e.strerror}",
                           hint="choose a writable folder with --data-dir or ENGRAM_DATA_DIR, or fix its permissions") from e
    return folder


def embedding_model_path(settings: Settings) -> Path:
    return Path(settings.embedding_model).expanduser() if settings.embedding_model else paths.BUNDLED_EMBEDDING_MODEL


class Engram:
    def __init__(self, data_dir: str | os.PathLike | None = None, config_dir: str | os.PathLike | None = None,
                 embedder: Embedder | None = None):
        self.settings = Settings.load(config_dir)
        self.data_dir = check_writable(paths.data_dir(data_dir or self.settings.data_dir or None))
        self.db = Database(self.data_dir / paths.DATABASE_FILE)
        self.embedder = embedder or GGUFEmbedder(embedding_model_path(self.settings))
        self.store = MemoryStore(self.db, self.embedder)

    @property
    def user(self) -> str:
        return self.settings.profile

    def close(self) -> None:
        if hasattr(self.embedder, "close"):
            self.embedder.close()
        self.db.close()
