"""Names in a session folder never leave it and work on every system."""

import pytest
from hypothesis import given, strategies as st

from engram.core.errors import InvalidInput
from engram.core.files.folder import SessionFolder
from engram.core.files.names import check_name, is_ignored, writable_name


@pytest.mark.parametrize("name", ["plan.md", "notes/day-1.md", "旅行计划.md", "Ünïcode name.txt", "a.b.c.md"])
def test_plain_names_are_accepted(name):
    assert check_name(name) == name


@pytest.mark.parametrize("name, reason", [
    ("../secret.md", "inside"), ("a/../../b.md", "inside"), ("/etc/passwd", "absolute"), ("C:/x.md", "drive letter"),
    ("a\\b.md", "some systems"), ("what?.md", "some systems"), ("x:y.md", "Windows"), ("ab:c.md", "some systems"), ("tab\there.md", "control"),
    ("new\nline.md", "control"), ("CON", "reserved"), ("nul.md", "reserved"), ("com1.txt", "reserved"),
    ("trailing.", "Windows"), ("space .md ", None), (".hidden.md", "hidden"), ("", "required"),
    ("a" * 300 + ".md", "limit"), ("a/b/c/d/e.md", "deep"), ("bidi\u202e.md", "control"),
])
def test_bad_names_are_refused_with_a_reason(name, reason):
    if name == "space .md ":  # outer spaces are trimmed, so this one is fine
        assert check_name(name) == "space .md"
        return
    with pytest.raises(InvalidInput) as caught:
        check_name(name)
    assert reason in str(caught.value)
    assert caught.value.hint


def test_writable_names_get_md_and_never_the_index():
    assert writable_name("plan") == "plan.md"
    assert writable_name("notes/plan") == "notes/plan.md"
    with pytest.raises(InvalidInput, match="generated index"):
        writable_name("memories.md")
    with pytest.raises(InvalidInput, match="not a text file"):
        writable_name("tool.exe")


def test_ignored_paths():
    assert is_ignored(".plan.md.abc.tmp") and is_ignored("memories.md") and is_ignored("sub/.x.swp")
    assert is_ignored("plan.md~") and not is_ignored("plan.md")


def test_a_link_inside_the_folder_is_refused(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    folder = SessionFolder(tmp_path / "session")
    folder.path.mkdir()
    (folder.path / "link.md").symlink_to(outside)
    (folder.path / "linked-dir").symlink_to(tmp_path)
    for name in ("link.md", "linked-dir/outside.md"):
        with pytest.raises(InvalidInput, match="link"):
            folder.read(name)
        with pytest.raises(InvalidInput, match="link"):
            folder.write(name, "overwrite")
    assert outside.read_text() == "secret"


@given(st.text(min_size=1, max_size=40))
def test_any_accepted_name_stays_inside(tmp_path_factory, name):
    root = tmp_path_factory.getbasetemp() / "prop"
    folder = SessionFolder(root)
    try:
        path = folder.locate(name)
    except InvalidInput:
        return
    assert path.resolve().is_relative_to(root.resolve())
    assert path.resolve() != root.resolve()
