"""A damaged database still gives what reads (issue 33, defect 12): `engram memory list` and
`engram sessions export` go on past a damaged page or a text that no longer reads, name what they
could not read and exit 1; a vector damaged on disk says nothing on the terminal."""

import warnings

import numpy as np
import pytest

from engram.cli import main
from engram.core import paths
from engram.core.conversation.sessions import Sessions
from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors.mirror import UserVectors
from engram.core.memory.store import MemoryStore
from engram.core.settings import DEFAULT_PROFILE
from engram.core.storage.database import Database

ME = Scope(user=DEFAULT_PROFILE)


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "data"


def _made(data, memories: int = 0, messages: int = 0):
    db = Database(data / paths.DATABASE_FILE)
    MemoryStore(db, None).add_many([NewMemory(f"memory {n:03} zq{n:03}marker, about the night train " * 6, ME, "fact")
                                    for n in range(memories)])
    sessions = Sessions(db)
    if messages:
        sessions.get_or_create("trip", DEFAULT_PROFILE, title="Trip")
    for n in range(messages):
        sessions.add_message("trip", "user", f"message {n:03} zq{n:03}marker about Vienna " * 6)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return data / paths.DATABASE_FILE


def _spoil(path, marker: bytes, replace: bytes) -> None:
    before = path.read_bytes()
    assert marker in before
    path.write_bytes(before.replace(marker, replace))


def _spoil_page(path, marker: bytes) -> None:
    """Scribble over the page holding ``marker`` (its b-tree header first): SQLite finds it malformed."""
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    start = data.index(marker) // page_size * page_size
    data[start:start + page_size] = b"\xa5" * page_size
    path.write_bytes(bytes(data))


def test_memory_list_skips_a_text_that_no_longer_reads_and_names_it(data, capsys):
    path = _made(data, memories=30)
    _spoil(path, b"zq007marker", b"zq\xff\xfe7marker")     # no longer UTF-8

    assert main(["memory", "list", "--limit", "100"]) == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 29 and "memory 006" in out and "memory 008" in out
    assert "could not be read: #8" in err and "Traceback" not in err


def test_memory_list_goes_on_past_a_damaged_page(data, capsys):
    path = _made(data, memories=200)
    _spoil_page(path, b"zq100marker")

    assert main(["memory", "list", "--limit", "1000"]) == 1
    out, err = capsys.readouterr()
    listed = len(out.splitlines())
    assert 150 < listed < 200 and "memory 000" in out and "memory 199" in out and "memory 100" not in out
    assert "could not be read: #" in err and "–#" in err


def test_a_session_export_saves_the_messages_that_read(data, capsys, tmp_path):
    path = _made(data, messages=200)
    _spoil_page(path, b"zq100marker")

    saved = tmp_path / "trip.md"
    assert main(["sessions", "export", "trip", "--output", str(saved)]) == 1
    err = capsys.readouterr().err
    text = saved.read_text(encoding="utf-8")
    assert "message 000" in text and "message 199" in text and "message 100" not in text
    assert "messages could not be read: #" in err and "Traceback" not in err


def test_a_healthy_database_lists_and_exports_as_always(data, capsys):
    _made(data, memories=3, messages=2)
    assert main(["memory", "list"]) == 0
    assert main(["sessions", "export", "trip"]) == 0
    assert "could not be read" not in capsys.readouterr().err


def test_a_vector_damaged_on_disk_says_nothing_on_the_terminal():
    """Flipped bits in a float's exponent (1e38) or a NaN: before, numpy's overflow warning
    reached the terminal; the vector is kept as no direction (found by words only)."""
    vectors = np.ones((3, 8), np.float32)
    vectors[1, 2] = 3e38
    vectors[2, 5] = np.nan
    mirror = UserVectors(8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mirror.append(np.array([1, 2, 3], np.int64), vectors, [("fact", "", "", "")] * 3)
    assert mirror.scale[0] > 0 and mirror.scale[1] == 0 and mirror.scale[2] == 0


def test_a_model_new_to_a_damaged_database_leaves_search_to_words(data):
    """A database only read cannot take a new model's vector table: its memories are searched by
    words instead of every command failing ("nothing was changed")."""
    from fakes import FakeEmbedder

    path = _made(data, memories=3)
    db = Database(path)
    db.mark_damaged("found by a test")
    store = MemoryStore(db, FakeEmbedder())
    assert store.embedder is None
    assert store.search("zq001marker", ME).hits[0].memory.text.startswith("memory 001")
    db.close()


def test_a_damaged_scope_field_is_named_and_the_list_goes_on(data, capsys):
    path = _made(data, memories=5)
    db = Database(path)
    db.execute("UPDATE memories SET application = ? WHERE id = 3", ("x" * 300,))    # no longer a valid scope
    db.close()
    assert main(["memory", "list"]) == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 4 and "could not be read: #3" in err


def test_a_table_whose_definition_is_damaged_is_a_clear_error(data, capsys):
    """Nothing of the table reads: said at once, not after stepping through every id."""
    path = _made(data, memories=5)
    _spoil(path, b"application     TEXT NOT NULL DEFAULT ''", b"application     TEXT NOT NULL DEFAUNT ''")
    assert main(["memory", "list"]) == 2
    assert "damaged" in capsys.readouterr().err



def test_an_export_whose_column_definition_is_damaged_is_a_clear_error(data, capsys):
    """Not every message named as unreadable one by one: the table itself no longer reads (the
    damage known, as doctor leaves it)."""
    path = _made(data, messages=5)
    _spoil(path, b"content     TEXT NOT NULL,\n    status", b"contenX     TEXT NOT NULL,\n    status")
    db = Database(path)
    db.mark_damaged("found by doctor")
    db.close()
    assert main(["sessions", "export", "trip"]) == 2
    err = capsys.readouterr().err
    assert "beyond reading" in err and "could not be read: #" not in err
