"""``engram files ...`` and ``engram reindex`` end to end (real embedding model, real files)."""

import io
from pathlib import Path

import pytest

from engram.cli import main

pytestmark = pytest.mark.real_model


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_files_commands(capsys, monkeypatch, tmp_path):
    code, out, _ = run(capsys, "files", "path", "--session", "trip")
    folder = out.strip()
    assert code == 0 and folder.startswith(str(tmp_path / "data" / "sessions")) and folder.endswith("_trip")
    assert Path(folder).is_dir()

    assert run(capsys, "files", "write", "--session", "trip", "--description", "The plan", "plan",
               "# Day 1\nVisit the Louvre museum\n# Day 2\nBeach")[0] == 0
    code, out, _ = run(capsys, "files", "write", "--session", "trip", "notes.md", "-",
                       stdin="# Notes\nBring sunscreen\n", monkeypatch=monkeypatch)
    assert code == 0 and out.startswith("saved notes.md")
    assert run(capsys, "files", "list", "--session", "trip")[1] == "- notes.md: Notes\n- plan.md: The plan\n"
    assert run(capsys, "files", "read", "--session", "trip", "plan.md")[1].startswith("# Day 1\nVisit the Louvre")
    assert run(capsys, "files", "grep", "--session", "trip", "--glob", "plan*", "LOUVRE")[1] == \
        "plan.md:5: Visit the Louvre museum\n"
    assert run(capsys, "files", "search", "--session", "trip", "-k", "1", "art gallery")[1].startswith("[plan.md line 5]")

    code, _, err = run(capsys, "files", "read", "--session", "trip", "../../engram.db")
    assert code == 1 and "inside the session folder" in err
    code, _, err = run(capsys, "files", "list", "--session", "nope")
    assert code == 2 and "there is no session 'nope'" in err

    (tmp_path / "data" / "sessions" / folder.rsplit("/", 1)[-1] / "hand.md").write_text("# By hand\nwritten offline\n")
    code, out, _ = run(capsys, "reindex", "--session", "trip")
    assert code == 0 and "reindexed: 3 files" in out
    assert "hand.md: By hand" in run(capsys, "files", "list", "--session", "trip")[1]
    assert run(capsys, "files", "delete", "--session", "trip", "hand.md")[1] == "deleted hand.md\n"
    code, out, _ = run(capsys, "reindex")
    assert code == 0 and "reindexed: 2 files, 0 changed, 0 with problems" in out
