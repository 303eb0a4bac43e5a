"""pgvector's own choices: a user holding much of a model's table is searched through the HNSW
graph (even where the planner would scan every row), the others exactly, both giving the true
nearest rows of their user only; a login that may not install the extension is told who can."""

from __future__ import annotations

import uuid

import numpy as np
import psycopg
import pytest

from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors.pgvector_table import HNSW_SHARE
from engram.core.storage import open_database
from test_vector_index import model, nearest_ten_are_exact, remember, unit


def test_big_users_go_through_the_graph_small_ones_exactly_both_find_the_true_nearest(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    alice_ids, alice_rows = remember(db, index, Scope(user="alice"), 900, seed=1)
    bob_ids, bob_rows = remember(db, index, Scope(user="bob"), 100, seed=2)
    with db.transaction() as conn:
        assert index._share(conn, "alice") == 0.0   # not analysed yet: every user exactly
    db.execute(f"ANALYZE {index.table}")
    with db.transaction() as conn:
        assert index._share(conn, "alice") == 0.0   # the statistics as read a moment ago (once a minute)
    index = model(db)   # as the next Engram to open the table reads them
    with db.transaction() as conn:
        assert index._share(conn, "alice") >= HNSW_SHARE > index._share(conn, "bob") > 0
        assert index._share(conn, "carol") == 0.0
    for user, ids, rows in (("alice", alice_ids, alice_rows), ("bob", bob_ids, bob_rows)):
        assert nearest_ten_are_exact(index, user, unit(np.random.default_rng(3).standard_normal((10, rows.shape[1]))),
                                     ids, rows)
    db.close()


def test_a_user_holding_the_whole_table_is_served_by_the_graph_and_never_sees_another_users_rows(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    alice_ids, alice_rows = remember(db, index, Scope(user="alice"), 300, seed=4)
    db.execute(f"ANALYZE {index.table}")   # alice holds every row
    bob_ids, bob_rows = remember(db, index, Scope(user="bob"), 20, seed=5)   # after it: still alice's alone
    with db.transaction() as conn:
        assert index._share(conn, "alice") == 1.0
        statement, params = index._search(conn, bob_rows[0], Scope(user="alice"), (), 10)
        plan = "\n".join(row[0] for row in index.typed(conn).execute(f"EXPLAIN {statement}", params))
    assert f"Index Scan using {index.table}_hnsw" in plan
    # bob's own vectors: his rows are the nearest of all
    assert nearest_ten_are_exact(index, "alice", bob_rows[:5], alice_ids, alice_rows)
    found = [i for i, _ in index.nearest(bob_rows[0], Scope(user="bob"), (), 10)]
    assert found[0] == bob_ids[0] and set(found) <= set(bob_ids)
    db.close()


def test_a_login_that_may_not_install_pgvector_is_told_to_ask_an_administrator(postgres_server):
    name = f"plain_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {name} LOGIN")
        conn.execute(f"CREATE DATABASE {name} OWNER {name}")
    url = postgres_server.replace("postgres:@", f"{name}:@").replace("/postgres?", f"/{name}?")
    try:
        with pytest.raises(psycopg.Error, match="needs pgvector") as raised:
            open_database(url)
        assert "CREATE EXTENSION vector" in raised.value.diag.message_hint
        with psycopg.connect(postgres_server.replace("/postgres?", f"/{name}?"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")   # as the administrator
        db = open_database(url)
        assert db.schema_version() >= 3
        db.close()
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
            conn.execute(f"DROP ROLE {name}")
