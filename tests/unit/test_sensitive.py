"""Sensitive details: each detector finds what checks out and leaves what does not; masking before
storing (setting sensitive_details: mask); never in logs or error messages."""

import logging

import pytest

from engram.cli import main
from engram.core.memory import sensitive
from engram.core.memory.scope import Scope
from engram.core.memory.sensitive import CARD, EMAIL, IBAN, PASSPORT, PHONE, RESIDENT_ID


@pytest.mark.parametrize("text, kind, found", [
    ("write to ann.lee+trips@example.co.uk today", EMAIL, "ann.lee+trips@example.co.uk"),
    ("我的手机是13812345678", PHONE, "13812345678"),
    ("call +86 138 1234 5678 please", PHONE, "+86 138 1234 5678"),
    ("office 010-62345678", PHONE, "010-62345678"),
    ("US office +1 650-253-0000.", PHONE, "+1 650-253-0000"),
    ("London +44 20 7946 0958", PHONE, "+44 20 7946 0958"),
    ("身份证 11010519491231002X 号", RESIDENT_ID, "11010519491231002X"),
    ("card 4111 1111 1111 1111 exp 2031", CARD, "4111 1111 1111 1111"),
    ("card 5500-0000-0000-0004", CARD, "5500-0000-0000-0004"),
    ("卡号4111111111111111谢谢", CARD, "4111111111111111"),
    ("IBAN GB82 WEST 1234 5698 7654 32 OK", IBAN, "GB82 WEST 1234 5698 7654 32"),
    ("IBAN DE89370400440532013000", IBAN, "DE89370400440532013000"),
    ("My passport number is ZX9931457Q", PASSPORT, "ZX9931457Q"),
    ("护照 E12345678", PASSPORT, "E12345678"),
])
def test_each_detector_finds_what_checks_out(text, kind, found):
    assert [(d.kind, d.text) for d in sensitive.find(text)] == [(kind, found)]


@pytest.mark.parametrize("text", [
    "no address: ann@localhost or @example.com",
    "a short number 12345 and a year 2031",
    "+86 138 1234",                                  # too short for a Chinese mobile
    "身份证 110105194912310021",                       # wrong check digit (should be X)
    "card 4111 1111 1111 1112",                      # fails Luhn
    "state 895548b4111111111111111ae6a9e.kvstate",   # digits inside a hex name (a file's hash), not a card
    "IBAN GB82 WEST 1234 5698 7654 33",              # wrong check digits
    "codes A12345 and ABC1234567 and zx9931457q",    # not passport-shaped (too short, three letters, lower case)
])
def test_what_does_not_check_out_is_not_reported(text):
    assert sensitive.find(text) == []


def test_mask_replaces_each_with_its_label():
    text = "mail ann@example.com, phone 13812345678, passport ZX9931457Q"
    assert sensitive.mask(text) == "mail [e-mail address], phone [phone number], passport [passport-like number]"
    assert sensitive.kinds(text) == [EMAIL, PASSPORT, PHONE]


def test_masked_before_storing_when_the_person_chose_it(make_engram):
    engram = make_engram(sensitive_details="mask")
    engram.apply_settings({"sensitive_details"})
    memory = engram.store.add("my card is 4111 1111 1111 1111", Scope(user="ann"))
    assert memory.text == "my card is [card number]"
    engram.sessions.get_or_create("s", "ann", title="passport ZX9931457Q")
    engram.turn_engine.send("s", "passport ZX9931457Q, mail ann@example.com")
    stored = engram.db.query("SELECT content FROM messages") + engram.db.query("SELECT title, folder FROM sessions")
    assert "ZX9931457Q" not in repr(stored).upper() and "ann@example.com" not in repr(stored)
    assert "ZX9931457Q" not in engram.turns.for_session("s")[0].messages[-1]["content"]
    engram.turn_engine.chat_settings.set("s", instructions="Mail replies to ann@example.com")
    assert engram.turn_engine.chat_settings.get("s").instructions == "Mail replies to [e-mail address]"


def test_kept_as_said_by_default(make_engram):
    engram = make_engram()
    assert engram.settings.sensitive_details == "keep"
    assert engram.store.add("passport ZX9931457Q", Scope(user="ann")).text == "passport ZX9931457Q"


def test_an_unknown_choice_is_ignored_and_said(tmp_path):
    from engram.core.settings import Settings
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.json").write_text('{"sensitive_details": "hide"}')
    settings = Settings.load(tmp_path / "config")
    assert settings.sensitive_details == "keep" and "sensitive_details" in settings.problem


def test_never_in_logs(caplog):
    sensitive.hide_in_logs()
    log = logging.getLogger("engram.core.somewhere")
    with caplog.at_level(logging.INFO):
        log.info("indexing %s failed", "notes for ann@example.com")
        try:
            raise ValueError("card 4111 1111 1111 1111 refused")
        except ValueError:
            log.exception("job failed")
    assert "ann@example.com" not in caplog.text and "4111 1111 1111 1111" not in caplog.text
    assert "[e-mail address]" in caplog.text and "[card number]" in caplog.text


def test_never_in_error_messages(capsys):
    code = main(["memory", "add", "--kind", "secret", "card 4111 1111 1111 1111"])
    _, err = capsys.readouterr()
    assert code == 2 and "unknown memory kind" in err
    code = main(["sessions", "show", "ann@example.com"])
    _, err = capsys.readouterr()
    assert code == 2 and "ann@example.com" not in err and "[e-mail address]" in err
