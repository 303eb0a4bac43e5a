"""The memory CLI end to end, in a subprocess-free way (main(argv)), with the real embedding model."""

import json

import pytest

from engram.cli import main

pytestmark = pytest.mark.real_model


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_add_search_list_forget_history(capsys, tmp_path):
    d = str(tmp_path / "d")
    code, out, _ = run(capsys, "memory", "add", "--data-dir", d, "--user", "ann", "--session", "s1",
                       "--json", "I am allergic to peanuts")
    assert code == 0
    added = lines(out)[0]
    assert added["user"] == "ann" and added["session"] == "s1" and added["kind"] == "fact"
    run(capsys, "memory", "add", "--data-dir", d, "--user", "ann", "--session", "s2", "The bus is late again")

    code, out, _ = run(capsys, "memory", "search", "--data-dir", d, "--user", "ann", "--json", "-k", "3",
                       "which foods should I avoid?")
    found = lines(out)
    assert code == 0 and found[0]["id"] == added["id"]
    assert {"id", "text", "kind", "score", "created_at", "user", "session", "agent", "application"} <= found[0].keys()

    code, out, _ = run(capsys, "memory", "search", "--data-dir", d, "--user", "bob", "--json", "peanuts")
    assert code == 0 and lines(out) == []

    code, out, _ = run(capsys, "memory", "list", "--data-dir", d, "--user", "ann", "--json")
    assert len(lines(out)) == 2

    code, _, err = run(capsys, "memory", "forget", "--data-dir", d, "--user", "bob", str(added["id"]))
    assert code == 2 and "no memory" in err  # bob cannot forget ann's memory
    code, out, _ = run(capsys, "memory", "forget", "--data-dir", d, "--user", "ann", str(added["id"]))
    assert code == 0
    code, out, _ = run(capsys, "memory", "history", "--data-dir", d, "--user", "ann", str(added["id"]))
    assert "delete" in out and "peanuts" not in out


@pytest.mark.parametrize("argv, message", [
    (["memory", "add", "   "], "empty"),
    (["memory", "add", "x" * 20000], "limit"),
    (["memory", "add", "--kind", "gossip", "hello"], "unknown memory kind"),
])
def test_bad_input_is_refused_and_changes_nothing(capsys, tmp_path, argv, message):
    d = str(tmp_path / "d")
    code, _, err = run(capsys, *argv, "--data-dir", d)
    assert code == 2 and message in err
    run(capsys, "memory", "list", "--data-dir", d)
    code, out, _ = run(capsys, "memory", "list", "--data-dir", d, "--json")
    assert lines(out) == []


def test_data_dir_that_is_not_writable(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, _, err = run(capsys, "memory", "list", "--data-dir", str(blocker / "sub"))
    assert code == 2 and "fix:" in err


def test_database_that_is_not_sqlite_is_never_overwritten(capsys, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "engram.db").write_text("not a database")
    code, _, err = run(capsys, "memory", "add", "--data-dir", str(d), "hello")
    assert code == 2 and "not an Engram database" in err
    assert (d / "engram.db").read_text() == "not a database"


def test_missing_embedding_model_is_reported_by_doctor_and_memory_works_by_words(capsys, tmp_path, monkeypatch):
    code, _, _ = run(capsys, "memory", "add", "--data-dir", str(tmp_path / "d"), "remember the milk")
    assert code == 0
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"embedding_model": str(tmp_path / "missing.gguf")}))
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(config))
    code, out, _ = run(capsys, "doctor", "--data-dir", str(tmp_path / "d"))
    assert code == 1 and "FAIL] embedding model" in out and "words only" in out and "fix:" in out
    code, _, err = run(capsys, "memory", "add", "--data-dir", str(tmp_path / "d"), "hello from a words-only day")
    assert code == 0 and "missing.gguf does not exist" in err and "words only" in err and "fix:" in err
    code, out, _ = run(capsys, "memory", "search", "--data-dir", str(tmp_path / "d"), "words-only day")
    assert code == 0 and "hello from a words-only day" in out and "note: no embedding model" in out
    # Reading and forgetting need no model: they still work, and say nothing about it.
    code, out, err = run(capsys, "memory", "list", "--data-dir", str(tmp_path / "d"), "--json")
    memory_id = json.loads(out.splitlines()[-1])["id"]
    assert code == 0 and "remember the milk" in out and err == ""
    code, out, _ = run(capsys, "memory", "history", "--data-dir", str(tmp_path / "d"), str(memory_id))
    assert code == 0 and "remember the milk" in out
    code, out, _ = run(capsys, "memory", "forget", "--data-dir", str(tmp_path / "d"), str(memory_id))
    assert code == 0 and f"forgot #{memory_id}" in out
    code, out, _ = run(capsys, "memory", "list", "--data-dir", str(tmp_path / "d"))
    assert code == 0 and "remember the milk" not in out
    from engram.core import app

    def load(*_, **__):
        raise AssertionError("the embedding model was loaded")

    monkeypatch.setattr(app, "GGUFEmbedder", load)
    for argv in (("sessions", "list"), ("prefs", "show")):   # they never load the model either
        code, _, err = run(capsys, *argv, "--data-dir", str(tmp_path / "d"))
        assert code == 0 and err == ""


def test_doctor_all_good(capsys, tmp_path):
    code, out, _ = run(capsys, "doctor", "--data-dir", str(tmp_path / "d"))
    assert "[ok  ] embedding model" in out and "384 dimensions" in out
    assert "[ok  ] word search" in out and "sqlite-vec v0.1.9" in out
