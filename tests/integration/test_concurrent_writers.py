"""Several Engram processes on one database (the window beside the CLI, later the API and MCP
server) wait their turn as writers: no write fails with "database is locked", none is lost."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engram.core.storage.database import Database
from engram.core.errors import DatabaseError

TESTS = Path(__file__).resolve().parents[1]

WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from engram.core.storage.database import Database
    from engram.core.memory.scope import Scope
    from engram.core.memory.store import MemoryStore
    from fakes import FakeEmbedder

    store = MemoryStore(Database({path!r}), FakeEmbedder())
    failures = 0
    for i in range({count}):
        try:
            store.add(f"writer {name} note {{i}} about the garden", Scope(user="u", session="{name}"), "fact")
        except Exception as e:
            failures += 1
            print(type(e).__name__, e, file=sys.stderr)
    print(failures)
""")

SEARCHER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    from engram.core.storage.database import Database
    from engram.core.memory.scope import Scope
    from engram.core.memory.store import MemoryStore
    from fakes import FakeEmbedder

    store = MemoryStore(Database({path!r}), FakeEmbedder())
    failures = searches = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not __import__("os").path.exists({stop!r}):
        try:
            store.search("garden note", Scope(user="u"))
            searches += 1
        except Exception as e:
            failures += 1
            print(type(e).__name__, e, file=sys.stderr)
    print(failures, searches)
""")


def _start(script: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_three_writers_and_a_searcher_lose_nothing_and_fail_nothing(tmp_path):
    path = str(tmp_path / "engram.sqlite")
    Database(path).close()                       # made once, so the writers do not race to migrate
    count = 1000
    stop = str(tmp_path / "stop")
    searcher = _start(SEARCHER.format(tests=str(TESTS), path=path, stop=stop))
    writers = [_start(WRITER.format(tests=str(TESTS), path=path, count=count, name=f"w{n}")) for n in range(3)]
    results = [w.communicate(timeout=600) for w in writers]
    Path(stop).touch()
    searched, search_errors = searcher.communicate(timeout=120)
    for out, err in results:
        assert out.split() == ["0"], err[-2000:]
    failures, searches = map(int, searched.split())
    assert failures == 0, search_errors[-2000:]
    assert searches > 0
    db = Database(path)
    try:
        by_session = dict(db.query("SELECT session, count(*) FROM memories GROUP BY session"))
        assert by_session == {"w0": count, "w1": count, "w2": count}
    finally:
        db.close()


def test_a_writer_that_waits_too_long_gets_a_clear_error_and_changes_nothing(tmp_path, monkeypatch):
    import engram.core.storage.database as db_module

    path = tmp_path / "engram.sqlite"
    holder = Database(path)
    holder.execute("CREATE TABLE notes(text TEXT)")
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)
    waiter = Database(path)
    with holder.transaction() as conn:
        conn.execute("INSERT INTO notes VALUES ('held')")
        with pytest.raises(DatabaseError, match="busy") as caught:
            with waiter.transaction() as other:
                other.execute("INSERT INTO notes VALUES ('lost?')")
        assert caught.value.hint
    assert waiter.query("SELECT text FROM notes") == [("held",)]
    holder.close()
    waiter.close()
