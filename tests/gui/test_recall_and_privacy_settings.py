"""Settings for when memory is searched (recall mode, trigger words), tools and sensitive details;
why recall ran or not in the Context tab; errors masked as the person chose; the places of
"Forget everywhere…" named in words the window can translate."""

from __future__ import annotations

import json
import string

import pytest

from engram.core import forget
from engram.core.errors import InvalidInput
from engram.core.conversation.turn_records import TurnRecord
from engram.ui.context_tab import ContextTab
from engram.ui.forget_dialog import PLACE_NAMES, WHERE, forget_box

PHONE = "13812345678"


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_place_forget_finds_has_a_translatable_name():
    assert set(PLACE_NAMES) == set(forget.PLACES)
    assert set(WHERE) == set(forget.WHERE)
    for form, template in forget.WHERE.items():
        assert fields(WHERE[form]) == fields(template), form


def test_the_question_lists_the_places_in_the_windows_words(qtbot):
    places = [forget.Place("message", {"session": "s-1", "message": 12}, (12,)),
              forget.Place("memory", {"memory": 3, "kind": "fact"}, (3,)),
              forget.Place("trash file", {"name": "notes.md"}, ("/t/notes.md",), persons_file=True,
                           form="trash file name")]
    box = forget_box(None, "my passport", places, lambda session: {"s-1": "“Trip” (3 Dec 2026)"}[session])
    qtbot.addWidget(box)
    assert box.detailedText().splitlines() == ["message: chat “Trip” (3 Dec 2026), message #12",
                                               "memory: memory #3 (fact)", "trash file: trash: file name notes.md"]
    assert [place.where for place in places] == ["chat s-1, message #12", "memory #3 (fact)",
                                                 "trash: file name notes.md"]     # the CLI's words, as before
    assert box.checkBox() is not None and "(1;" in box.checkBox().text()


def record_with(recall: dict) -> TurnRecord:
    return TurnRecord("s", 1, 2, [{"role": "user", "content": "hi"}], recall=recall)


@pytest.mark.parametrize("recall, words", [
    ({"mode": "triggered", "searched": False, "triggers": [], "about_person": False},
     "Not searched: no trigger word, and not a question about you (memory search: only when you ask about the past)"),
    ({"mode": "triggered", "searched": True, "triggers": ["remember", "上次"], "about_person": True, "widened": True,
      "max_results": 5, "threshold": 0.05},
     "wider because your message asks about the past (it says remember, 上次; it is a question about you"),
    ({"mode": "before_call", "searched": True, "triggers": [], "about_person": False, "widened": False,
      "max_results": 3, "threshold": 0.1},
     "Searched before the reply (memory search: before every reply): up to 3 memories from similarity 0.1."),
    ({"mode": "on_demand", "searched": False}, "Searched only when the model asks"),
])
def test_the_context_tab_says_why_memory_was_searched_or_not(qtbot, recall, words):
    tab = ContextTab()
    qtbot.addWidget(tab)
    tab.show_record(record_with(recall))
    assert words in tab.text()
    assert ("nothing from earlier chats was relevant" in tab.text()) is recall["searched"]
    tab.show_record(record_with({}))                  # a record from before the reason was kept
    assert "Not searched" not in tab.text() and "nothing from earlier chats was relevant" in tab.text()


@pytest.mark.parametrize("choice, shown", [("mask", "[phone number]"), ("keep", PHONE)])
def test_errors_reach_the_window_masked_when_the_person_chose_so(qtbot, make_engram, choice, shown):
    from engram.ui.backend import Backend

    backend = Backend()
    backend.engram = make_engram(sensitive_details=choice)
    errors = []

    def fail(engram):
        raise InvalidInput(f"cannot store {PHONE}", hint=f"call {PHONE}")

    backend.disk(fail, errored=errors.append)
    qtbot.waitUntil(lambda: bool(errors))
    assert isinstance(errors[0], InvalidInput)
    assert errors[0].args[0] == f"cannot store {shown}" and errors[0].hint == f"call {shown}"
    assert backend.masked(f"job failed on {PHONE}") == f"job failed on {shown}"
    backend.engram = None


@pytest.mark.real_model
def test_recall_mode_trigger_words_tools_and_sensitive_details_are_set_in_settings(qtbot, open_window, send,
                                                                                   isolated_dirs):
    window = open_window()
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog.triggers.words()[1][:2] == ["之前", "那个"]
    dialog.search_time.setCurrentIndex(dialog.search_time.findData("on_demand"))
    assert not dialog.triggers.isEnabled()                  # on_demand never looks at them
    dialog.search_time.setCurrentIndex(dialog.search_time.findData("triggered"))
    assert dialog.triggers.isEnabled()
    dialog.triggers.english.setText("back then,  remember ; Way Back")
    dialog.triggers.chinese.setText("上次，以前、當時")
    dialog.tools.setCurrentIndex(dialog.tools.findData("off"))
    dialog.sensitive.setCurrentIndex(dialog.sensitive.findData("mask"))
    dialog.save()
    qtbot.waitUntil(lambda: "Saved" in dialog.notice.text(), timeout=10_000)
    engram = window.backend.engram
    saved = json.loads((isolated_dirs / "config" / "settings.json").read_text())
    assert saved["recall_mode"] == "triggered" and saved["chat_tools"] == "off"
    assert saved["recall_triggers_en"] == ["back then", "remember", "Way Back"]
    assert saved["recall_triggers_zh"] == ["上次", "以前", "當時"] and saved["sensitive_details"] == "mask"
    assert engram.memory_options.recall_mode == "triggered" and not engram.memory_options.tools
    assert engram.sessions.clean is not None                 # masked from now on, without a restart

    send(window, f"Hello, my number is {PHONE}")
    assert f"{PHONE}" not in engram.sessions.messages(window.session.id)[0].content
    record = engram.turns.for_session(window.session.id)[-1]
    assert record.recall["searched"] is False
    send(window, "What did we do back then, WAY back?")
    record = engram.turns.for_session(window.session.id)[-1]
    assert record.recall["searched"] and record.recall["triggers"] == ["back then", "way back"]
    window.close()

    again = open_window()
    again.open_settings()
    dialog = again.settings_dialog
    assert dialog.search_time.currentData() == "triggered" and dialog.tools.currentData() == "off"
    assert dialog.triggers.words() == (["back then", "remember", "Way Back"], ["上次", "以前", "當時"])
    assert dialog.sensitive.currentData() == "mask"
