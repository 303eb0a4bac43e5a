"""``engram files ...``, ``engram reindex`` and what ``engram sessions delete`` does with the files, end to
end (real embedding model, real files)."""

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


def test_files_list_shows_an_index_that_cannot_be_written(capsys, tmp_path):
    folder = Path(run(capsys, "files", "path", "--session", "trip")[1].strip())
    (folder / "memories.md").mkdir()
    assert run(capsys, "files", "write", "--session", "trip", "plan.md", "# Day 1\nLisbon\n")[0] == 0
    code, out, _ = run(capsys, "files", "list", "--session", "trip")
    assert code == 0 and out.startswith("- memories.md: (not written: a folder named memories.md is in the way")
    assert out.endswith("- plan.md: Day 1\n")
    (folder / "memories.md").rmdir()
    run(capsys, "reindex", "--session", "trip")
    assert run(capsys, "files", "list", "--session", "trip")[1] == "- plan.md: Day 1\n"


def test_sessions_delete_moves_the_files_to_the_trash_or_says_why_not(capsys, tmp_path):
    data = tmp_path / "data"
    for session in ("one", "two"):
        run(capsys, "files", "write", "--session", session, "notes.md", "# Notes\nmine\n")
    code, out, _ = run(capsys, "sessions", "delete", "one")
    trashed = Path(out.splitlines()[-1].removeprefix("its files were moved to "))
    assert code == 0 and trashed.parent == data / "trash" and (trashed / "notes.md").exists()

    (data / "trash").rename(data / "emptied")
    (data / "trash").write_text("in the way")
    code, out, err = run(capsys, "sessions", "delete", "two")
    assert code == 1 and out.startswith("deleted session two")
    assert f"could not be moved to the trash folder {data / 'trash'}" in err and "still in" in err
    assert run(capsys, "sessions", "list")[1] == ""
    assert [p.name for p in (data / "sessions").iterdir()][0].endswith("_two")
