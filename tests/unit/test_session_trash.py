"""Deleting a session moves its folder of files to <data dir>/trash/; a failed move is reported."""

import pytest

from engram.core.errors import DataDirError, NotFound
from engram.core.files import SESSIONS_DIR, TRASH_DIR
from engram.core.files.trash import move_to_trash

pytestmark = pytest.mark.both_backends


@pytest.fixture
def engram_with_files(make_engram):
    """An Engram with session 's': a file the app wrote and one a person wrote by hand."""
    engram = make_engram()
    session = engram.sessions.get_or_create("s", "u", title="Trip planning")
    engram.sessions.add_message("s", "user", "plan the trip")
    engram.files.write(session.folder, "plan.md", "# Day 1\nLisbon\n", "The plan")
    folder = engram.files.folder(session.folder).path
    (folder / "notes").mkdir()
    (folder / "notes" / "by-hand.md").write_text("# Mine\nwritten by hand\n")
    engram.files.sync_folder(session.folder)
    return engram, folder


def test_deleting_a_session_moves_its_files_to_the_trash(engram_with_files):
    engram, folder = engram_with_files
    deleted = engram.delete_session("s")
    assert deleted.messages == 1 and deleted.problem is None and deleted.folder == folder
    assert not folder.exists() and list((engram.data_dir / SESSIONS_DIR).iterdir()) == []
    trashed = deleted.trashed
    assert trashed.parent == engram.data_dir / TRASH_DIR and trashed.name.startswith(f"{folder.name}_deleted-")
    assert (trashed / "notes" / "by-hand.md").read_text() == "# Mine\nwritten by hand\n"
    assert "Lisbon" in (trashed / "plan.md").read_text() and "plan.md" in (trashed / "memories.md").read_text()
    assert engram.files.statuses(folder.name) == []
    assert engram.db.query_one("SELECT count(*) FROM memories WHERE kind = 'file'")[0] == 0
    assert engram.files.sync_folder(folder.name) == [] and not folder.exists()   # nothing re-creates it


def test_a_session_is_deleted_even_when_its_folder_cannot_be_moved(engram_with_files):
    engram, folder = engram_with_files
    (engram.data_dir / TRASH_DIR).write_text("a file where the trash folder goes")
    deleted = engram.delete_session("s")
    assert deleted.trashed is None and isinstance(deleted.problem, DataDirError)
    assert f"could not be moved to the trash folder {engram.data_dir / TRASH_DIR}" in deleted.problem.args[0]
    assert f"they are still in {folder}" in deleted.problem.hint
    with pytest.raises(NotFound):
        engram.sessions.get("s")
    assert (folder / "notes" / "by-hand.md").read_text() == "# Mine\nwritten by hand\n"
    assert engram.files.statuses(folder.name) == []


def test_a_session_without_a_folder_leaves_no_trash(make_engram):
    engram = make_engram()
    engram.sessions.get_or_create("s", "u")
    deleted = engram.delete_session("s")
    assert (deleted.trashed, deleted.problem) == (None, None)
    assert not (engram.data_dir / TRASH_DIR).exists()


def test_folders_of_the_same_name_do_not_clash_in_the_trash(tmp_path):
    trash = tmp_path / "trash"
    moved = []
    for n in range(3):
        folder = tmp_path / f"run{n}" / "2026-01-02_1404_chat"
        folder.mkdir(parents=True)
        (folder / "a.md").write_text(f"version {n}")
        moved.append(move_to_trash(folder, trash))
    assert len(set(moved)) == 3 and [(m / "a.md").read_text() for m in moved] == ["version 0", "version 1", "version 2"]
