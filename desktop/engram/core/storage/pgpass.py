"""A server's password kept where libpq itself looks for it, the password file (``~/.pgpass``, or
``PGPASSFILE``; ``%APPDATA%\\postgresql\\pgpass.conf`` on Windows), never in Engram's settings,
which ``doctor`` prints and people copy between machines. The URL in the settings then has no
password, and every connection finds it there."""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from psycopg.conninfo import conninfo_to_dict

from engram.core.errors import DataDirError
from engram.core.storage.atomic import write_text_atomic


def split_password(url: str) -> tuple[str, str]:
    """(the URL without its password, the password or "")."""
    parts = urlsplit(url)
    if parts.password is None:
        return url, ""
    login, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{login.partition(':')[0]}@{host}")), unquote(parts.password)


def with_password(url: str, password: str) -> str:
    """The URL with ``password`` in it (quoted, so any character may be in it)."""
    parts = urlsplit(split_password(url)[0])
    if not password or not parts.netloc:
        return url
    login, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{login}:{quote(password, safe='')}@{host}"))


def password_file() -> Path:
    if named := os.environ.get("PGPASSFILE"):
        return Path(named)
    if os.name == "nt":
        return Path(os.environ.get("APPDATA", Path.home())) / "postgresql" / "pgpass.conf"
    return Path.home() / ".pgpass"


def _field(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def remember_password(url: str) -> str:
    """Put the URL's password (if it has one) in the password file, in place of the line for the
    same host, port, database and user; returns the URL without it. The file is written whole
    and readable by its owner only (libpq ignores a file others may read)."""
    bare, password = split_password(url)
    if not password:
        return bare
    info = conninfo_to_dict(url)
    user = info.get("user") or getpass.getuser()
    server = ":".join(_field(str(v)) for v in (info.get("host") or "localhost", info.get("port") or "5432",
                                          info.get("dbname") or user, user))
    path = password_file()
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        lines = [line for line in lines if not line.startswith(server + ":")] + [f"{server}:{_field(password)}"]
        write_text_atomic(path, "\n".join(lines) + "\n")   # a new file, made for its owner only
        path.chmod(0o600)
    except OSError as e:
        raise DataDirError(f"cannot keep the server's password in {path}: {e.strerror or e}",
                           hint="check that file's permissions, or give the password in PGPASSWORD") from e
    return bare
