"""`engram import chatgpt` end to end with the real bundled embedding model: an export of three
conversations gives three chats whose words are found by meaning, and a second import adds nothing."""

import json

import pytest

from chat_exports import three_conversations, write_chatgpt_zip
from engram.cli import main

pytestmark = pytest.mark.real_model


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_chatgpt_export_of_three_conversations(capsys, tmp_path):
    d = str(tmp_path / "data")
    export = write_chatgpt_zip(tmp_path / "chatgpt-export.zip", three_conversations())
    code, out, err = run(capsys, "import", "chatgpt", str(export), "--data-dir", d)
    assert code == 0, err
    assert "imported 3 conversation(s) with 7 message(s) from chatgpt" in out
    assert "archiving into memory: 100% of 3 conversation(s)" in err and "goes on the next time" not in out

    code, out, _ = run(capsys, "sessions", "list", "--data-dir", d, "--json")
    sessions = [json.loads(line) for line in out.splitlines()]
    assert sorted(s["title"] for s in sessions) == ["Bike repair", "Birdwatching", "Snack ideas"]

    code, out, _ = run(capsys, "memory", "search", "--data-dir", d, "--json", "-k", "1",
                       "which nuts should I avoid on a trip?")
    found = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and "allergic to peanuts" in found[0]["text"]
    assert found[0]["created_at"] == "2023-11-14T22:13:20.000Z"          # the day it was said
    code, out, _ = run(capsys, "memory", "search", "--data-dir", d, "--json", "-k", "3", "where to see kingfishers")
    assert any("kingfishers near Lyon" in json.loads(line)["text"] for line in out.splitlines())

    code, out, _ = run(capsys, "memory", "list", "--data-dir", d, "--json", "--limit", "100")
    memories = len(out.splitlines())
    code, out, err = run(capsys, "import", "chatgpt", str(export), "--data-dir", d)
    assert code == 0 and "imported 0 conversation(s)" in out and "3 conversation(s) were imported before" in out
    code, out, _ = run(capsys, "sessions", "list", "--data-dir", d, "--json")
    assert len(out.splitlines()) == 3
    code, out, _ = run(capsys, "memory", "list", "--data-dir", d, "--json", "--limit", "100")
    assert len(out.splitlines()) == memories == 7
