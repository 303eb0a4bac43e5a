"""Two instances on one database: each learns of the other's commits (PostgreSQL: LISTEN/NOTIFY,
SQLite: data_version), so what is cached on ``change_stamp`` is read again, and subscribers are
told without asking."""

from __future__ import annotations

import threading

import pytest

from engram.core.storage import open_database

SESSION = "INSERT INTO sessions(id, user, folder, created_at, updated_at) VALUES (?, 'ann', ?, 't', 't')"
WAIT_S = 10     # a bound for a stuck test, not a speed target


class Heard:
    """Counts the calls of an on_change subscriber and lets a test wait for the next one."""

    def __init__(self, db):
        self.calls = 0
        self._event = threading.Event()
        db.on_change(self)

    def __call__(self) -> None:
        self.calls += 1
        self._event.set()

    def next(self) -> bool:
        told = self._event.wait(WAIT_S)
        self._event.clear()
        return told


@pytest.fixture
def pair(backend, request, tmp_path):
    """Two instances of one database, as two Engram processes have."""
    location = request.getfixturevalue("postgres_url") if backend == "postgresql" else str(tmp_path / "engram.db")
    first, second = open_database(location), open_database(location)
    yield first, second
    first.close()
    second.close()


@pytest.mark.both_backends
def test_a_commit_by_another_instance_moves_the_stamp_and_is_told(pair):
    mine, other = pair
    heard = Heard(mine)
    before = mine.change_stamp()
    assert mine.query("SELECT id FROM sessions") == [] and mine.change_stamp() == before   # reads change nothing
    other.execute(SESSION, ("s1", "f1"))
    assert heard.next()
    assert mine.change_stamp() != before
    assert mine.query("SELECT id FROM sessions") == [("s1",)]


@pytest.mark.both_backends
def test_own_writes_move_the_stamp_but_are_not_told_as_others(pair):
    mine, other = pair
    heard, theirs = Heard(mine), Heard(other)
    before = mine.change_stamp()
    with mine.transaction() as conn:
        conn.execute(SESSION, ("s1", "f1"))
        assert mine.change_stamp() != before      # a read inside sees the uncommitted row
    assert theirs.next()
    assert heard.calls == 0


def test_a_rolled_back_transaction_tells_nobody(postgres_url):
    mine, other = open_database(postgres_url), open_database(postgres_url)
    heard = Heard(mine)
    with pytest.raises(RuntimeError), other.transaction() as conn:
        conn.execute(SESSION, ("s1", "f1"))
        raise RuntimeError("changed its mind")
    other.execute(SESSION, ("s2", "f2"))
    assert heard.next()
    assert heard.calls == 1 and mine.query("SELECT id FROM sessions") == [("s2",)]
    mine.close()
    other.close()


def test_the_listener_comes_back_after_losing_the_server(postgres_url):
    """The server dropping the listening session (as a restart does) is followed by a new one; the
    reconnection itself counts as a change, since commits meanwhile were not told."""
    mine, other = open_database(postgres_url), open_database(postgres_url)
    heard = Heard(mine)
    before = mine.change_stamp()
    listening = mine._listener._conn.info.backend_pid
    other.query("SELECT pg_terminate_backend(?)", (listening,))
    assert heard.next()                                   # reconnected
    assert mine.change_stamp() != before
    other.execute(SESSION, ("s1", "f1"))
    assert heard.next()
    assert mine._listener._conn.info.backend_pid != listening
    mine.close()
    other.close()

