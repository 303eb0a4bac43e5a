"""The profile file: parsed as a person writes it, changed one whole file at a time, ids never
handed out twice, newer lines replacing older ones into Earlier, proposals, undo, bad files."""

from __future__ import annotations


import pytest

from engram.core.errors import DataDirError, InvalidInput, NotFound
from engram.core.profile.document import EARLIER, PROPOSED, ProfileLine, parse, render
from engram.core.profile.profiles import MAX_FILE_BYTES, Profiles


@pytest.fixture
def profiles(tmp_path):
    return Profiles(tmp_path / "profiles")


def test_a_file_written_by_hand_is_read_line_by_line_under_its_headings():
    doc = parse("# Me\n\nSome words before any heading\n\n## Health\n- Allergic to peanuts\n* Asthma\n"
                "1. Takes metformin every evening\n\n## 家人和朋友\n妈妈坐轮椅\n\n## My garden\n- Roses\n"
                "\n## Waiting for your OK\n- Likes jazz\n")
    assert [(line.category, line.text) for line in doc.lines] == [
        ("other", "Some words before any heading"), ("health", "Allergic to peanuts"), ("health", "Asthma"),
        ("health", "Takes metformin every evening"), ("people", "妈妈坐轮椅"), ("My garden", "Roses"),
        (PROPOSED, "Likes jazz")]
    assert [line.text for line in doc.active()] == [line.text for line in doc.lines[:-1]]
    again = parse(render(doc.numbered()))
    assert sorted((line.category, line.text) for line in again.lines) == sorted((line.category, line.text)
                                                                               for line in doc.lines)
    assert "## My garden" in render(doc)          # the person's own heading is kept


def test_a_broken_comment_leaves_the_words_and_a_forged_one_cannot_close_early():
    doc = parse('## Health\n- Allergic to peanuts <!-- {"id": "x", "importance": 99 -->\n')
    assert doc.lines[0].text.startswith("Allergic to peanuts")
    line = ProfileLine("likes <!-- hidden --> and more", "other", id=1)
    assert parse(render(parse(render(type(doc)([line]))))).lines[0].text == "likes <! -- hidden -- > and more"


def test_ids_are_never_handed_out_twice(profiles):
    first = profiles.note("ann", ProfileLine("Lives in Paris.", "identity"))
    profiles.remove("ann", first.line.id)
    second = profiles.note("ann", ProfileLine("Has a cat.", "people"))
    assert second.line.id > first.line.id
    profiles.path("ann").write_text(profiles.path("ann").read_text() + "- Written by hand\n")
    third = profiles.note("ann", ProfileLine("Likes tea.", "diet"))
    ids = [line.id for line in profiles.read("ann").lines]
    assert len(set(ids)) == len(ids) == 3 and third.line.id == max(ids)


def test_a_newer_line_replaces_the_older_one_which_is_kept_under_earlier(profiles):
    profiles.note("ann", ProfileLine("Lives in Paris.", "identity", slot="home"))
    moved = profiles.note("ann", ProfileLine("Lives in Lyon.", "identity", slot="home"))
    assert [r.text for r in moved.replaced] == ["Lives in Paris."]
    doc = profiles.read("ann")
    assert [line.text for line in doc.active()] == ["Lives in Lyon."]
    (earlier,) = [line for line in doc.lines if line.category == EARLIER]
    assert earlier.text == "Lives in Paris." and earlier.until
    profiles.undo(moved)
    assert [line.text for line in profiles.active("ann")] == ["Lives in Paris."]


def test_the_same_words_twice_make_one_line(profiles):
    assert profiles.note("ann", ProfileLine("Allergic to peanuts.", "health")) is not None
    assert profiles.note("ann", ProfileLine("allergic to  peanuts", "health")) is None
    assert len(profiles.active("ann")) == 1


def test_a_proposal_waits_until_accepted_and_then_replaces_what_it_corrects(profiles):
    old = profiles.note("ann", ProfileLine("Vegetarian.", "diet", slot="diet")).line
    proposal = profiles.propose("ann", ProfileLine("Eats fish again.", "diet", slot="diet")).line
    assert proposal.category == PROPOSED and [line.text for line in profiles.active("ann")] == ["Vegetarian."]
    accepted = profiles.accept("ann", proposal.id)
    assert accepted.line.category == "diet" and accepted.replaced[0].id == old.id
    assert [line.text for line in profiles.active("ann")] == ["Eats fish again."]
    with pytest.raises(InvalidInput):
        profiles.accept("ann", accepted.line.id)


def test_a_line_written_by_hand_can_be_corrected_by_number(profiles):
    profiles.path("ann").parent.mkdir(parents=True)
    profiles.path("ann").write_text("## Who I am\n- Works at Acme\n", encoding="utf-8")
    (line,) = profiles.read("ann").numbered().lines
    change = profiles.note("ann", ProfileLine("Works at Globex.", "identity"), replaces=line.id)
    assert [r.text for r in change.replaced] == ["Works at Acme"]
    assert [line.text for line in profiles.active("ann")] == ["Works at Globex."]


def test_edit_move_and_remove(profiles):
    a = profiles.note("ann", ProfileLine("A.", "health")).line
    b = profiles.note("ann", ProfileLine("B.", "health")).line
    profiles.move("ann", b.id, -1)
    assert [line.text for line in profiles.active("ann")] == ["B.", "A."]
    assert profiles.edit("ann", a.id, "  A, now  edited ").line.text == "A, now edited"
    profiles.remove("ann", b.id)
    assert [line.text for line in profiles.active("ann")] == ["A, now edited"]
    with pytest.raises(NotFound):
        profiles.remove("ann", b.id)


def test_lines_that_set_a_reply_preference_keep_the_preference_in_step(tmp_path):
    set_to = {}
    profiles = Profiles(tmp_path, set_preference=lambda user, key, value: set_to.__setitem__((user, key), value))
    change = profiles.note("ann", ProfileLine("Keep answers short.", "style", slot="preference:detail",
                                              preference={"detail": "brief"}))
    assert set_to == {("ann", "detail"): "brief"}
    profiles.undo(change)
    assert set_to == {("ann", "detail"): None}


def test_people_are_kept_apart_and_no_user_name_reaches_outside_the_folder(profiles):
    profiles.note("ann", ProfileLine("Allergic to peanuts.", "health"))
    assert profiles.active("bob") == []
    for user in ("../../etc/passwd", "a/b", "", "x" * 500, "用户"):
        path = profiles.path(user)
        assert path.parent == profiles.folder and path.name.endswith(".md")


def test_a_file_that_is_not_text_or_too_big_says_so_and_is_left_as_it_is(profiles):
    path = profiles.path("ann")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"## Health\n- \xff\xfe peanuts\n")
    with pytest.raises(DataDirError, match="not UTF-8"):
        profiles.read("ann")
    with pytest.raises(DataDirError):
        profiles.note("ann", ProfileLine("Has a cat.", "people"))
    assert path.read_bytes() == b"## Health\n- \xff\xfe peanuts\n"
    path.write_bytes(b"- x\n" * (MAX_FILE_BYTES // 4 + 1))
    with pytest.raises(DataDirError, match="limit"):
        profiles.read("ann")


def test_a_failed_write_leaves_the_old_file(profiles, monkeypatch):
    profiles.note("ann", ProfileLine("Allergic to peanuts.", "health"))
    before = profiles.path("ann").read_bytes()

    def full_disk(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("engram.core.profile.profiles.write_text_atomic", full_disk)
    with pytest.raises(DataDirError, match="could not be written"):
        profiles.note("ann", ProfileLine("Has a cat.", "people"))
    assert profiles.path("ann").read_bytes() == before
    assert [line.text for line in profiles.active("ann")] == ["Allergic to peanuts."]


def test_forget_everywhere_removes_the_profile_lines_that_hold_the_words(make_engram):
    from engram.core.forget import find, forget_everywhere

    engram = make_engram()
    engram.turn_engine.send(engram.sessions.get_or_create("s", engram.user).id, "I'm allergic to peanuts.")
    engram.profiles.note(engram.user, ProfileLine("Has a cat.", "people"))
    engram.profiles.propose(engram.user, ProfileLine("Peanuts make her ill.", "health"))
    places = [p for p in find(engram, "peanuts", engram.user) if p.what == "profile line"]
    assert len(places) == 2 and places[0].where.startswith("profile: line #")
    forget_everywhere(engram, "peanuts", engram.user)
    assert [line.text for line in engram.profiles.read(engram.user).lines] == ["Has a cat."]
    (recall,) = engram.db.query_one("SELECT recall FROM turns")      # what the profile noted, in the record
    assert "peanut" not in recall.lower() and "[forgotten]" in recall
    assert "peanut" not in engram.profiles.path(engram.user).read_text().lower()
