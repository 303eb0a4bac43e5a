"""SIGKILL between storing the user message and storing the reply loses nothing; the outbox
resumes the archive job on the next start. Real models on both sides; on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import apsw
import psycopg
import pytest

from engram.core.app import Engram
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions

pytestmark = [pytest.mark.real_model, pytest.mark.both_backends]

CHILD = textwrap.dedent("""
    from engram.core.app import Engram
    engram = Engram()                       # no outbox worker: the job must wait for the next start
    engram.sessions.get_or_create("s", "U")
    engram.turn_engine.send("s", "My bike lock code is 4711", max_tokens=4000)
""")


def test_sigkill_mid_reply_loses_nothing_and_the_outbox_resumes(isolated_dirs, real_embedder, backend, request,
                                                                 monkeypatch):
    if backend == "postgresql":         # the child and the next start find the server as a person's would
        monkeypatch.setenv("ENGRAM_DATABASE_URL", request.getfixturevalue("postgres_url"))
    database = isolated_dirs / "data" / "engram.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=os.environ.copy())
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _user_message_stored(database):
            assert child.poll() is None, "the child ended before the message was stored"
            time.sleep(0.05)
        assert _user_message_stored(database), "the user message was never stored"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(30)

    engram = Engram(embedder=real_embedder)
    try:
        assert [(m.role, m.content) for m in engram.sessions.messages("s")] == [("user", "My bike lock code is 4711")]
        assert engram.outbox.health().pending == 1
        engram.outbox.start()
        assert engram.outbox.drain(timeout=60)
        hits = engram.store.search("bike lock", Scope(user="U"), SearchOptions(mode="meaning")).hits
        assert hits and hits[0].memory.text == "My bike lock code is 4711"
    finally:
        engram.outbox.stop()
        engram.db.close()


def _user_message_stored(path) -> bool:
    """Whether the child committed the user message, read apart from it (its file read-only, or its server)."""
    if url := os.environ.get("ENGRAM_DATABASE_URL"):
        try:
            with psycopg.connect(url) as connection:
                return bool(connection.execute("SELECT count(*) FROM messages WHERE role = 'user'").fetchone()[0])
        except psycopg.Error:           # the child has not made the tables yet
            return False
    if not path.exists():
        return False
    try:
        connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            return bool(connection.execute("SELECT count(*) FROM messages WHERE role = 'user'").fetchone()[0])
        finally:
            connection.close()
    except apsw.Error:
        return False
