"""Moving the data folder: copy, verify, then remove the old one; refuse anything unsafe."""

from __future__ import annotations

import pytest

from engram.core.errors import DataDirError, InvalidInput
from engram.core.storage.relocate import move_data_dir


@pytest.fixture
def source(tmp_path):
    folder = tmp_path / "data"
    (folder / "sessions" / "2026-11-29_trip").mkdir(parents=True)
    (folder / "engram.db").write_bytes(b"SQLite format 3\x00" + bytes(5000))
    (folder / "sessions" / "2026-11-29_trip" / "plan.md").write_text("# plan")
    return folder


def test_everything_moves_and_the_old_folder_goes(source, tmp_path):
    target = move_data_dir(source, tmp_path / "elsewhere" / "engram")
    assert (target / "engram.db").read_bytes().startswith(b"SQLite format 3")
    assert (target / "sessions" / "2026-11-29_trip" / "plan.md").read_text() == "# plan"
    assert not source.exists()


def test_a_non_empty_target_is_refused_and_nothing_changes(source, tmp_path):
    target = tmp_path / "occupied"
    target.mkdir()
    (target / "mine.txt").write_text("mine")
    with pytest.raises(DataDirError, match="not an empty folder"):
        move_data_dir(source, target)
    assert [p.name for p in target.iterdir()] == ["mine.txt"] and (source / "engram.db").exists()


def test_a_target_inside_the_source_is_refused(source):
    with pytest.raises(InvalidInput, match="contain one another"):
        move_data_dir(source, source / "inner")


def test_an_unwritable_target_leaves_the_source_untouched(source, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(DataDirError):
        move_data_dir(source, blocker / "data")
    assert (source / "sessions" / "2026-11-29_trip" / "plan.md").exists()
