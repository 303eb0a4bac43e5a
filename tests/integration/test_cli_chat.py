"""``engram ask``, ``engram sessions`` and ``engram prefs`` end to end (main(argv)), real models."""

from __future__ import annotations

import json

import pytest

from engram.cli import main

pytestmark = pytest.mark.real_model


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_json_carries_the_reply_the_session_and_what_was_recalled(capsys):
    # Session one's words reach long-term memory as its archive would store them; one real turn follows.
    code, out, _ = run(capsys, "memory", "add", "--user", "U", "--session", "one", "--kind", "message", "--json",
                       "I am allergic to peanuts")
    remembered = json.loads(out)
    code, out, _ = run(capsys, "ask", "--user", "U", "--session", "two", "--json", "--max-tokens", "8",
                       "Recommend me a snack")
    second = json.loads(out)
    assert code == 0 and second["session_id"] == "two" and second["status"] == "complete"
    assert remembered["id"] in second["recalled_ids"]
    assert isinstance(second["reply"], str) and second["reply_message_id"] == second["turn"]["reply_message_id"]
    assert "I am allergic to peanuts" in [m["text"] for m in second["turn"]["recalled"]]
    assert set(second["recalled_ids"]) == {m["id"] for m in second["turn"]["recalled"]}
    assert "I am allergic to peanuts" in second["turn"]["messages"][-1]["content"]

    code, out, _ = run(capsys, "sessions", "show", "two", "--user", "U")
    assert out.startswith(f"#{second['user_message_id']} user: Recommend me a snack")


def test_a_broken_chat_model_path_is_a_clear_error_and_memory_keeps_working(capsys, isolated_dirs, tmp_path):
    bad = tmp_path / "not-a-model.gguf"
    bad.write_text("hello")
    (isolated_dirs / "config").mkdir(exist_ok=True)
    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"chat_model": str(bad)}))

    code, _, err = run(capsys, "ask", "--user", "U", "--session", "s", "my locker is number 12")
    assert code == 2 and "is not a GGUF model file" in err and "fix:" in err

    code, out, _ = run(capsys, "memory", "search", "--user", "U", "--json", "locker number")
    assert code == 0 and json.loads(out.splitlines()[0])["text"] == "my locker is number 12"
    code, out, _ = run(capsys, "sessions", "show", "s", "--user", "U")
    assert "user: my locker is number 12" in out

    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"chat_model": str(tmp_path / "gone.gguf")}))
    code, _, err = run(capsys, "ask", "--user", "U", "--session", "s", "again")
    assert code == 2 and "does not exist" in err


def test_ask_with_a_broken_embedding_model_answers_and_recalls_by_words(capsys, isolated_dirs, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    (isolated_dirs / "config").mkdir(exist_ok=True)
    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"embedding_model": str(broken)}))

    code, _, err = run(capsys, "ask", "--user", "U", "--session", "s", "--max-tokens", "4", "my locker is number 12")
    assert code == 0 and "warning:" in err and "broken.gguf" in err and "words only" in err
    code, out, err = run(capsys, "ask", "--user", "U", "--session", "t", "--json", "--max-tokens", "4",
                         "which locker number is mine?")
    assert code == 0 and "words only" in err
    assert "my locker is number 12" in [m["text"] for m in json.loads(out)["turn"]["recalled"]]


def test_sessions_rename_export_delete_and_prefs(capsys, tmp_path):
    from engram.core.app import Engram

    engram = Engram()
    engram.sessions.get_or_create("s", "U", title="Trip planning")
    engram.sessions.add_message("s", "user", "Book the train")
    engram.close()

    code, out, _ = run(capsys, "sessions", "rename", "s", "Alps trip", "--user", "U")
    assert code == 0 and "Alps trip" in out
    target = tmp_path / "s.md"
    run(capsys, "sessions", "export", "s", "--user", "U", "--output", str(target))
    assert target.read_text().startswith("# Alps trip") and "Book the train" in target.read_text()
    code, out, _ = run(capsys, "sessions", "export", "s", "--user", "U", "--format", "json")
    assert json.loads(out)["messages"][0]["content"] == "Book the train"
    code, _, err = run(capsys, "sessions", "delete", "s", "--user", "V")
    assert code == 2 and "no session" in err
    code, out, _ = run(capsys, "sessions", "delete", "s", "--user", "U")
    assert code == 0 and "1 messages" in out
    code, out, _ = run(capsys, "sessions", "list", "--user", "U")
    assert out == ""

    code, out, _ = run(capsys, "prefs", "set", "--user", "U", "language", "中文")
    assert code == 0 and "language: 中文" in out
    code, _, err = run(capsys, "prefs", "set", "--user", "U", "detail", "endless")
    assert code == 2 and "detail must be one of" in err
    code, out, _ = run(capsys, "prefs", "show", "--user", "U", "--json")
    assert json.loads(out) == {"language": "中文"}


def test_a_chats_own_settings_set_from_the_terminal_shape_the_next_real_turn(capsys, tmp_path):
    assert run(capsys, "ask", "--user", "U", "--session", "s", "--max-tokens", "4", "hello")[0] == 0
    broken = tmp_path / "half-downloaded.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    code, _, _ = run(capsys, "sessions", "set", "s", "--user", "U", "--memory", "off", "--model", str(broken),
                     "--instructions", "Answer in one word.")
    assert code == 0
    code, _, err = run(capsys, "ask", "--user", "U", "--session", "s", "--max-tokens", "4", "my pin is 4321")
    assert code == 2 and str(broken.resolve()) in err, "the chat's own model answers it, not the Settings one"
    assert run(capsys, "ask", "--user", "U", "--session", "other", "--max-tokens", "4", "hi")[0] == 0

    assert run(capsys, "sessions", "set", "s", "--user", "U", "--default-model")[0] == 0
    code, out, _ = run(capsys, "ask", "--user", "U", "--session", "s", "--json", "--max-tokens", "4", "again")
    turn = json.loads(out)["turn"]
    assert code == 0 and "Answer in one word." in turn["messages"][0]["content"]
    assert turn["recall"]["chat"]["memory"] is False and turn["recalled"] == []
    code, out, _ = run(capsys, "memory", "list", "--user", "U", "--json")
    kept = [json.loads(line)["text"] for line in out.splitlines()]
    assert code == 0 and "hi" in kept and "hello" in kept, "the other chat, and this one before memory went off"
    assert not any("4321" in text or text == "again" for text in kept), "nothing said with memory off is kept"
