"""Pointing Engram at a PostgreSQL server: --database-url, ENGRAM_DATABASE_URL, the setting; the
password never shown."""

from __future__ import annotations

import json

import pytest

from engram.cli import main
from engram.core import paths
from engram.core.app import Engram
from engram.core.errors import DatabaseError, InvalidInput


def with_password(url: str, password: str = "s3cret") -> str:
    """The test server's URL with a password in it (the server trusts its socket, so it is not asked)."""
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{password}@")


def test_the_command_line_wins_over_the_environment_which_wins_over_the_setting(monkeypatch):
    monkeypatch.delenv("ENGRAM_DATABASE_URL", raising=False)
    assert paths.database_url(None, "") == ""
    assert paths.database_url(None, "postgresql://setting/db") == "postgresql://setting/db"
    monkeypatch.setenv("ENGRAM_DATABASE_URL", "postgresql://env/db")
    assert paths.database_url(None, "postgresql://setting/db") == "postgresql://env/db"
    assert paths.database_url("postgresql://cli/db", "postgresql://setting/db") == "postgresql://cli/db"


def test_engram_keeps_its_data_on_the_server_and_its_session_files_in_the_folder(postgres_url, isolated_dirs):
    with Engram(meaning=False, database_url=postgres_url) as engram:
        assert engram.db.dialect == "postgresql"
        engram.sessions.get_or_create("s", "u", title="On the server")
        engram.preferences.set("u", "tone", "dry")
        assert engram.data_dir == isolated_dirs / "data"
        assert not (engram.data_dir / paths.DATABASE_FILE).exists()
    with Engram(meaning=False, database_url=postgres_url) as again:
        assert again.sessions.get("s").title == "On the server" and again.preferences.get("u") == {"tone": "dry"}


def test_the_setting_points_engram_at_the_server(postgres_url, isolated_dirs, monkeypatch):
    monkeypatch.delenv("ENGRAM_DATABASE_URL", raising=False)
    (isolated_dirs / "config").mkdir()
    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"database_url": postgres_url}))
    with Engram(meaning=False) as engram:
        assert engram.db.dialect == "postgresql"


def test_doctor_asks_for_a_saved_password_to_move_to_pgpass(postgres_url, isolated_dirs, monkeypatch):
    from engram.core.doctor import run_checks

    monkeypatch.delenv("ENGRAM_DATABASE_URL", raising=False)
    (isolated_dirs / "config").mkdir()
    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"database_url": with_password(postgres_url)}))
    checks = {check.name: check for check in run_checks()}
    assert checks["database"].ok and "s3cret" not in checks["database"].detail
    warning = checks["database password"]
    assert not warning.ok and not warning.required and "~/.pgpass" in warning.fix and "s3cret" not in warning.detail


def test_a_url_that_names_no_server_is_refused_without_its_password():
    with pytest.raises(InvalidInput) as refused:
        Engram(meaning=False, database_url="mysql://bob:s3cret@host/engram")
    assert "s3cret" not in str(refused.value) and "postgresql://" in refused.value.hint


def test_doctor_shows_the_server_redacted_with_its_versions(postgres_url, capsys):
    assert main(["doctor", "--database-url", with_password(postgres_url)]) in (0, 1)
    out = capsys.readouterr().out
    database = next(line for line in out.splitlines() if "] database:" in line)
    assert database.startswith("[ok  ]") and "postgres:***@" in database and "s3cret" not in out
    assert "(schema " in database and "PostgreSQL 18" in database and "pgvector 0.8" in database


def test_an_unreachable_server_stops_a_command_with_the_url_redacted(tmp_path, capsys):
    url = f"postgresql://bob:s3cret@/engram?host={tmp_path}&connect_timeout=1"
    assert main(["--database-url", url, "prefs", "show"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the PostgreSQL server" in err and "bob:***@" in err and "s3cret" not in err
    with pytest.raises(DatabaseError):
        Engram(meaning=False, database_url=url)
