"""A server's password goes to libpq's password file, never into the settings' URL."""

from __future__ import annotations

import psycopg

from engram.core.storage.pgpass import remember_password, split_password, with_password


def test_the_password_is_kept_apart_from_the_address():
    assert split_password("postgresql://me:p%40ss@host:5432/db") == ("postgresql://me@host:5432/db", "p@ss")
    assert with_password("postgresql://me@host:5432/db", "p@ss") == "postgresql://me:p%40ss@host:5432/db"
    assert with_password("postgresql://me:old@host/db", "new") == "postgresql://me:new@host/db"
    assert split_password("postgresql:///db?host=/tmp") == ("postgresql:///db?host=/tmp", "")


def test_a_password_is_written_to_the_password_file_once_per_server(tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
    (tmp_path / "pgpass").write_text("other:5432:db:me:keep\n")
    assert remember_password("postgresql://me:first@host:6543/engram") == "postgresql://me@host:6543/engram"
    assert remember_password("postgresql://me:a:b\\c@host:6543/engram") == "postgresql://me@host:6543/engram"
    assert (tmp_path / "pgpass").read_text() == "other:5432:db:me:keep\nhost:6543:engram:me:a\\:b\\\\c\n"
    assert (tmp_path / "pgpass").stat().st_mode & 0o077 == 0
    assert remember_password("postgresql://me@host/engram") == "postgresql://me@host/engram"   # nothing to keep


def test_libpq_finds_the_password_there(postgres_server, tmp_path, monkeypatch):
    """The embedded server trusts its socket, so a role with a password and md5 rules cannot be
    had here; what libpq reads from the file is seen in the connection's own parameters."""
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
    url = with_password(postgres_server.replace("postgres:@", "postgres@"), "from:file")
    with psycopg.connect(remember_password(url)) as conn:
        assert conn.info.password == "from:file"
