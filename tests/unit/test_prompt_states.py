"""The prompt-state folder without a model: file names, checks, the size bound (the real
restore is tests/integration/test_chat_model_states.py)."""

from __future__ import annotations

import logging
import os

import pytest

from engram.core.models.prompt_states import SUFFIX, PromptStates, default_folder

PREFIX = list(range(100, 200))


@pytest.fixture
def states(tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + b"\x00" * 100)
    return PromptStates(tmp_path / "states", model, limit=1000)


def test_the_cache_folder_follows_engram_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_CACHE_DIR", str(tmp_path / "c"))
    assert default_folder() == tmp_path / "c" / "prompt-states"


def test_each_prefix_and_model_file_has_its_own_file(states, tmp_path):
    assert states.path(PREFIX) == states.path(list(PREFIX))
    assert states.path(PREFIX) != states.path(PREFIX[:-1] + [7])
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF" + b"\x01" * 100)
    assert PromptStates(states.folder, other).path(PREFIX) != states.path(PREFIX)


def test_the_folder_keeps_to_its_limit_dropping_the_least_recently_used(states):
    prefixes = [PREFIX + [1], PREFIX + [2], PREFIX + [3]]
    states.limit = 10**6
    for n, prefix in enumerate(prefixes):
        states.save(prefix, bytes([n]) * 300)
        os.utime(states.path(prefix), ns=(n * 10**9, n * 10**9))
    os.utime(states.path(prefixes[0]), ns=(5 * 10**9, 5 * 10**9))          # used again since
    states.limit = sum(p.stat().st_size for p in states.folder.iterdir())   # full
    states.save(PREFIX + [4], b"x" * 300)
    kept = {p.name for p in states.folder.glob(f"*{SUFFIX}")}
    assert kept == {states.path(p).name for p in (prefixes[0], prefixes[2], PREFIX + [4])}
    assert sum(p.stat().st_size for p in states.folder.iterdir()) <= states.limit


@pytest.mark.parametrize("damage", [
    lambda data: data[:-1] + bytes([data[-1] ^ 1]),          # a flipped bit in the state
    lambda data: data[:-10],                                 # cut short
    lambda data: b"",                                        # empty
    lambda data: data[:12] + b"{not json" + data[40:],       # a header that does not read
    lambda data: data.replace(b'"tokens": 100', b'"tokens": 101'),   # made for another prompt
], ids=["flipped bit", "cut short", "empty", "bad header", "other prompt"])
def test_a_damaged_file_is_ignored_removed_and_logged(states, caplog, damage):
    states.save(PREFIX, b"state" * 50)
    path = states.path(PREFIX)
    path.write_bytes(damage(path.read_bytes()))
    caplog.set_level(logging.WARNING, logger="engram.core.models.prompt_states")
    assert states.restore(None, PREFIX) is False             # never reaches llama.cpp
    assert not path.exists()
    assert any(path.name in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)


def test_no_file_is_no_state_and_no_warning(states, caplog):
    caplog.set_level(logging.WARNING)
    assert states.restore(None, PREFIX) is False and caplog.records == []
