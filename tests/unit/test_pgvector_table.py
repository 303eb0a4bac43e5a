"""pgvector's own choices: a user holding much of a model's table is searched through the HNSW
graph, the others exactly; both give the true nearest rows of their user only."""

from __future__ import annotations

import numpy as np

from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors.pgvector_table import HNSW_SHARE
from engram.core.storage import open_database
from test_vector_index import exact, model, remember, unit


def test_big_users_go_through_the_graph_small_ones_exactly_both_find_the_true_nearest(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    alice_ids, alice_rows = remember(db, index, Scope(user="alice"), 900, seed=1)
    bob_ids, bob_rows = remember(db, index, Scope(user="bob"), 100, seed=2)
    with db.transaction() as conn:
        assert index._share(conn, "alice") == 0.0   # not analysed yet: every user exactly
    db.execute(f"ANALYZE {index.table}")
    with db.transaction() as conn:
        assert index._share(conn, "alice") >= HNSW_SHARE > index._share(conn, "bob") > 0
        assert index._share(conn, "carol") == 0.0
    for user, ids, rows in (("alice", alice_ids, alice_rows), ("bob", bob_ids, bob_rows)):
        for query in unit(np.random.default_rng(3).standard_normal((10, rows.shape[1]))):
            found = [i for i, _ in index.nearest(query, Scope(user=user), (), 10)]
            reference = exact(query, ids, rows)
            assert set(found) == set(sorted(reference, key=reference.get)[:10])
    db.close()
