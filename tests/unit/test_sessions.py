"""Sessions and messages: titles, folder names, listing, rename, delete, export."""

from __future__ import annotations

import json
import re
import time

import pytest

from engram.core.errors import InvalidInput, NotFound
from engram.core.memory.scope import Scope
from engram.core.conversation.sessions import Sessions, slug, title_from

pytestmark = pytest.mark.both_backends


@pytest.fixture
def sessions(db):
    return Sessions(db)


def test_a_new_session_gets_a_readable_folder_and_a_title_from_its_first_words(sessions):
    s = sessions.get_or_create("trip", "u", title="Trip planning for the Alps in winter with friends")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d_\d{4}_trip-planning-for-the-alps-in-winter", s.folder)
    assert s.title == "Trip planning for the Alps in…"
    assert sessions.get_or_create("trip", "u").folder == s.folder      # same session on second use


def test_chinese_titles_make_readable_folders_and_folders_are_unique(sessions, tmp_path):
    a = sessions.get_or_create("a", "u", title="我对花生过敏")
    b = sessions.get_or_create("b", "u", title="我对花生过敏")
    c = sessions.get_or_create("c", "u", title="？！")
    assert a.folder.endswith("_我对花生过敏") and b.folder.endswith("_我对花生过敏-2") and c.folder.endswith("_chat")
    assert a.title == "我对花生过敏"
    (tmp_path / a.folder).mkdir()   # a name the file system takes
    assert slug("Ünïcode — façade!") == "unicode-facade"


@pytest.mark.parametrize("title, folder", [
    ("我用Python写代码！", "我用-python-写代码"),
    ("臺灣的記憶、旅行計劃", "臺灣的記憶-旅行計劃"),
    ("東京タワー 한국어", "東京タワー-한국어"),
    ("Ｐｙｔｈｏｎ／Ｃ＋＋：笔记", "python-c-笔记"),     # full-width letters and separators are plain ones
    ("三" * 60, "三" * 40),                          # one long word is cut
    ("春天 " + "很长的标题" * 8, "春天"),              # words that do not fit are left out
])
def test_slug_keeps_chinese_japanese_and_korean(title, folder):
    assert slug(title) == folder


def test_a_session_id_belongs_to_one_user(sessions):
    sessions.get_or_create("s", "u")
    with pytest.raises(InvalidInput, match="another user"):
        sessions.get_or_create("s", "v")
    with pytest.raises(InvalidInput):
        sessions.get_or_create("bad\nid", "u")


def test_rename_changes_the_title_but_not_the_folder(sessions):
    s = sessions.get_or_create("s", "u", title="first words")
    renamed = sessions.rename("s", "  Better   name ")
    assert renamed.title == "Better name" and renamed.title_is_custom and renamed.folder == s.folder
    assert sessions.name_from_first_words(renamed, "other words").title == "Better name"
    with pytest.raises(InvalidInput):
        sessions.rename("s", " ")


def test_untitled_sessions_take_their_first_message_as_title(sessions):
    s = sessions.get_or_create("s", "u")
    assert s.title == "" and s.folder.endswith("_s")
    assert sessions.name_from_first_words(s, "hello there").title == "hello there"
    assert title_from("one two three four five six seven") == "one two three four five six…"


def test_list_is_most_recent_first_and_searches_titles_and_messages(sessions):
    sessions.get_or_create("old", "u", title="groceries")
    sessions.get_or_create("new", "u", title="holiday")
    sessions.get_or_create("other", "v", title="groceries")
    time.sleep(0.002)                       # timestamps have millisecond resolution
    sessions.add_message("old", "user", "remember the Peanut butter")
    assert [s.id for s in sessions.list("u")] == ["old", "new"]
    assert [s.id for s in sessions.list("u", "peanut")] == ["old"]
    assert [s.id for s in sessions.list("u", "HOLI")] == ["new"]
    assert [s.id for s in sessions.list("v")] == ["other"]


def test_messages_keep_their_order_and_status(sessions):
    sessions.get_or_create("s", "u")
    ids = [sessions.add_message("s", role, f"m{n}").id for n, role in enumerate(["user", "assistant"] * 3)]
    sessions.add_message("s", "assistant", "half a rep", status="stopped")
    assert [m.content for m in sessions.messages("s", last=3)] == ["m4", "m5", "half a rep"]
    assert sessions.messages("s")[-1].status == "stopped"
    assert [m.id for m in sessions.messages("s", after_id=ids[3], before_id=ids[5])] == [ids[4]]
    with pytest.raises(NotFound):
        sessions.add_message("missing", "user", "x")
    with pytest.raises(InvalidInput):
        sessions.add_message("s", "robot", "x")


def test_delete_removes_messages_and_the_memories_taken_from_the_session(make_engram):
    engram = make_engram(("Noted.",))
    engram.sessions.get_or_create("s", "u")
    engram.sessions.get_or_create("keep", "u")
    engram.turn_engine.send("s", "my locker code is 4711")
    engram.turn_engine.send("keep", "unrelated words")
    engram.outbox.run_due()
    assert engram.store.count(Scope(user="u", session="s")) == 2
    assert engram.delete_session("s").messages == 2
    assert engram.store.count(Scope(user="u", session="s")) == 0
    assert engram.store.count(Scope(user="u", session="keep")) == 2
    assert engram.db.query_one("SELECT count(*) FROM messages WHERE session_id = 's'")[0] == 0
    assert engram.db.query_one("SELECT count(*) FROM turns WHERE session_id = 's'")[0] == 0
    with pytest.raises(NotFound):
        engram.sessions.get("s")


def test_export_as_markdown_and_json(sessions):
    sessions.get_or_create("s", "u", title="Export me")
    sessions.add_message("s", "user", "hello")
    sessions.add_message("s", "assistant", "hi the", status="stopped")
    markdown = sessions.export_markdown("s")
    assert markdown.startswith("# Export me") and "## assistant (stopped)" in markdown and "hello" in markdown
    data = json.loads(json.dumps(sessions.export_json("s")))
    assert data["id"] == "s" and [m["content"] for m in data["messages"]] == ["hello", "hi the"]


def test_a_reply_its_turn_record_and_its_job_are_one_unit_of_work(sessions, db):
    """The turn engine stores a reply, its turn record and its archive job in one transaction
    across three repositories: all of them or, after a crash in the middle, none."""
    from engram.core.conversation.outbox import Outbox
    from engram.core.conversation.turn_records import TurnRecord, Turns

    turns, outbox = Turns(db), Outbox(db)
    sessions.get_or_create("s", "u")
    asked = sessions.add_message("s", "user", "hello")

    def reply(crash: bool) -> None:
        with db.transaction() as conn:
            said = sessions.add_message("s", "assistant", "hi there", conn=conn)
            turns.save(TurnRecord("s", asked.id, said.id, [{"role": "user", "content": "hello"}]), conn)
            outbox.enqueue("archive_message", {"message_id": said.id}, conn)
            if crash:
                raise RuntimeError("the process died here")

    with pytest.raises(RuntimeError):
        reply(crash=True)
    assert [m.role for m in sessions.messages("s")] == ["user"]
    assert turns.for_session("s") == [] and outbox.health().pending == 0
    reply(crash=False)
    replies = sessions.messages("s", roles=("assistant",))
    assert [r.content for r in replies] == ["hi there"]
    assert turns.for_reply(replies[0].id).user_message_id == asked.id
    assert outbox.jobs("pending")[0].payload == {"message_id": replies[0].id}


def test_the_search_also_looks_inside_a_chats_files(make_engram):
    engram = make_engram()
    trip = engram.sessions.get_or_create("trip", "u", title="Trip")
    engram.sessions.get_or_create("other", "u", title="Other")
    engram.files.write(trip.folder, "route.md", "# Route\nthe night train to Vienna\n", "Route")
    assert [s.id for s in engram.sessions.list("u", "vienna")] == ["trip"]
    assert engram.sessions.list("v", "vienna") == []
