"""The issue's passport scenario through the command line, with the real models: said in s1,
recalled by s2's turn, then forgotten everywhere while another process reads the database."""

import json

import pytest

from bytescan import another_process_reading, occurrences
from engram.cli import main
from engram.core.paths import DATABASE_FILE

pytestmark = pytest.mark.real_model

NUMBER = "ZX9931457Q"


def test_passport_number_leaves_no_byte_behind(tmp_path, capsys):
    data = str(tmp_path / "data")
    assert main(["ask", "--data-dir", data, "--session", "s1", "--max-tokens", "8",
                 f"My passport number is {NUMBER}"]) == 0
    with another_process_reading(tmp_path / "data" / DATABASE_FILE):
        capsys.readouterr()
        assert main(["ask", "--data-dir", data, "--session", "s2", "--max-tokens", "8", "--json",
                     "What is my passport number?"]) == 0
        turn = json.loads(capsys.readouterr().out)["turn"]
        assert any(NUMBER in r["text"] for r in turn["recalled"])          # s2's record holds it
        assert occurrences(tmp_path / "data", NUMBER)
        assert main(["forget", "--data-dir", data, "--text", NUMBER.lower(), "--yes", "--files"]) == 0
        out = capsys.readouterr().out
        assert "message" in out and "turn record" in out and "memory" in out
        assert occurrences(tmp_path / "data", NUMBER) == []
