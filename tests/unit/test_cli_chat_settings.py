"""``engram sessions settings|set``: a chat's own settings from a terminal, stored by the very
operation the window uses, so that the next turn (in the window or ``engram ask``) follows them."""

from __future__ import annotations

import io
import json

import pytest

from engram.cli import main
from engram.core.models.demo import demo_model_path

pytestmark = pytest.mark.both_backends


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def shown(capsys, session: str = "s", user: str = "u") -> dict:
    code, out, err = run(capsys, "sessions", "settings", session, "--user", user, "--json")
    assert code == 0, err
    return json.loads(out)


def gguf(path):
    """A file that passes for a GGUF model (its magic); nothing here loads it."""
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def test_set_changes_only_what_is_given_and_the_next_turn_follows(make_engram, capsys, tmp_path):
    engram = make_engram()
    engram.sessions.get_or_create("s", "u")
    code, out, _ = run(capsys, "sessions", "settings", "s", "--user", "u")
    assert code == 0 and out.splitlines() == ["memory: on", "instructions: (none)", "model: the model of Settings"]

    model = gguf(tmp_path / "my model.gguf").resolve()
    code, out, _ = run(capsys, "sessions", "set", "s", "--user", "u", "--memory", "off",
                       "--instructions", "  Answer like a pirate.\nUse metric units.  ", "--model", str(model))
    assert code == 0
    assert out.splitlines() == ["memory: off (its messages are saved; nothing is kept in memory or recalled)",
                                "instructions:", "  Answer like a pirate.", "  Use metric units.",
                                f"model: {model}"]
    assert shown(capsys) == {"session": "s", "memory": False, "model": str(model),
                             "instructions": "Answer like a pirate.\nUse metric units."}

    assert run(capsys, "sessions", "set", "s", "--user", "u", "--default-model", "--json")[0] == 0
    assert shown(capsys)["model"] == "" and shown(capsys)["instructions"].startswith("Answer like a pirate")
    result = engram.turn_engine.send("s", "hello")      # the window's turn reads what the command stored
    assert "Answer like a pirate." in engram.chat_model().calls[-1][0]["content"]
    assert result.record.recall["chat"]["memory"] is False

    assert run(capsys, "sessions", "set", "s", "--user", "u", "--memory", "on", "--no-instructions")[0] == 0
    assert shown(capsys) == {"session": "s", "memory": True, "instructions": "", "model": ""}


def test_instructions_from_a_file_or_stdin_and_what_is_refused_changes_nothing(make_engram, capsys, tmp_path,
                                                                              monkeypatch):
    make_engram().sessions.get_or_create("s", "u")
    told = tmp_path / "told.md"
    told.write_text("Réponds en français.\n", encoding="utf-8")
    assert run(capsys, "sessions", "set", "s", "--user", "u", "--instructions-file", str(told))[0] == 0
    assert shown(capsys)["instructions"] == "Réponds en français."

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("From stdin.".encode())))
    assert run(capsys, "sessions", "set", "s", "--user", "u", "--instructions-file", "-")[0] == 0
    assert shown(capsys)["instructions"] == "From stdin."

    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Réponds".encode("latin-1"))
    too_long = tmp_path / "long.txt"
    too_long.write_text("x" * 4001)
    for argv, said in ((["--instructions-file", str(latin1)], "is not valid UTF-8 text (at byte 1)"),
                       (["--instructions-file", str(tmp_path / "missing.txt")], "there is no file"),
                       (["--instructions-file", str(too_long)], "4001 characters long; the limit is 4000"),
                       (["--instructions-file", str(tmp_path)], "Is a directory"),
                       (["--instructions-file", "~nobody-here-at-all/told.md"], "cannot read ~nobody-here-at-all"),
                       (["--instructions", "y" * 5000, "--memory", "off"], "the limit is 4000"),
                       ([], "nothing to change")):
        code, _, err = run(capsys, "sessions", "set", "s", "--user", "u", *argv)
        assert code == 2 and said in err, err
    assert shown(capsys) == {"session": "s", "memory": True, "instructions": "From stdin.", "model": ""}


def test_another_users_chat_reads_exactly_like_one_that_does_not_exist(make_engram, capsys):
    make_engram().sessions.get_or_create("mine", "ann")
    said = {}
    for session in ("mine", "nobodys"):
        for argv in (["settings", session], ["set", session, "--memory", "off"]):
            code, out, err = run(capsys, "sessions", *argv, "--user", "bob")
            assert code == 2 and out == ""
            said[(session, argv[0])] = err.replace(session, "S")
    assert said[("mine", "settings")] == said[("nobodys", "settings")] == said[("mine", "set")]
    assert "there is no session 'S' for user 'bob'" in said[("mine", "set")]
    assert shown(capsys, "mine", "ann")["memory"] is True


def test_a_model_is_a_gguf_file_or_the_name_of_a_chat_model_here(make_engram, capsys, tmp_path):
    make_engram().sessions.get_or_create("s", "u")
    (tmp_path / "notes.txt").write_text("not a model")
    refused = [(str(tmp_path / "gone.gguf"), f"there is no model file {tmp_path / 'gone.gguf'}"),
               (str(tmp_path / "notes.txt"), "is not a GGUF model file"),
               ("qwen3-4b", "qwen3-4b is not on this machine yet"),
               ("all-minilm-l6-v2", "all-minilm-l6-v2 is a model of kind embedding, not a chat model"),
               ("no-such-model", "there is no model file 'no-such-model' and no chat model named so"),
               ("~nobody-here-at-all/x.gguf", "there is no model file ~nobody-here-at-all/x.gguf"),
               ("a\x00b", "there is no model file 'a\\x00b'")]
    for name, said in refused:
        code, _, err = run(capsys, "sessions", "set", "s", "--user", "u", "--model", name, "--memory", "off")
        assert code == 2 and said in err, err
    assert shown(capsys) == {"session": "s", "memory": True, "instructions": "", "model": ""}

    assert run(capsys, "sessions", "set", "s", "--user", "u", "--model", "demo")[0] == 0
    assert shown(capsys)["model"] == str(demo_model_path().resolve())
    assert run(capsys, "sessions", "set", "s", "--user", "u", "--model", "SmolLM2 135M Instruct")[0] == 0
    assert shown(capsys)["model"] == str(demo_model_path().resolve())

    gguf(tmp_path / "own.gguf")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert run(capsys, "sessions", "set", "s", "--user", "u", "--model", "own.gguf")[0] == 0
    assert shown(capsys)["model"] == str((tmp_path / "own.gguf").resolve()), "kept as an absolute path"
    (tmp_path / "own.gguf").unlink()
    code, out, _ = run(capsys, "sessions", "settings", "s", "--user", "u")
    assert code == 0 and "(not on this computer" in out


def test_a_chats_export_carries_its_settings(make_engram, capsys):
    engram = make_engram()
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "hello")
    engram.turn_engine.chat_settings.set("s", memory=False, instructions='Say "ahoy".')
    code, out, _ = run(capsys, "sessions", "export", "s", "--user", "u")
    assert code == 0 and '- memory: off\n- instructions: "Say \\"ahoy\\"."\n' in out
    code, out, _ = run(capsys, "sessions", "export", "s", "--user", "u", "--format", "json")
    assert json.loads(out)["settings"] == {"memory": False, "instructions": 'Say "ahoy".', "model": ""}
