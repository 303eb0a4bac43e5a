"""Forgetting for real: a memory with every copy made from it (memory forget), and a text wherever
it is stored (forget everywhere), down to the bytes of the database, its log and the folders,
while another process holds the database open."""

import json

import pytest

from bytescan import another_process_reading, occurrences
from engram.cli import main
from engram.core.conversation.distill import CONSOLIDATE, EXTRACT
from engram.core.errors import InvalidInput
from engram.core.files import TRASH_DIR
from engram.core.forget import FORGOTTEN, find, forget_everywhere, forget_memory, persons_files
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.fusion import SearchOptions

pytestmark = pytest.mark.both_backends

NUMBER = "ZX9931457Q"
INDEX_TERM = b"9931457"      # the word index cuts the number by script: zx, 9931457, q


def replies(messages):
    """The chat model: a note of the passport from what the person said, and a plain reply."""
    system = messages[0]["content"]
    if system.startswith(EXTRACT):     # with the profile's field too
        return json.dumps({"memories": [{"kind": "fact", "text": f"Passport number is {NUMBER}", "from": [1],
                                         "importance": 5, "profile": "none"}]})
    if system == CONSOLIDATE:
        return json.dumps({"action": "ADD"})
    return "Noted."


@pytest.fixture
def passport(make_engram):
    """The issue's scenario: the number said in s1 (and noted), recalled in s2's turn."""
    engram = make_engram(replies=replies, distill_memories="on")
    engram.sessions.get_or_create("s1", "ann", title=f"My passport number is {NUMBER}")
    engram.turn_engine.send("s1", f"My passport number is {NUMBER}")
    engram.outbox.run_due()
    engram.sessions.get_or_create("s2", "ann", title="Travel")
    recalled = engram.turn_engine.send("s2", "What is my passport number?").record.recalled
    engram.outbox.run_due()
    assert any(NUMBER in r["text"] for r in recalled)      # s2's turn record holds it
    return engram


def fts_blobs(engram) -> bytes:
    (table,) = engram.db.query_one("SELECT 'memory_fts_' || id FROM word_indexes WHERE user = 'ann'")
    return b"".join(bytes(b or b"") for (b,) in engram.db.query(f"SELECT block FROM {table}_data")) + \
        b"".join(str(r).encode() for r in engram.db.query(f"SELECT * FROM {table}_idx"))


@pytest.mark.sqlite_only
def test_memory_forget_removes_every_copy_made_from_it(passport):
    engram = passport
    message = engram.db.query_one("SELECT id FROM memories WHERE kind = 'message' AND text LIKE ?", (f"%{NUMBER}",))[0]
    note = engram.db.query_one("SELECT id FROM memories WHERE kind = 'fact'")[0]
    (vector,) = engram.db.query_one("SELECT embedding FROM memory_vec_1 WHERE memory_id = ?", (message,))
    assert INDEX_TERM in fts_blobs(engram)

    with another_process_reading(engram.db.path):
        done = forget_memory(engram, message)
        assert done.ids == [message, note] and done.turns == 1 and done.log_released
        assert engram.db.path.with_name(engram.db.path.name + "-wal").stat().st_size == 0
        data = engram.db.path.read_bytes()
    assert INDEX_TERM not in fts_blobs(engram)          # the index's bytes, not just its answers
    assert bytes(vector) not in data                                 # vec0 zeroes a deleted vector
    assert engram.store.get_many([message, note]) == []
    assert engram.db.query("SELECT * FROM memory_history WHERE memory_id IN (?, ?) AND"
                           " (old_text IS NOT NULL OR new_text IS NOT NULL)", (message, note)) == []
    s2 = engram.turns.for_session("s2")[0]
    assert NUMBER not in json.dumps(s2.to_json()) and FORGOTTEN in json.dumps(s2.recalled)
    # The chat itself still says it: only forget everywhere changes what was said.
    assert NUMBER in engram.sessions.messages("s1")[0].content


@pytest.mark.sqlite_only
def test_a_deleted_memory_leaves_its_words_in_the_index_bytes_until_purged(make_engram):
    """Why forget merges the index: FTS5 keeps a deleted row's terms in its segments."""
    engram = make_engram()
    memory = engram.store.add(f"passport {NUMBER}", Scope(user="ann"))
    engram.store.add("something else", Scope(user="ann"))
    engram.store.delete(memory.id)
    assert INDEX_TERM in fts_blobs(engram)
    forget_memory(engram, engram.store.add("another", Scope(user="ann")).id)
    assert INDEX_TERM not in fts_blobs(engram)


@pytest.mark.sqlite_only
def test_forget_everywhere_leaves_no_byte_of_the_text(passport):
    engram = passport
    s1 = engram.sessions.get("s1")
    engram.files.write(s1.folder, "documents.md", f"# Passport\n{NUMBER}, valid until 2031\n", "Travel documents")
    person = engram.files.folder(s1.folder).path / "mine.txt"
    person.write_text(f"written by hand: {NUMBER.lower()}\n")
    engram.sessions.get_or_create("s3", "ann", title=f"Old chat about {NUMBER}")
    engram.files.write(engram.sessions.get("s3").folder, "old.md", "nothing secret here")
    engram.delete_session("s3")
    data_dir = engram.data_dir
    assert occurrences(data_dir, NUMBER)

    with another_process_reading(engram.db.path):
        places = find(engram, NUMBER.lower(), "ann")
        found = {p.what for p in places}
        assert {"message", "chat title", "chat folder", "turn record", "memory", "file", "trash folder"} <= found
        done = forget_everywhere(engram, NUMBER.lower(), "ann", places=places)
        assert done.log_released and {p.what for p in done.left} >= {"file"}
        folder = engram.files.folder(engram.sessions.get("s1").folder).path
        assert folder.name.endswith("_my-passport-number-is-forgotten") and not person.parent.exists()
        assert NUMBER.lower() in (folder / "mine.txt").read_text()      # a person's file: only when asked
        done = forget_everywhere(engram, NUMBER, "ann", files=True)
        assert done.log_released and not done.left
        assert occurrences(data_dir, NUMBER) == []
    assert find(engram, NUMBER, "ann") == []
    assert engram.sessions.get("s1").title == f"My passport number is {FORGOTTEN}"
    assert engram.sessions.messages("s1")[0].content == f"My passport number is {FORGOTTEN}"
    assert (folder / "mine.txt").read_text() == f"written by hand: {FORGOTTEN}\n"
    assert f"# Passport\n{FORGOTTEN}, valid until 2031" in (folder / "documents.md").read_text()
    assert engram.files.statuses(folder.name)                        # the index follows the renamed folder
    assert "_old-chat-about-forgotten_deleted-" in next((data_dir / TRASH_DIR).iterdir()).name
    engram.outbox.run_due()                              # the redacted message is archived again, as it reads now
    assert engram.store.list(Scope(user="ann"), kinds=[Kind.MESSAGE], contains=FORGOTTEN)


def test_forget_everywhere_refuses_a_text_too_short_to_mean_anything(make_engram):
    with pytest.raises(InvalidInput):
        find(make_engram(), " a ", "ann")

@pytest.mark.sqlite_only
def test_deleted_chats_leave_their_words_only_in_the_trash_folders_name(passport):
    engram = passport
    engram.files.write(engram.sessions.get("s1").folder, "plan.md", "nothing secret")
    with another_process_reading(engram.db.path):
        engram.delete_session("s1")
        engram.delete_session("s2")
        assert INDEX_TERM not in fts_blobs(engram)
        left = occurrences(engram.data_dir, NUMBER)
    assert len(left) == 1 and left[0].startswith(f"name: {engram.data_dir / TRASH_DIR}")   # forget everywhere renames it


def test_the_commands_list_first_and_change_only_when_confirmed(passport, capsys):
    engram = passport
    code = main(["forget", "--text", NUMBER, "--user", "ann"])        # no terminal to ask: nothing changes
    out, err = capsys.readouterr()
    assert code == 1 and "nothing was changed" in out and "--yes" in err
    assert "chat title" in out and "turn record" in out and find(engram, NUMBER, "ann")
    note = engram.db.query_one("SELECT id FROM memories WHERE kind = 'fact'")[0]
    message = engram.db.query_one("SELECT id FROM memories WHERE kind = 'message' AND text LIKE ?", (f"%{NUMBER}",))[0]
    assert main(["memory", "forget", "--user", "ann", str(message)]) == 0
    assert capsys.readouterr().out.strip() == f"forgot #{message} and the notes and summaries made from it: #{note}"
    assert main(["forget", "--text", NUMBER, "--user", "ann", "--yes"]) == 0
    assert "forgot it in" in capsys.readouterr().out and find(engram, NUMBER, "ann") == []


@pytest.mark.sqlite_only
def test_a_read_held_open_elsewhere_leaves_the_log_to_background_work(passport, monkeypatch):
    """A checkpoint cannot pass another process's open read: the outbox empties the log later."""
    import engram.core.conversation.upkeep as upkeep

    engram = passport
    monkeypatch.setattr(upkeep, "LOG_WAIT_SECONDS", 0.2)
    with another_process_reading(engram.db.path, holding=True):
        done = forget_everywhere(engram, NUMBER, "ann", files=True)
        assert not done.log_released and upkeep.EMPTY_LOG_JOB in [j.kind for j in engram.outbox.jobs("pending")]
        assert [found for found in occurrences(engram.data_dir, NUMBER) if found.endswith("-wal")]
    engram.outbox.run_due()
    assert occurrences(engram.data_dir, NUMBER) == [] and not engram.outbox.jobs("pending")


def test_forgetting_part_of_an_edited_pinned_memory_keeps_the_rest_the_pin_and_importance(make_engram):
    engram = make_engram()
    engram.sessions.get_or_create("s1", "ann", title="Food")
    engram.turn_engine.send("s1", "I'm allergic to peanuts")
    engram.outbox.run_due()
    (archived,) = engram.store.list(Scope(user="ann"), kinds=[Kind.MESSAGE], contains="peanuts")
    engram.store.update(archived.id, text="I'm allergic to peanuts and cashews (severe)", pinned=True, importance=0.9)
    engram.files.write(engram.sessions.get("s1").folder, "diet.md", "# Diet\nallergic to peanuts\n", "Diet")

    places = find(engram, "allergic to peanuts", "ann")
    assert len([p for p in places if p.what == "file"]) == 1 == len(persons_files(places))   # its chunk goes with it
    done = forget_everywhere(engram, "allergic to peanuts", "ann", places=places)
    engram.outbox.run_due()
    kept = engram.store.get(archived.id)
    assert (kept.text, kept.pinned, kept.importance) == (f"I'm {FORGOTTEN} and cashews (severe)", True, 0.9)
    assert [m.id for m in engram.store.list(Scope(user="ann"), kinds=[Kind.MESSAGE], contains="I'm")] == [archived.id]
    assert not any("peanuts" in (c.old_text or "") + (c.new_text or "") for c in engram.store.history(archived.id))
    assert find(engram, "allergic to peanuts", "ann") == done.left and len(persons_files(done.left)) == 1
    found = engram.store.search("peanuts", Scope(user="ann"), SearchOptions(mode="words")).hits
    assert [hit.memory.kind for hit in found] == [Kind.FILE]          # the person's file, left as it is
