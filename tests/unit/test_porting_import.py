"""Imports of ChatGPT, Claude and markdown conversations into sessions and memory (fake embedder;
tests/integration/test_porting_real.py does it with the real model through the command line)."""

import json
import zipfile

import pytest

from chat_exports import (START, chatgpt_conversation, claude_conversation, three_conversations,
                          write_chatgpt_zip)
from engram.core.errors import InvalidInput
from engram.core.porting import importer
from engram.core.porting.conversation import iso_time
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.both_backends


def imported(engram, source, path, user="alice"):
    report = importer.import_file(engram, source, path, user)
    engram.outbox.run_due()
    return report


def archive_jobs(engram) -> int:
    return engram.db.query_one("SELECT count(*) FROM outbox WHERE kind = 'archive_message'")[0]


def test_chatgpt_zip_gives_sessions_with_their_dates_and_searchable_memories(make_engram, tmp_path):
    engram = make_engram()
    report = imported(engram, "chatgpt", write_chatgpt_zip(tmp_path / "export.zip", three_conversations()))
    assert [title for _, title, _ in report.imported] == ["Snack ideas", "Bike repair", "Birdwatching"]
    assert not report.damaged and report.already == 0

    sessions = {s.title: s for s in engram.sessions.list("alice")}
    assert set(sessions) == {"Snack ideas", "Bike repair", "Birdwatching"}
    snack = sessions["Snack ideas"]
    assert snack.title_is_custom and snack.created_at == iso_time(START) == "2023-11-14T22:13:20.000Z"
    said = engram.sessions.messages(snack.id)
    assert [(m.role, m.created_at) for m in said] == [("user", iso_time(START)), ("assistant", iso_time(START + 60))]
    assert "ABANDONED" not in " ".join(m.content for m in said)       # only the branch the person saw
    assert snack.updated_at == iso_time(START + 60)
    # Tool call, tool result and the image-only message are left out; the caption's text is kept.
    birds = [m.content for m in engram.sessions.messages(sessions["Birdwatching"].id)]
    assert birds == ["Where can I watch kingfishers near Lyon?",
                     "The Miribel-Jonage park along the Rhône is a good place.", "What bird is this?"]

    memories = engram.store.list(Scope(user="alice"), kinds=["message"], limit=None)
    assert len(memories) == 7 and not engram.store.pending_embeddings()
    peanut = next(m for m in memories if "peanuts" in m.text)
    assert peanut.created_at == iso_time(START) and peanut.scope.session == snack.id
    hits = engram.store.search("peanut allergy hiking snacks", Scope(user="alice")).hits
    assert hits and "peanuts" in hits[0].memory.text


def test_importing_the_same_export_again_adds_nothing(make_engram, tmp_path):
    engram = make_engram()
    path = write_chatgpt_zip(tmp_path / "export.zip", three_conversations())
    imported(engram, "chatgpt", path)
    counts = (len(engram.sessions.list("alice")), engram.store.count(), archive_jobs(engram))

    again = imported(engram, "chatgpt", path)
    assert again.imported == [] and again.already == 3
    assert (len(engram.sessions.list("alice")), engram.store.count(), archive_jobs(engram)) == counts

    # A later export holding one more conversation adds only that one; another person gets their own.
    more = three_conversations() + [chatgpt_conversation("c-new", "New one", [("user", "Hello again")])]
    later = imported(engram, "chatgpt", write_chatgpt_zip(tmp_path / "later.zip", more))
    assert [t for _, t, _ in later.imported] == ["New one"] and later.already == 3
    assert len(imported(engram, "chatgpt", path, user="bob").imported) == 3
    assert len(engram.sessions.list("alice")) == 4 and len(engram.sessions.list("bob")) == 3


def test_import_key_is_kept_in_the_database_across_a_reopen(make_engram, tmp_path):
    engram = make_engram()
    path = write_chatgpt_zip(tmp_path / "export.zip", three_conversations()[:1])
    imported(engram, "chatgpt", path)
    engram.close()
    reopened = make_engram()
    keys = reopened.db.query("SELECT import_key FROM sessions WHERE user = 'alice'")
    assert keys == [("chatgpt:c-peanut",)]
    assert imported(reopened, "chatgpt", path).already == 1


def test_conversations_json_and_the_unpacked_folder_are_read_too(make_engram, tmp_path):
    engram = make_engram()
    folder = tmp_path / "unpacked"
    folder.mkdir()
    (folder / "conversations.json").write_text(json.dumps(three_conversations()[:2]))
    assert len(imported(engram, "chatgpt", folder / "conversations.json").imported) == 2
    assert imported(engram, "chatgpt", folder).already == 2


def test_a_file_cut_short_imports_what_comes_before_and_says_what_did_not(make_engram, tmp_path):
    engram = make_engram()
    text = json.dumps(three_conversations())
    path = tmp_path / "conversations.json"
    path.write_text(text[: text.index('"Birdwatching"') + 200])    # cut inside the third conversation
    report = imported(engram, "chatgpt", path)
    assert [t for _, t, _ in report.imported] == ["Snack ideas", "Bike repair"]
    assert len(report.damaged) == 1 and report.damaged[0].where == "the file after conversation 2"
    assert "cut short" in report.damaged[0].why
    assert any("not imported: the file after conversation 2" in line for line in report.lines())


def test_a_damaged_conversation_costs_only_itself(make_engram, tmp_path):
    engram = make_engram()
    conversations = three_conversations()
    del conversations[1]["mapping"]
    conversations.insert(0, "not a conversation")
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conversations))
    report = imported(engram, "chatgpt", path)
    assert [t for _, t, _ in report.imported] == ["Snack ideas", "Birdwatching"]
    assert [d.where for d in report.damaged] == ["conversation 1", "conversation 3 ('Bike repair')"]
    assert "mapping" in report.damaged[1].why


def test_invalid_utf8_is_reported_with_what_was_imported(make_engram, tmp_path):
    engram = make_engram()
    good = json.dumps(three_conversations()[:1])[:-1].encode()
    bad = json.dumps(chatgpt_conversation("c-bad", "BAD", [("user", "caf@")])).encode().replace(b"@", b"\xe9")
    path = tmp_path / "conversations.json"
    path.write_bytes(good + b"," + bad + b"]")
    report = imported(engram, "chatgpt", path)
    assert len(report.imported) == 1 and report.damaged[0].why == "it is not valid UTF-8 text there"


@pytest.mark.parametrize("content, words", [
    (b'{"conversations": []}', "must be a list"),
    (b"PK\x03\x04 a zip cut short", "damaged .zip file"),
    (b'[{"title": "cut', None),
])
def test_files_that_are_not_exports_are_refused_clearly(make_engram, tmp_path, content, words):
    engram = make_engram()
    path = tmp_path / "conversations.json"
    path.write_bytes(content)
    if words:
        with pytest.raises(InvalidInput, match=words):
            importer.import_file(engram, "chatgpt", path, "alice")
    else:
        report = importer.import_file(engram, "chatgpt", path, "alice")
        assert report.imported == [] and report.damaged[0].where == "the whole file"
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(InvalidInput, match="holds no conversations.json"):
        importer.import_file(engram, "chatgpt", tmp_path / "other.zip", "alice")
    with pytest.raises(InvalidInput, match="unknown import format"):
        importer.import_file(engram, "gemini", path, "alice")
    assert engram.sessions.list("alice") == []


def test_a_zip_damaged_inside_imports_what_reads(make_engram, tmp_path):
    engram = make_engram()
    path = write_chatgpt_zip(tmp_path / "export.zip", three_conversations())
    data = bytearray(path.read_bytes())
    data[200:210] = b"\0" * 10                    # inside conversations.json's compressed bytes
    path.write_bytes(bytes(data))
    report = importer.import_file(engram, "chatgpt", path, "alice")
    assert len(report.damaged) == 1 and "could not be read" in report.damaged[0].why
    assert report.damaged[0].where == "the whole file" and engram.sessions.list("alice") == []


@pytest.mark.sqlite_only          # SQLite's file fills up; a server's disk is the server's
def test_a_full_disk_stops_the_import_with_what_came_in_kept(make_engram, tmp_path):
    """The database may not grow (as on a full disk) after the first conversation: the import
    stops there and says why; a second run, with room, adds the rest."""
    engram = make_engram()
    big = [chatgpt_conversation(f"c-{n}", f"Long {n}", [("user", f"a long message number {n} " * 400)])
           for n in range(6)]
    path = write_chatgpt_zip(tmp_path / "export.zip", big)
    importer.import_file(engram, "chatgpt", write_chatgpt_zip(tmp_path / "one.zip", big[:1]), "alice")
    pages = engram.db.query_one("PRAGMA page_count")[0]
    engram.db.execute(f"PRAGMA max_page_count = {pages + 2}")
    report = importer.import_file(engram, "chatgpt", path, "alice")
    assert report.stopped and report.already == 1 and len(report.damaged) == 1
    assert "is full" in report.damaged[0].why
    assert len(engram.sessions.list("alice")) == 1 + len(report.imported) < 6
    engram.db.execute(f"PRAGMA max_page_count = {pages * 100}")
    again = importer.import_file(engram, "chatgpt", path, "alice")
    assert len(engram.sessions.list("alice")) == 6 and not again.damaged


def test_stopping_keeps_what_was_imported_and_a_second_run_adds_the_rest(make_engram, tmp_path):
    import threading

    engram = make_engram()
    path = write_chatgpt_zip(tmp_path / "export.zip", three_conversations())
    stop = threading.Event()

    def progress(step):
        if step.imported == 1:
            stop.set()

    report = importer.import_file(engram, "chatgpt", path, "alice", progress=progress, stop=stop)
    assert report.stopped and 1 <= len(report.imported) < 3
    rest = importer.import_file(engram, "chatgpt", path, "alice")
    assert len(rest.imported) + len(report.imported) == 3 and rest.already == len(report.imported)


def test_a_run_after_a_crash_takes_up_the_archiving_the_first_left(make_engram, tmp_path):
    """The first run stored every conversation and was killed before archiving them: the second
    finds them imported before, and archives them all the same (issue 33, defect 10)."""
    engram = make_engram()
    path = write_chatgpt_zip(tmp_path / "e.zip", three_conversations())
    importer.import_file(engram, "chatgpt", path, "alice")
    again = importer.import_file(engram, "chatgpt", path, "alice")
    assert again.already == 3 and not again.imported and again.left_before == 3 and len(again.archive_jobs) == 3
    assert "3 archiving job(s) left waiting before" in " ".join(again.lines())
    engram.outbox.start()
    try:
        assert importer.wait_archived(engram, again, poll=0.02)
    finally:
        engram.outbox.stop()
    assert engram.store.count(Scope(user="alice")) == 7 and archive_jobs(engram) == 3


def test_wait_archived_follows_the_outbox_thread(make_engram, tmp_path):
    engram = make_engram()
    report = importer.import_file(engram, "chatgpt", write_chatgpt_zip(tmp_path / "e.zip", three_conversations()),
                                  "alice")
    seen = []
    engram.outbox.start()
    assert importer.wait_archived(engram, report, progress=seen.append, poll=0.02)
    assert seen[-1].phase == importer.ARCHIVING and (seen[-1].done, seen[-1].total) == (3, 3)
    assert engram.store.count(Scope(user="alice")) == 7


def test_claude_export(make_engram, tmp_path):
    engram = make_engram()
    conversations = [claude_conversation("u-1", "Moving house", [("human", "We move to Ghent on 3 May."),
                                                                 ("assistant", "Congratulations! Shall I plan?")]),
                     claude_conversation("u-2", "", [("human", "Translate 'good morning' to Dutch"),
                                                     ("assistant", "Goedemorgen.")])]
    conversations[1]["chat_messages"][1]["content"].insert(0, {"type": "thinking", "thinking": "easy"})
    with zipfile.ZipFile(tmp_path / "claude.zip", "w") as archive:
        archive.writestr("conversations.json", json.dumps(conversations))
        archive.writestr("users.json", "[]")
    report = imported(engram, "claude", tmp_path / "claude.zip")
    assert len(report.imported) == 2 and not report.damaged
    by_title = {s.title: s for s in engram.sessions.list("alice")}
    assert set(by_title) == {"Moving house", "Translate 'good morning' to Dutch"}   # untitled: its first words
    moving = engram.sessions.messages(by_title["Moving house"].id)
    assert [(m.role, m.content, m.created_at) for m in moving] == [
        ("user", "We move to Ghent on 3 May.", "2024-03-05T10:12:00.000Z"),
        ("assistant", "Congratulations! Shall I plan?", "2024-03-05T10:13:00.000Z")]
    assert by_title["Moving house"].created_at == "2024-03-05T10:11:12.345Z"
    assert [m.content for m in engram.sessions.messages(by_title["Translate 'good morning' to Dutch"].id)][1] == \
        "Goedemorgen."
    assert imported(engram, "claude", tmp_path / "claude.zip").already == 2


def test_a_retried_claude_reply_is_left_out_as_chatgpts_branches_are(make_engram, tmp_path):
    """Claude lists a retried reply beside the one it replaced, both children of the same message:
    only the branch ending at current_leaf_message_uuid is what the person kept."""
    engram = make_engram()
    chat = claude_conversation("u-1", "Retried", [("human", "Name a bird"), ("assistant", "FIRST TRY: a crow"),
                                                  ("assistant", "A kingfisher"), ("human", "Thanks")])
    messages = chat["chat_messages"]
    messages[2]["parent_message_uuid"] = messages[0]["uuid"]     # the retry replaces the first reply
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([chat]))
    imported(engram, "claude", path)
    (session,) = engram.sessions.list("alice")
    assert [m.content for m in engram.sessions.messages(session.id)] == ["Name a bird", "A kingfisher", "Thanks"]


@pytest.mark.parametrize("source, other, given", [("claude", "chatgpt", "ChatGPT"), ("chatgpt", "claude", "Claude")])
def test_another_vendors_export_is_named_in_one_line_with_the_command_to_use(make_engram, tmp_path, source, other,
                                                                            given):
    engram = make_engram()
    if other == "chatgpt":
        path = write_chatgpt_zip(tmp_path / "export.zip", three_conversations())
    else:
        path = tmp_path / "conversations.json"
        path.write_text(json.dumps([claude_conversation("u-1", "Moving", [("human", "Hello")])]))
    with pytest.raises(InvalidInput, match=f"this is a {given} export") as refused:
        importer.import_file(engram, source, path, "alice")
    assert f"engram import {other} PATH" in refused.value.hint
    assert engram.sessions.list("alice") == []


@pytest.mark.parametrize("source", ["chatgpt", "claude"])
def test_an_empty_file_is_said_to_be_empty(make_engram, tmp_path, source):
    engram = make_engram()
    path = tmp_path / "conversations.json"
    path.write_bytes(b"")
    with pytest.raises(InvalidInput, match="the file is empty"):
        importer.import_file(engram, source, path, "alice")


def test_markdown_folder(make_engram, tmp_path):
    engram = make_engram()
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "trip.md").write_text("# Trip to Rome\n\n## User\nWhere should we eat?\n\n## Assistant\n"
                                    "Try Trastevere.\n```\nUser: inside code, not a turn\n```\n")
    (folder / "sub" / "bold.md").write_text("**User:** I prefer tea to coffee.\n**Assistant:** Noted.\n")
    (folder / "plain-note.md").write_text("Passport renewal is due in June.\nBring two photos.\n")
    (folder / "broken.md").write_bytes(b"## User\ncaf\xe9\n")
    (folder / ".hidden.md").write_text("## User\nsecret\n")
    report = imported(engram, "markdown", folder)
    assert len(report.imported) == 3
    assert [d.why for d in report.damaged] == ["it is not valid UTF-8 text (at byte 11)"]
    by_title = {s.title: [(m.role, m.content) for m in engram.sessions.messages(s.id)]
                for s in engram.sessions.list("alice")}
    assert by_title == {
        "Trip to Rome": [("user", "Where should we eat?"),
                         ("assistant", "Try Trastevere.\n```\nUser: inside code, not a turn\n```")],
        "bold": [("user", "I prefer tea to coffee."), ("assistant", "Noted.")],
        "plain-note": [("user", "Passport renewal is due in June.\nBring two photos.")]}
    assert imported(engram, "markdown", folder).already == 3


def test_imported_words_feed_the_profile_oldest_first_whatever_the_files_order(make_engram, tmp_path):
    engram = make_engram()
    newer = chatgpt_conversation("c2", "Lunch", [("user", "I'm allergic to cashews."), ("assistant", "Noted.")],
                                 start=START + 86400)
    older = chatgpt_conversation("c1", "Health", [("user", "I'm allergic to peanuts."), ("assistant", "OK.")])
    report = imported(engram, "chatgpt", write_chatgpt_zip(tmp_path / "export.zip", [newer, older]))
    assert [c.line.text for c in report.profile] == ["Allergic to peanuts.", "Allergic to cashews."]
    assert any("added to your profile" in line for line in report.lines())
    (first, second) = engram.profiles.active("alice")
    assert first.by == "import" and first.added == iso_time(START)[:10] and first.source == "Health"
    assert imported(engram, "chatgpt", tmp_path / "export.zip").profile == []      # a second import adds nothing
