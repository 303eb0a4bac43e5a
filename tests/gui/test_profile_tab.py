"""The Profile tab on its own, over a fresh data folder (fake models): the lines under their
headings with where they came from, each action changing the file, and the file's hand edits
showing within a second."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication

from engram.core.app import Engram
from engram.core.profile.document import ProfileLine
from engram.ui.backend import Backend
from engram.ui.profile_tab import ProfileTab
from fakes import FakeChatModel, FakeEmbedder


@pytest.fixture
def tab(qtbot):
    backend = Backend(opener=lambda data_dir: Engram(data_dir, embedder=FakeEmbedder(), chat_model=FakeChatModel()))
    backend.open()
    qtbot.waitUntil(lambda: backend.ready, timeout=10_000)
    view = ProfileTab(backend)
    qtbot.addWidget(view)
    view.resize(420, 700)
    view.show()
    yield view
    backend.close()


def engram_of(view):
    return view.backend.engram


def file_lines(view) -> dict[str, list[str]]:
    """The profile as the file on disk says it now: category -> texts, in order."""
    engram = engram_of(view)
    found: dict[str, list[str]] = {}
    for line in engram.profiles.read(engram.user).lines:
        found.setdefault(line.category, []).append(line.text)
    return found


def texts(view) -> list[str]:
    return [row.text.text() for row in view.rows.values()]


def shown(view, text: str):
    return next(row for row in view.rows.values() if row.line.text == text)


def seed(view):
    """A line said in a chat, one written by hand, one the model learned, one that replaced an
    older one (now under Earlier), one waiting for an OK."""
    engram = engram_of(view)
    user, profiles = engram.user, engram.profiles
    session = engram.sessions.get_or_create(None, user, title="Snacks")
    profiles.note(user, ProfileLine("Allergic to peanuts.", "health", slot="allergy:peanuts", importance=5,
                                    by="rules", source="Snacks", session=session.id, message=1, added="2026-11-27"))
    profiles.note(user, ProfileLine("Takes insulin every evening.", "health", by="hand", added="2026-11-28"))
    profiles.note(user, ProfileLine("Lives in Paris.", "identity", slot="home", by="rules", source="Moving",
                                    session=session.id, message=3, added="2026-10-01"))
    profiles.note(user, ProfileLine("Lives in Lyon.", "identity", slot="home", by="model", source="Moving again",
                                    session=session.id, message=5, added="2026-12-01"))
    profiles.propose(user, ProfileLine("Vegetarian.", "diet", by="rules", source="Dinner", session=session.id,
                                       message=7, added="2026-12-02"))
    view.refresh()


def test_the_lines_show_under_their_headings_with_where_they_came_from(qtbot, tab):
    seed(tab)
    qtbot.waitUntil(lambda: len(tab.rows) == 5, timeout=5_000)
    headings = [w.text() for w in tab.inner.findChildren(type(tab.status)) if w.objectName() == "ProfileHeading"]
    assert headings[:3] == ["Waiting for your OK  (1)", "Health", "Who I am"]
    assert tab.earlier_toggle.text() == "Earlier  (1)" and not tab.earlier_toggle.isChecked()

    peanuts = shown(tab, "Allergic to peanuts.")
    assert "You said it in chat “Snacks” · 2026-11-27" in peanuts.source.text()
    assert "Written by hand · 2026-11-28" in shown(tab, "Takes insulin every evening.").source.text()
    assert "Learned by the model in chat “Moving again”" in shown(tab, "Lives in Lyon.").source.text()
    assert set(peanuts.buttons) == {"Edit", "Up", "Down", "Delete"}
    assert not peanuts.buttons["Up"].isEnabled() and peanuts.buttons["Down"].isEnabled()   # first of its heading
    assert set(shown(tab, "Vegetarian.").buttons) == {"Accept", "Reject", "Edit"}

    paris = shown(tab, "Lives in Paris.")                 # replaced by Lyon: folded away, greyed, dated
    assert not paris.isVisible() and paris.property("state") == "earlier"
    assert f"until {paris.line.until}" in paris.source.text()
    tab.earlier_toggle.click()
    assert paris.isVisible() and set(paris.buttons) == {"Delete"}

    jumps = []
    tab.jump_requested.connect(lambda session, message: jumps.append((session, message)))
    peanuts.source.linkActivated.emit("chat")
    assert jumps == [(peanuts.line.session, 1)]


def test_edit_delete_move_accept_and_reject_change_the_file(qtbot, tab):
    seed(tab)
    qtbot.waitUntil(lambda: len(tab.rows) == 5, timeout=5_000)

    shown(tab, "Takes insulin every evening.").buttons["Up"].click()
    qtbot.waitUntil(lambda: file_lines(tab)["health"][0] == "Takes insulin every evening.", timeout=5_000)
    qtbot.waitUntil(lambda: texts(tab)[1] == "Takes insulin every evening.", timeout=5_000)   # after the proposal

    row = shown(tab, "Allergic to peanuts.")
    row.buttons["Edit"].click()
    assert tab.editing == row.line.id and row.editor.text() == "Allergic to peanuts."
    row.editor.setText("Allergic to peanuts and cashews.")
    row.category.setCurrentIndex(row.category.findData("diet"))
    row.save()
    qtbot.waitUntil(lambda: file_lines(tab).get("diet") == ["Allergic to peanuts and cashews."], timeout=5_000)
    assert file_lines(tab)["health"] == ["Takes insulin every evening."]
    qtbot.waitUntil(lambda: "Allergic to peanuts and cashews." in texts(tab), timeout=5_000)
    assert "Written by hand" in shown(tab, "Allergic to peanuts and cashews.").source.text()   # the person's now

    shown(tab, "Vegetarian.").buttons["Accept"].click()
    qtbot.waitUntil(lambda: "proposed" not in file_lines(tab), timeout=5_000)
    assert file_lines(tab)["diet"] == ["Allergic to peanuts and cashews.", "Vegetarian."]

    engram = engram_of(tab)
    engram.profiles.propose(engram.user, ProfileLine("Afraid of heights.", "limits", by="rules"))
    qtbot.waitUntil(lambda: "Afraid of heights." in texts(tab), timeout=5_000)      # the watcher saw it
    shown(tab, "Afraid of heights.").buttons["Reject"].click()
    qtbot.waitUntil(lambda: "proposed" not in file_lines(tab) and "limits" not in file_lines(tab), timeout=5_000)

    shown(tab, "Lives in Lyon.").buttons["Delete"].click()
    qtbot.waitUntil(lambda: "identity" not in file_lines(tab), timeout=5_000)
    qtbot.waitUntil(lambda: "Lives in Lyon." not in texts(tab), timeout=5_000)
    assert "Removed: Lives in Lyon." in tab.status.text()
    qtbot.waitUntil(lambda: not tab.undo_button.isHidden(), timeout=5_000)
    tab.undo_button.click()                                          # deleted by mistake: back
    qtbot.waitUntil(lambda: file_lines(tab).get("identity") == ["Lives in Lyon."], timeout=5_000)
    qtbot.waitUntil(lambda: tab.undo_button.isHidden() and "Back: Lives in Lyon." in tab.status.text(), timeout=5_000)


def test_an_empty_edit_or_escape_changes_nothing(qtbot, tab):
    seed(tab)
    qtbot.waitUntil(lambda: len(tab.rows) == 5, timeout=5_000)
    before = file_lines(tab)
    row = shown(tab, "Allergic to peanuts.")
    tab.edit_line(row.line.id)
    row.editor.setText("   ")
    row.save()
    assert tab.problem.isVisible() and "needs some words" in tab.problem.text()
    tab.stop_editing()
    assert tab.editing is None and shown(tab, "Allergic to peanuts.").editor is None
    assert file_lines(tab) == before


def test_a_hand_edit_of_the_file_shows_within_a_second(qtbot, tab):
    engram = engram_of(tab)
    path = engram.profiles.path(engram.user)
    assert not path.exists()
    qtbot.waitUntil(lambda: str(engram.data_dir) in tab.watcher.directories(), timeout=5_000)   # read once

    # Within a second (two here: the tests may share a busy machine). No refresh is asked for:
    # without the watcher, nothing would show.
    path.parent.mkdir(parents=True)             # the folder appears, then an editor writes the file
    path.write_text("# About me\n\n## Health\n\n- Allergic to peanuts.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: texts(tab) == ["Allergic to peanuts."], timeout=2_000)
    assert "Written by hand" in shown(tab, "Allergic to peanuts.").source.text()

    # As editors save: a new file written beside it, then renamed over it.
    temporary = path.with_name(".default.md.swp")
    temporary.write_text("# About me\n\n## Health\n\n- Allergic to peanuts.\n\n## Food\n\n- Vegetarian.\n",
                         encoding="utf-8")
    os.replace(temporary, path)
    qtbot.waitUntil(lambda: texts(tab) == ["Allergic to peanuts.", "Vegetarian."], timeout=2_000)
    path.write_text("# About me\n\n## Food\n\n- Vegan.\n", encoding="utf-8")        # and once more, in place
    qtbot.waitUntil(lambda: texts(tab) == ["Vegan."], timeout=2_000)


def test_a_line_changed_by_hand_meanwhile_is_left_as_it_is(qtbot, tab):
    seed(tab)
    qtbot.waitUntil(lambda: len(tab.rows) == 5, timeout=5_000)
    row = shown(tab, "Allergic to peanuts.")
    engram = engram_of(tab)
    path = engram.profiles.path(engram.user)
    path.write_text(path.read_text(encoding="utf-8").replace("Allergic to peanuts.", "Allergic to shellfish."),
                    encoding="utf-8")
    tab.remove(row.line.id, "Allergic to peanuts.")        # as if ✕ was clicked before the list caught up
    qtbot.waitUntil(lambda: tab.problem.isVisible(), timeout=5_000)
    assert "changed in the file meanwhile" in tab.problem.text()
    assert "Allergic to shellfish." in file_lines(tab)["health"]
    qtbot.waitUntil(lambda: "Allergic to shellfish." in texts(tab), timeout=5_000)


def test_a_file_that_cannot_be_read_says_so(qtbot, tab):
    engram = engram_of(tab)
    path = engram.profiles.path(engram.user)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"# About me\n\n- caf\xe9\n")          # not UTF-8
    tab.refresh()
    qtbot.waitUntil(lambda: tab.unreadable.isVisible(), timeout=5_000)
    assert "cannot be read" in tab.unreadable.text() and "not UTF-8" in tab.unreadable.text()
    path.write_text("# About me\n\n- café\n", encoding="utf-8")
    qtbot.waitUntil(lambda: texts(tab) == ["café"], timeout=2_000)
    assert not tab.unreadable.isVisible()


def test_open_file_makes_it_and_without_an_opener_shows_the_path_to_copy(qtbot, tab, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or False)
    tab.open_button.click()
    qtbot.waitUntil(lambda: tab.file_notice.isVisible(), timeout=5_000)
    engram = engram_of(tab)
    path = engram.profiles.path(engram.user)
    assert opened == [QUrl.fromLocalFile(str(path))]
    assert path.read_text(encoding="utf-8").startswith("# About me")
    assert str(path) in tab.file_notice.text()
    [copy] = tab.file_notice.buttons
    copy.click()
    assert QGuiApplication.clipboard().text() == str(path)

    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    tab.open_button.click()
    qtbot.waitUntil(lambda: len(opened) == 2, timeout=5_000)
    assert not tab.file_notice.isVisible()


def test_undo_of_a_line_that_replaced_another_brings_the_older_one_back(qtbot, tab):
    from engram.ui.profile_noted import NotedNotice

    engram = engram_of(tab)
    engram.profiles.note(engram.user, ProfileLine("Lives in Paris.", "identity", slot="home", by="rules"))
    change = engram.profiles.note(engram.user, ProfileLine("Lives in Lyon.", "identity", slot="home", by="rules"))
    assert file_lines(tab) == {"identity": ["Lives in Lyon."], "earlier": ["Lives in Paris."]}
    notice = NotedNotice(tab, [change])
    qtbot.addWidget(notice)
    assert notice.text() == "Noted: Lives in Lyon. (instead of: Lives in Paris.)"
    notice.rows[0].buttons["Undo"].click()
    qtbot.waitUntil(lambda: notice.rows[0].state == "undone", timeout=5_000)
    assert file_lines(tab) == {"identity": ["Lives in Paris."]}
    qtbot.waitUntil(lambda: texts(tab) == ["Lives in Paris."], timeout=5_000)
