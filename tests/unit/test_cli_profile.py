"""``engram profile``: show, add, edit, move, accept, reject and remove lines, each said plainly;
a line that is not there is a clear error that changes nothing."""

from __future__ import annotations

from engram.cli import main
from engram.core.app import Engram
from engram.core.profile.document import ProfileLine


def test_the_profile_commands_change_the_file_and_say_what_they_did(capsys):
    assert main(["profile", "show"]) == 0
    assert "the profile is empty" in capsys.readouterr().out
    assert main(["profile", "add", "--category", "health", "--importance", "5", "Allergic to peanuts."]) == 0
    assert main(["profile", "add", "Likes jazz."]) == 0
    assert main(["profile", "add", "likes  jazz"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["[1] Allergic to peanuts.", "[2] Likes jazz.", "the profile already says this"]
    assert main(["profile", "edit", "2", "Likes jazz and blues."]) == 0
    with Engram(meaning=False) as engram:
        engram.profiles.propose(engram.user, ProfileLine("Has a cat.", "people"))
    assert main(["profile", "accept", "3"]) == 0
    assert main(["profile", "remove", "1"]) == 0
    assert main(["profile", "remove", "1"]) == 2
    out, err = capsys.readouterr()
    assert "removed [1] Allergic to peanuts." in out and "no line #1" in err
    assert main(["profile", "show"]) == 0
    shown = capsys.readouterr().out
    assert "Likes jazz and blues." in shown and "people:\n  [3] Has a cat." in shown and "peanuts" not in shown
    assert main(["profile", "path"]) == 0
    assert capsys.readouterr().out.strip().endswith("profiles/default.md")
