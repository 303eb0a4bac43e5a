"""The PostgreSQL backend's connection: SQL written once for both engines, transactions, secrets."""

from __future__ import annotations

import psycopg
import pytest

from engram.core.errors import DatabaseError
from engram.core.storage import open_database
from engram.core.storage.postgres import PostgresDatabase, redacted, translated


def test_sql_is_translated_outside_literals_and_quoted_names():
    sql = "SELECT id FROM memories m WHERE user = ? AND m.user = ? AND text LIKE '%user?' AND \"user\" = ?"
    assert translated(sql) == ("SELECT id FROM memories m WHERE \"user\" = %s AND m.user = %s"
                               " AND text LIKE '%%user?' AND \"user\" = %s")
    assert translated("SELECT 100 % 7, username FROM t") == "SELECT 100 %% 7, username FROM t"


def test_a_password_never_shows():
    assert redacted("postgresql://bob:s3cret@db.example:5432/engram") == "postgresql://bob:***@db.example:5432/engram"
    assert redacted("postgresql:///engram?host=/run/pg") == "postgresql:///engram?host=/run/pg"


def test_transactions_commit_whole_or_not_at_all(postgres_url):
    db = open_database(postgres_url)
    with db.transaction() as conn:
        conn.execute("INSERT INTO sessions(id, user, folder, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                     ("s1", "ann", "f1", "t", "t"))
        conn.execute("INSERT INTO messages(session_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                     ("s1", "user", "50% off", "t"))
        assert conn.last_insert_rowid() == 1
    with pytest.raises(RuntimeError), db.transaction() as conn:
        conn.execute("INSERT INTO sessions(id, user, folder, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                     ("s2", "ann", "f2", "t", "t"))
        raise RuntimeError("a crash in the middle")
    assert db.query("SELECT id, user FROM sessions") == [("s1", "ann")]
    assert db.query_one("SELECT content FROM messages")[0] == "50% off"
    assert db.query("SELECT 100 % 7, '100%', ? || '%'", ("50",)) == [(2, "100%", "50%")]
    assert db.query("SELECT count(*) FROM messages WHERE content LIKE '%off'") == [(1,)]
    db.close()
    again = open_database(postgres_url)   # reopening applies nothing twice
    assert again.schema_version() >= 1
    again.close()


def test_a_pipelined_read_sees_its_settings_and_leaves_none_behind(postgres_url):
    """Statements sent without waiting run in order in one transaction: a local setting holds for
    the query after it, and ends with the transaction (the pooled session is used again)."""
    db = open_database(postgres_url)
    default = db.query_one("SELECT current_setting('work_mem')")[0]
    for _ in range(3):
        with db.pipelined() as conn:
            conn.execute("SELECT set_config('work_mem', '7MB', true)")
            assert conn.execute("SELECT current_setting('work_mem')").fetchone() == ("7MB",)
        assert db.query_one("SELECT current_setting('work_mem')") == (default,)
    with pytest.raises(psycopg.errors.DivisionByZero), db.pipelined() as conn:   # a failed one ends too
        conn.execute("SELECT set_config('work_mem', '7MB', true)")
        conn.execute("SELECT 1 / 0").fetchone()
    assert db.query_one("SELECT current_setting('work_mem')") == (default,)
    with db.transaction() as outer, db.pipelined() as conn:   # inside the thread's transaction: a part of it
        assert conn is outer
    db.close()


def test_an_unreachable_server_is_said_without_its_password(tmp_path):
    with pytest.raises(DatabaseError) as caught:
        PostgresDatabase(f"postgresql://bob:s3cret@/engram?host={tmp_path}", connect_timeout_s=1)
    assert "s3cret" not in str(caught.value) and "cannot reach" in str(caught.value)
