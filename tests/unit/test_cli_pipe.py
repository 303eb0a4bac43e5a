"""A command whose reader leaves early (``engram sessions list | head``) ends quietly, as other
command-line tools do: no BrokenPipeError traceback (issue 33, defect 9)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

DESKTOP = str(Path(__file__).resolve().parents[2] / "desktop")


def engram(*args: str, closed: bool = False) -> subprocess.CompletedProcess:
    """Run the command line; with ``closed`` its output pipe has no reader from the start."""
    env = {**os.environ, "PYTHONPATH": DESKTOP}
    if not closed:
        return subprocess.run([sys.executable, "-m", "engram", *args], env=env, capture_output=True, text=True,
                              timeout=60)
    process = subprocess.Popen([sys.executable, "-m", "engram", *args], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, "", err)


@pytest.mark.parametrize("args", [("memory", "list"), ("--help",)])
def test_a_closed_output_pipe_ends_the_command_quietly(args):
    for text in ("my bank PIN hint is the cat", "I like green tea"):
        assert engram("memory", "add", text).returncode == 0
    ended = engram(*args, closed=True)
    assert "Traceback" not in ended.stderr and "BrokenPipe" not in ended.stderr, ended.stderr
    assert ended.returncode in (0, 141)
