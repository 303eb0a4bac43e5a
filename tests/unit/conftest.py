"""Fixtures for the session-file tests: one session of alice's and the index of its folder."""

import pytest

from engram.core.files import FileIndex
from engram.core.conversation.sessions import Sessions


@pytest.fixture
def session(db):
    return Sessions(db).get_or_create("s1", "alice", title="Trip planning")


@pytest.fixture
def index(store, tmp_path):
    return FileIndex(store, tmp_path / "sessions")
