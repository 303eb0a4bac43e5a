"""The export of everything a person has: one JSON file or a folder of markdown, written whole or
not at all."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chat_exports import three_conversations, write_chatgpt_zip
from engram.core.errors import InvalidInput
from engram.core.porting import importer
from engram.core.porting.export import FORMAT, VERSION, export
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.both_backends

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"


def filled(make_engram, tmp_path):
    """alice: three imported chats (archived), a note taken from one message and then corrected,
    a preference and a file in a chat's folder; bob: one chat of his own."""
    engram = make_engram()
    importer.import_file(engram, "chatgpt", write_chatgpt_zip(tmp_path / "e.zip", three_conversations()), "alice")
    importer.import_file(engram, "chatgpt", write_chatgpt_zip(tmp_path / "b.zip", three_conversations()[:1]), "bob")
    engram.outbox.run_due()
    snack = next(s for s in engram.sessions.list("alice") if s.title == "Snack ideas")
    first = engram.sessions.messages(snack.id)[0]
    note = engram.store.add("alice is allergic to nuts", Scope(user="alice", session=snack.id), Kind.FACT,
                            actor="model", source_ids=(first.id,), source={"by": "distill"})
    engram.store.update(note.id, text="alice is allergic to peanuts", actor="user")
    engram.preferences.set("alice", "language", "English")
    engram.files.write(snack.folder, "packing.md", "# Packing\n\nNo peanuts.\n", description="what to pack")
    return engram, snack, note


def test_json_export_holds_sessions_memories_with_history_and_preferences(make_engram, tmp_path):
    engram, snack, note = filled(make_engram, tmp_path)
    done = export(engram, "alice", "json", tmp_path / "out" / "alice.json")
    data = json.loads((tmp_path / "out" / "alice.json").read_text())
    assert (data["format"], data["version"], data["user"]) == (FORMAT, VERSION, "alice")
    assert data["preferences"] == {"language": "English"}
    assert [s["title"] for s in data["sessions"]] == ["Snack ideas", "Bike repair", "Birdwatching"]
    exported = data["sessions"][0]
    assert exported["import_key"] == "chatgpt:c-peanut" and exported["id"] == snack.id
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant"]
    assert exported["files"] == [{"name": "packing.md", "text": engram.files.folder(snack.folder).read_bytes(
        "packing.md").decode()}]
    by_id = {m["id"]: m for m in data["memories"]}
    assert by_id[note.id]["text"] == "alice is allergic to peanuts"
    assert by_id[note.id]["source_ids"] == [engram.sessions.messages(snack.id)[0].id]
    assert [(h["action"], h["actor"], h["new_text"]) for h in by_id[note.id]["history"]] == [
        ("add", "model", "alice is allergic to nuts"), ("update", "user", "alice is allergic to peanuts")]
    assert {m["user"] for m in data["memories"]} == {"alice"}                # bob's stay out
    assert (done.sessions, done.messages, done.memories) == (3, 7, len(data["memories"]))
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["alice.json"]  # no temporary file left


def test_markdown_export_is_a_folder_that_imports_back(make_engram, tmp_path):
    engram, snack, note = filled(make_engram, tmp_path)
    out = tmp_path / "alice-md"
    export(engram, "alice", "md", out)
    assert sorted(p.name for p in (out / "sessions").iterdir()) == sorted(
        f"{s.folder}.md" for s in engram.sessions.list("alice"))
    assert (out / "files" / snack.folder / "packing.md").read_text().endswith("No peanuts.\n")
    memories = (out / "memories.md").read_text()
    assert '- language: "English"' in memories and "## Facts (1)" in memories
    assert f"### #{note.id}" in memories and 'update by user: "alice is allergic to nuts" → ' in memories
    assert 'chat "Snack ideas"' in memories

    # The chats come back, with their messages and times, through the markdown import.
    other = make_engram()
    report = importer.import_file(other, "markdown", out / "sessions", "carol")
    assert len(report.imported) == 3
    back = {s.title: [(m.role, m.content, m.created_at) for m in other.sessions.messages(s.id)]
            for s in other.sessions.list("carol")}
    assert back["Snack ideas"] == [(m.role, m.content, m.created_at) for m in engram.sessions.messages(snack.id)]


def test_export_never_overwrites_a_folder_and_refuses_unknown_formats(make_engram, tmp_path):
    engram, *_ = filled(make_engram, tmp_path)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep me")
    with pytest.raises(InvalidInput, match="not an empty folder"):
        export(engram, "alice", "md", busy)
    assert [p.name for p in busy.iterdir()] == ["mine.txt"]
    with pytest.raises(InvalidInput, match="is a folder"):
        export(engram, "alice", "json", busy)
    with pytest.raises(InvalidInput, match="unknown export format"):
        export(engram, "alice", "csv", tmp_path / "x.csv")
    empty = tmp_path / "empty"
    empty.mkdir()
    export(engram, "alice", "md", empty)                      # an empty folder made for it is fine
    assert (empty / "memories.md").is_file()


@pytest.mark.sqlite_only          # sizes the limit by the database file in the data folder
@pytest.mark.parametrize("fmt", ["json", "md"])
def test_a_disk_that_fills_up_leaves_no_half_export(make_engram, tmp_path, fmt):
    """The export runs in a process whose files may not grow past the database's size and a bit
    (``ulimit -f``: the kernel refuses the write, as a full disk does) while a chat's folder holds
    a 3 MB file: a clear error, and nothing at the target."""
    engram, snack, _ = filled(make_engram, tmp_path)
    engram.close()
    folder = engram.data_dir / "sessions" / snack.folder
    (folder / "big.md").write_text("# Big\n\n" + "lorem ipsum " * 250_000)     # put there by hand, not indexed
    largest = max(p.stat().st_size for p in engram.data_dir.iterdir() if p.is_file())
    target = tmp_path / "out" / ("all.json" if fmt == "json" else "all")
    (tmp_path / "out").mkdir()
    script = (f"ulimit -f {largest // 1024 + 256}; exec {sys.executable} -m engram export --format {fmt}"
              f" --output {target} --user alice")
    env = {**os.environ, "PYTHONPATH": str(DESKTOP)}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "nothing was written" in done.stderr and "Traceback" not in done.stderr
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.sqlite_only          # "another computer" is another data folder, which a server's data is not in
def test_json_export_imports_back_once(make_engram, tmp_path, monkeypatch):
    engram, snack, _ = filled(make_engram, tmp_path)
    export(engram, "alice", "json", tmp_path / "alice.json")
    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "another-computer"))
    other = make_engram()
    report = importer.import_file(other, "engram", tmp_path / "alice.json", "alice")
    other.outbox.run_due()
    assert len(report.imported) == 3 and not report.damaged
    back = {s.title: s for s in other.sessions.list("alice")}
    assert [(m.role, m.content, m.created_at) for m in other.sessions.messages(back["Snack ideas"].id)] == \
        [(m.role, m.content, m.created_at) for m in engram.sessions.messages(snack.id)]
    assert other.store.count(Scope(user="alice")) == 7          # the messages, archived again
    assert importer.import_file(other, "engram", tmp_path / "alice.json", "alice").already == 3
    # Its chats came from ChatGPT: importing that export too adds nothing either.
    assert importer.import_file(other, "chatgpt", tmp_path / "e.zip", "alice").already == 3
    with pytest.raises(InvalidInput, match="not an Engram export"):
        importer.import_file(other, "engram", tmp_path / "e.zip", "alice")
    newer = tmp_path / "newer.json"
    newer.write_text('{"format": "engram-export", "version": 99, "sessions": []}')
    with pytest.raises(InvalidInput, match="newer Engram"):
        importer.import_file(other, "engram", newer, "alice")


def test_a_chats_own_settings_travel_and_memory_off_stays_off(make_engram, tmp_path, monkeypatch):
    engram = make_engram()
    engram.sessions.get_or_create("private", "alice", title="Private")
    engram.turn_engine.chat_settings.set("private", memory=False, instructions="Be brief.")
    engram.turn_engine.send("private", "my diary entry")
    engram.outbox.run_due()
    engram.turn_engine.chat_settings.set("private", model=str(tmp_path / "only-on-the-old-computer.gguf"))
    export(engram, "alice", "json", tmp_path / "alice.json")
    data = json.loads((tmp_path / "alice.json").read_text())
    assert data["sessions"][0]["settings"]["instructions"] == "Be brief."

    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "another-computer"))
    other = make_engram()
    report = importer.import_file(other, "engram", tmp_path / "alice.json", "alice")
    other.outbox.run_due()
    (session_id, _, _), = report.imported
    assert other.turn_engine.chat_settings.get(session_id).to_json() == {
        "memory": False, "instructions": "Be brief.", "model": ""}     # the model file is not on this one
    assert other.store.count(Scope(user="alice")) == 0, "a chat with memory off is not archived by an import"


def test_markdown_export_carries_a_chats_own_settings_and_the_import_restores_them(make_engram, tmp_path,
                                                                                    monkeypatch):
    model = tmp_path / "on both computers.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    engram = make_engram()
    said = {"private": "my diary entry", "own": "hello", "plain": "what is the time?"}
    for chat, text in said.items():
        engram.sessions.get_or_create(chat, "alice", title=chat.title())
        engram.turn_engine.send(chat, text)
    engram.outbox.run_due()
    engram.turn_engine.chat_settings.set("private", memory=False, instructions='Be brief.\nSay "ahoy" first.',
                                         model=str(tmp_path / "only-on-the-old-computer.gguf"))
    engram.turn_engine.chat_settings.set("own", model=str(model))
    export(engram, "alice", "md", tmp_path / "alice")
    written = {path.stem.rsplit("_", 1)[-1]: path.read_text() for path in (tmp_path / "alice" / "sessions").iterdir()}
    assert '\n- memory: off\n- instructions: "Be brief.\\nSay \\"ahoy\\" first."\n- model: "' in written["private"]
    assert "- memory:" not in written["own"] and f"- model: {json.dumps(str(model))}\n" in written["own"]
    assert not any(f"- {name}:" in written["plain"] for name in ("memory", "instructions", "model"))

    monkeypatch.setenv("ENGRAM_DATA_DIR", str(tmp_path / "another-computer"))
    other = make_engram()
    report = importer.import_file(other, "markdown", tmp_path / "alice" / "sessions", "alice")
    other.outbox.run_due()
    back = {title: session_id for session_id, title, _ in report.imported}
    assert other.turn_engine.chat_settings.get(back["Private"]).to_json() == {
        "memory": False, "instructions": 'Be brief.\nSay "ahoy" first.', "model": ""}   # that file is not here
    assert other.turn_engine.chat_settings.get(back["Own"]).to_json() == {
        "memory": True, "instructions": "", "model": str(model)}
    assert other.turn_engine.chat_settings.get(back["Plain"]).to_json() == {
        "memory": True, "instructions": "", "model": ""}
    assert [m.content for m in other.sessions.messages(back["Private"])] == ["my diary entry", "OK."]
    archived = {title: other.store.count(Scope(user="alice", session=session_id)) for title, session_id in back.items()}
    assert archived == {"Private": 0, "Own": 2, "Plain": 2}, "a chat with memory off is not archived by an import"


def test_only_engrams_own_front_matter_names_settings_a_persons_note_keeps_its_lines(make_engram, tmp_path):
    note = tmp_path / "note.md"
    note.write_text("# Shopping\n\n- memory: off\n- model: a bigger fridge\n\n## User\nWhat else?\n")
    engram = make_engram()
    (session_id, _, _), = importer.import_file(engram, "markdown", note, "alice").imported
    assert engram.turn_engine.chat_settings.get(session_id).memory is True
    assert engram.sessions.messages(session_id)[0].content == "- memory: off\n- model: a bigger fridge"


def test_settings_written_by_hand_in_an_exported_chat(make_engram, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    head = "# {title}\n\n- session: `{title}`\n- user: alice\n"
    (folder / "a.md").write_text(head.format(title="Edited") + "- memory: OFF\n- instructions: Be brief, please.\n"
                                 "- model: not quoted.gguf\n\n## user — 2026-01-02T03:04:05Z\n\nhello\n")
    (folder / "b.md").write_text(head.format(title="Too long") + f"- instructions: {'x' * 4001}\n\n## user\n\nhi\n")
    (folder / "c.md").write_text(head.format(title="Odd") + '- memory: maybe\n- instructions: "unclosed\n\n## user\n\nhey\n')
    engram = make_engram()
    report = importer.import_file(engram, "markdown", folder, "alice")
    back = {title: session_id for session_id, title, _ in report.imported}
    assert set(back) == {"Edited", "Odd"}
    assert engram.turn_engine.chat_settings.get(back["Edited"]).to_json() == {
        "memory": False, "instructions": "Be brief, please.", "model": ""}
    (damaged,) = report.damaged
    assert damaged.where == "conversation 'Too long'"
    assert damaged.why.startswith("the instructions are 4001 characters long; the limit is 4000")
    assert engram.turn_engine.chat_settings.get(back["Odd"]).memory is True
    assert [m.content for m in engram.sessions.messages(back["Odd"])] == [
        '- memory: maybe\n- instructions: "unclosed', "hey"], "what does not read as a setting stays the chat's text"
