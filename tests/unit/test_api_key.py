"""The API key in the data folder: made once, owner-only, regenerated on demand."""

from __future__ import annotations

import os
import stat
import sys
import threading

import pytest

from engram.integrations.api_key import accepts, api_key, key_path, regenerate


def test_the_key_is_made_once_and_kept(tmp_path):
    key = api_key(tmp_path)
    assert key.startswith("engram-") and len(key) > 40
    assert api_key(tmp_path) == key and key_path(tmp_path).read_text().strip() == key
    assert accepts(tmp_path, key) and not accepts(tmp_path, key[:-1]) and not accepts(tmp_path, "")
    assert [p.name for p in tmp_path.iterdir()] == ["api-key"]          # no temporary file left


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_only_its_owner_can_read_the_key(tmp_path):
    api_key(tmp_path)
    assert stat.S_IMODE(os.stat(key_path(tmp_path)).st_mode) == 0o600
    regenerate(tmp_path)
    assert stat.S_IMODE(os.stat(key_path(tmp_path)).st_mode) == 0o600


def test_a_regenerated_key_replaces_the_old_one(tmp_path):
    old = api_key(tmp_path)
    new = regenerate(tmp_path)
    assert new != old and api_key(tmp_path) == new and not accepts(tmp_path, old)


def test_programs_starting_at_once_agree_on_one_key(tmp_path):
    for attempt in range(20):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        keys, start = [], threading.Barrier(4)

        def read(folder=folder, keys=keys, start=start):
            start.wait()
            keys.append(api_key(folder))
        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(keys)) == 1 and keys[0] == api_key(folder)


def test_an_emptied_key_file_gets_a_new_key(tmp_path):
    key_path(tmp_path).write_text("\n")
    assert api_key(tmp_path).startswith("engram-")
