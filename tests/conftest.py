"""Shared fixtures: every test gets its own data, config and models folders."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from engram.core.db import Database  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.store import MemoryStore  # noqa: E402
from fakes import FakeEmbedder  # noqa: E402

SHARED_MODELS = Path(__file__).resolve().parents[1] / ".cache" / "models"


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Point Engram's folders at temporary ones so no test touches the user's real data.
    The models folder is shared between tests (the demo chat model is assembled only once)."""
    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(SHARED_MODELS))
    return tmp_path


@pytest.fixture
def db():
    database = Database(":memory:")
    yield database
    database.close()


@pytest.fixture
def store(db):
    return MemoryStore(db, FakeEmbedder())


@pytest.fixture(scope="session")
def real_embedder():
    from engram.core.embeddings import GGUFEmbedder

    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL)
    yield embedder
    embedder.close()
