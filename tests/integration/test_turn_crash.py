"""SIGKILL between storing the user message and storing the reply loses nothing; the outbox
resumes the archive job on the next start. Real models on both sides."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import apsw
import pytest

from engram.core.app import Engram
from engram.core.memory.scope import Scope
from engram.core.memory.search.fusion import SearchOptions

pytestmark = pytest.mark.real_model

CHILD = textwrap.dedent("""
    from engram.core.app import Engram
    engram = Engram()                       # no outbox worker: the job must wait for the next start
    engram.sessions.get_or_create("s", "U")
    engram.turn_engine.send("s", "My bike lock code is 4711", max_tokens=4000)
""")


def test_sigkill_mid_reply_loses_nothing_and_the_outbox_resumes(isolated_dirs, real_embedder):
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
