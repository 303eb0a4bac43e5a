"""What SQLite and PostgreSQL spell differently, said once per concept: the repositories write the
rest of their SQL once (postgres.py translates placeholders and ``user``) and take these fragments
from ``of(db)``.

Lists of ids travel as one JSON text parameter (any number of ids, one statement, one plan):
SQLite reads it with ``json_each``, PostgreSQL with ``json_array_elements_text``. Both fragments
name a row source with the columns ``value`` and ``key`` (the position, from 0), so the SQL around
them reads the same on both.
"""

from __future__ import annotations

import apsw
import psycopg

# LIMIT for "no limit": SQLite reads -1 so and PostgreSQL refuses it, NULL the other way round.
NO_LIMIT = 2 ** 63 - 1


class SQLite:
    name = "sqlite"

    @staticmethod
    def ints(source: str, alias: str) -> str:
        """The integers of a JSON list (a ``?`` or a column) as rows ``alias(value, key)``."""
        return f"json_each({source}) AS {alias}"

    texts = ints
    objects = ints      # each element's JSON text, for ``json_int``/``json_text``

    @staticmethod
    def json_int(document: str, key: str) -> str:
        """The integer under ``key`` of a JSON object held as text."""
        return f"json_extract({document}, '$.{key}')"

    json_text = json_int

    @staticmethod
    def indexed_by(index: str) -> str:
        """A hint naming the index to use, where SQLite's planner would choose a worse one
        (PostgreSQL's planner has statistics and takes no hints)."""
        return f" INDEXED BY {index}"

    @staticmethod
    def contains(text: str) -> str:
        """Whether the column holds the ``?`` parameter, case aside."""
        return f"instr(lower({text}), lower(?)) > 0"

    @staticmethod
    def is_duplicate(error: BaseException) -> bool:
        """Whether the error is a UNIQUE constraint refusing a row."""
        return isinstance(error, apsw.ConstraintError) and error.extendedresult == apsw.SQLITE_CONSTRAINT_UNIQUE


class PostgreSQL:
    name = "postgresql"

    @staticmethod
    def _elements(source: str, alias: str, cast: str, function: str = "json_array_elements_text") -> str:
        # LATERAL: the source may be a column of a table before it in the FROM list.
        return (f"LATERAL (SELECT e.value{cast} AS value, e.key - 1 AS key"
                f" FROM {function}(({source})::json) WITH ORDINALITY AS e(value, key)) AS {alias}")

    @classmethod
    def ints(cls, source: str, alias: str) -> str:
        return cls._elements(source, alias, "::bigint")

    @classmethod
    def texts(cls, source: str, alias: str) -> str:
        return cls._elements(source, alias, "")

    @classmethod
    def objects(cls, source: str, alias: str) -> str:
        return cls._elements(source, alias, "::text", "json_array_elements")

    @staticmethod
    def json_int(document: str, key: str) -> str:
        return f"(({document})::jsonb ->> '{key}')::bigint"

    @staticmethod
    def json_text(document: str, key: str) -> str:
        return f"(({document})::jsonb ->> '{key}')"

    @staticmethod
    def indexed_by(index: str) -> str:
        return ""

    @staticmethod
    def contains(text: str) -> str:
        return f"strpos(lower({text}), lower(?)) > 0"

    @staticmethod
    def is_duplicate(error: BaseException) -> bool:
        return isinstance(error, psycopg.errors.UniqueViolation)


def of(db) -> type[SQLite] | type[PostgreSQL]:
    """The fragments for the database's engine."""
    return PostgreSQL if db.dialect == PostgreSQL.name else SQLite
