"""What the two engines spell differently (storage/dialect.py) reads the same on both."""

from __future__ import annotations

import json

import pytest

from engram.core.storage import dialect

pytestmark = pytest.mark.both_backends


def add_session(db, session_id: str, title: str = "", at: str = "2026-12-01T10:00:00.000Z") -> None:
    db.execute("INSERT INTO sessions(id, user, title, folder, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
               (session_id, "u", title, f"folder-{session_id}", at, at))


def test_json_lists_of_ids_and_texts_are_rows_in_their_order(db):
    sql = dialect.of(db)
    assert db.query(f"SELECT value, key FROM {sql.ints('?', 'ids')} ORDER BY key", (json.dumps([7, 3, 11]),)) \
        == [(7, 0), (3, 1), (11, 2)]
    assert db.query(f"SELECT value FROM {sql.texts('?', 'ids')} ORDER BY key", (json.dumps(["b", "它"]),)) \
        == [("b",), ("它",)]
    assert db.query(f"SELECT value FROM {sql.ints('?', 'ids')}", ("[]",)) == []


def test_a_json_column_is_read_row_by_row_and_objects_by_key(db):
    sql = dialect.of(db)
    add_session(db, "s")
    db.execute("INSERT INTO messages(session_id, role, content, created_at) VALUES ('s', 'user', 'hi', 't')")
    db.execute("INSERT INTO turns(session_id, messages, recalled, created_at) VALUES ('s', '[]', ?, 't')",
               (json.dumps([{"id": 4, "text": "a"}, {"id": 9, "text": "b"}]),))
    found = db.query(f"SELECT t.id FROM turns t WHERE EXISTS (SELECT 1 FROM {sql.objects('t.recalled', 'r')}"
                     f" WHERE {sql.json_int('r.value', 'id')} IN (SELECT value FROM {sql.ints('?', 'wanted')}))",
                     (json.dumps([9]),))
    assert len(found) == 1
    assert db.query(f"SELECT {sql.json_text('?', 'session')}, {sql.json_int('?', 'message_id')}",
                    ('{"session": "s1"}', '{"message_id": 12}')) == [("s1", 12)]


def test_contains_ignores_case_and_takes_the_text_literally(db):
    sql = dialect.of(db)
    add_session(db, "a", "Trip to LEEDS 50%_off")
    add_session(db, "b", "Something else")

    def titled(text: str) -> list:
        return [i for (i,) in db.query(f"SELECT id FROM sessions WHERE {sql.contains('title')}", (text,))]

    assert titled("leeds") == ["a"] and titled("50%_") == ["a"] and titled("%") == ["a"] and titled("x_y") == []


def test_no_limit_and_an_index_hint_read_on_both(db):
    sql = dialect.of(db)
    for n in range(3):
        add_session(db, f"s{n}")
    assert len(db.query("SELECT id FROM sessions ORDER BY id LIMIT ? OFFSET ?", (dialect.NO_LIMIT, 1))) == 2
    assert db.query(f"SELECT id FROM sessions{sql.indexed_by('sessions_by_user')} WHERE user = ?"
                    " ORDER BY updated_at DESC, rowid DESC", ("u",)) == [("s2",), ("s1",), ("s0",)]


def test_a_duplicate_row_is_told_apart_from_other_errors(db):
    sql = dialect.of(db)
    add_session(db, "s")
    with pytest.raises(Exception) as duplicate:
        add_session(db, "s")
    assert sql.is_duplicate(duplicate.value)
    with pytest.raises(Exception) as other:
        db.execute("INSERT INTO messages(session_id, role, content, created_at) VALUES ('s', 'nobody', 'x', 't')")
    assert not sql.is_duplicate(other.value)
