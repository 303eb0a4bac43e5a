"""Two Engram processes on one database, as two devices on a server (each with its own data
folder) or two windows on one SQLite file: a memory one adds is recalled by the other within a
second, told by the database (LISTEN/NOTIFY, data_version) rather than by asking it again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROCESS = [sys.executable, str(REPO / "tests" / "engram_process.py")]
TEXT = "The spare key is under the blue flowerpot"


@pytest.mark.both_backends
def test_a_memory_added_by_one_process_is_recalled_by_the_other_within_a_second(backend, request, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "desktop"))
    if backend == "postgresql":
        env["ENGRAM_DATABASE_URL"] = request.getfixturevalue("postgres_url")
        desk, laptop = tmp_path / "desk", tmp_path / "laptop"
    else:
        desk = laptop = tmp_path / "data"       # one SQLite file: one data folder
    recaller = subprocess.Popen([*PROCESS, "recall", str(laptop), TEXT], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert recaller.stdout.readline().strip() == "ready", recaller.stderr.read()
        adder = subprocess.run([*PROCESS, "add", str(desk), TEXT], env=env, text=True, capture_output=True,
                               timeout=120)
        assert adder.returncode == 0, adder.stderr
        out, err = recaller.communicate(timeout=60)
    finally:
        recaller.kill()
    assert recaller.returncode == 0, err
    added, found = float(adder.stdout.split()[-1]), float(out.split()[-1])
    print(f"recalled {found - added:.3f} s after it was added")
    assert found - added < 1.0
