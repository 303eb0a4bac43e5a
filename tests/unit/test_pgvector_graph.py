"""pgvector's HNSW graph: built with the parameters chosen for recall at a million
(pgvector_table.M, EF_CONSTRUCTION), searched with the candidates designed, and an older graph
built again, at a new version's first start, beside the old one that serves searches meanwhile."""

from __future__ import annotations

import threading

from engram.core.doctor import _vector_graph
from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors import pgvector_table
from engram.core.memory.search.vectors.pgvector_table import EF_CONSTRUCTION, M, outdated_graphs
from engram.core.storage import open_database
from test_vector_index import model, nearest_ten_are_exact, remember


def reloptions(db, name: str) -> list[str] | None:
    row = db.query_one("SELECT c.reloptions FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid"
                       " WHERE c.oid = to_regclass(?) AND i.indisvalid", (name,))
    return None if row is None else sorted(row[0])


def test_the_graph_carries_the_chosen_parameters_on_an_empty_table_and_after_a_load(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    chosen = sorted([f"m={M}", f"ef_construction={EF_CONSTRUCTION}"])
    assert reloptions(db, f"{index.table}_hnsw") == chosen      # made with the table, empty
    with index.loading():
        remember(db, index, Scope(user="alice"), 200, seed=1)
        assert reloptions(db, f"{index.table}_hnsw") is None    # dropped while loading
    assert reloptions(db, f"{index.table}_hnsw") == chosen
    assert index.graph() == {"m": M, "ef_construction": EF_CONSTRUCTION}
    db.close()


def test_a_search_through_the_graph_keeps_the_candidates_designed(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    ids, rows = remember(db, index, Scope(user="alice"), 300, seed=2)
    db.execute(f"ANALYZE {index.table}")
    index = model(db)   # reads the fresh statistics: alice holds the whole table
    for k, share, expected in ((10, 1.0, pgvector_table.EF_SEARCH),
                               (200, 1.0, max(pgvector_table.EF_SEARCH, 300)),
                               (200, 0.5, 600), (400, 0.25, 1000)):
        index._shares = {"alice": share}
        with db.transaction() as conn:
            index._search(conn, rows[0], Scope(user="alice"), (), k)
            assert conn.execute("SELECT current_setting('hnsw.ef_search')").fetchone()[0] == str(expected)
    db.close()


def old_graph(db, index) -> None:
    """The graph as a database made before this version holds it, and a finished build of
    another beside it (``_hnsw_next``) that an Engram which quit never put in place."""
    with db.transaction() as conn:
        conn.execute(f"DROP INDEX {index.table}_hnsw")
        conn.execute(f"CREATE INDEX {index.table}_hnsw ON {index.table} USING hnsw (embedding vector_cosine_ops)"
                     " WITH (m = 16, ef_construction = 64)")
        conn.execute(f"CREATE INDEX {index.table}_hnsw_next ON {index.table} USING hnsw (embedding vector_cosine_ops)"
                     " WITH (m = 8, ef_construction = 64)")


def test_an_older_graph_is_built_again_beside_it_in_the_background_and_searches_go_on(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    ids, rows = remember(db, index, Scope(user="alice"), 400, seed=3)
    db.execute(f"ANALYZE {index.table}")
    old_graph(db, index)
    index = model(db)      # as a new version opens it: the old graph serves until the new one is made
    assert index.outdated() and index.graph() == {"m": 16, "ef_construction": 64}
    with db.session() as raw:   # another Engram is building it: this one leaves it to them
        raw.execute("SELECT pg_advisory_lock(hashtext(%s))", (f"engram.regraph.{index.table}",))
        assert not index.regraph()
        raw.execute("SELECT pg_advisory_unlock_all()")
    with db.transaction():      # the build waits for this transaction; searches meanwhile use the old graph
        index.warm("alice")     # what the window does at start
        thread = next(t for t in threading.enumerate() if t.name == "engram-regraph")
        found = [i for i, _ in index.nearest(rows[0], Scope(user="alice"), (), 10)]
        assert found[0] == ids[0]
    thread.join(timeout=120)
    assert not thread.is_alive() and not index.rebuilding and index.rebuild_failed == ""
    assert reloptions(db, f"{index.table}_hnsw") == sorted([f"m={M}", f"ef_construction={EF_CONSTRUCTION}"])
    assert reloptions(db, f"{index.table}_hnsw_next") is None   # the other build was dropped
    assert not index.outdated() and not index.regraph() and index.regraph_later() is None
    assert nearest_ten_are_exact(index, "alice", rows[:5], ids, rows)
    db.close()


def test_a_finished_build_beside_the_graph_is_put_in_place_without_building_again(postgres_url):
    db = open_database(postgres_url)
    index = model(db)
    remember(db, index, Scope(user="alice"), 50, seed=4)
    old_graph(db, index)
    with db.transaction() as conn:
        conn.execute(f"DROP INDEX {index.table}_hnsw_next")
        conn.execute(index._graph_sql(f"{index.table}_hnsw_next"))
        oid = conn.execute("SELECT to_regclass(?)::oid", (f"{index.table}_hnsw_next",)).fetchone()[0]
    assert index.regraph()
    assert db.query_one("SELECT to_regclass(?)::oid", (f"{index.table}_hnsw",))[0] == oid
    db.close()


def test_an_engram_opening_while_the_graph_is_built_beside_does_not_wait_for_the_build(postgres_url):
    """A build beside the graph (``CREATE INDEX CONCURRENTLY``) holds the table in SHARE UPDATE
    EXCLUSIVE mode for all its length and waits for the transactions open when it began: an Engram
    opening meanwhile must take no lock that waits for it (the two would deadlock and PostgreSQL
    would end the build)."""
    db = open_database(postgres_url)
    index = model(db)
    remember(db, index, Scope(user="alice"), 20, seed=5)
    other = open_database(postgres_url)
    opened = []
    with db.transaction() as conn:
        conn.execute(f"LOCK TABLE {index.table} IN SHARE UPDATE EXCLUSIVE MODE")   # as the build holds it
        opening = threading.Thread(target=lambda: opened.append(model(other)))
        opening.start()
        opening.join(timeout=10)
        assert not opening.is_alive() and opened[0].table == index.table
    other.close()
    db.close()


def test_an_engram_opening_while_a_load_builds_the_graph_does_not_wait_for_it(postgres_url):
    """A load (moving data in, a benchmark) builds the graph in a transaction of its own, an hour
    at a million: an Engram opening meanwhile leaves it to that build instead of waiting for it."""
    db = open_database(postgres_url)
    index = model(db)
    ids, rows = remember(db, index, Scope(user="alice"), 20, seed=8)
    with db.transaction() as conn:
        conn.execute(f"DROP INDEX {index.table}_hnsw")   # as loading() drops it first
    other = open_database(postgres_url)
    opened = []
    with db.transaction() as conn:
        index._build_graph(conn)                          # loading()'s build, not committed yet
        opening = threading.Thread(target=lambda: opened.append(model(other)))
        opening.start()
        opening.join(timeout=10)
        assert not opening.is_alive() and opened[0].table == index.table
        assert [i for i, _ in opened[0].nearest(rows[0], Scope(user="alice"), (), 1)] == [ids[0]]   # exactly
    assert index.graph() == {"m": M, "ef_construction": EF_CONSTRUCTION}
    other.close()
    db.close()


def test_the_doctor_says_when_an_older_graph_is_not_being_built_again(postgres_url):
    """A graph built again beside the old one that stopped shows in a window only while one is
    open; ``engram doctor`` says that the old one still serves."""
    db = open_database(postgres_url)
    index = model(db)
    remember(db, index, Scope(user="alice"), 50, seed=6)
    assert outdated_graphs(db) == {} and _vector_graph({"db": db}).ok
    old_graph(db, index)
    assert outdated_graphs(db) == {index.table: ({"m": 16, "ef_construction": 64}, None)}
    check = _vector_graph({"db": db})
    assert not check.ok and not check.required and "no new one is being built" in check.detail and check.fix
    assert index.regraph() and outdated_graphs(db) == {} and _vector_graph({"db": db}).ok
    db.close()


def test_a_rebuild_that_stops_says_why_to_the_window_and_the_old_graph_serves_on(postgres_url):
    """The window's status shows ``rebuilding`` while the graph is built again, and a build that
    stopped (the server's error, real) with its reason: not only in the log."""
    db = open_database(postgres_url)
    index = model(db)
    ids, rows = remember(db, index, Scope(user="alice"), 50, seed=7)
    old_graph(db, index)
    index = model(db)
    index._graph_sql = lambda name, how="": f"CREATE INDEX {how} {name} ON {index.table} USING hnsw (embedding no_such_ops)"
    thread = index.regraph_later()
    assert index.rebuilding and index.rebuild_failed == ""
    thread.join(timeout=60)
    assert not index.rebuilding and "no_such_ops" in index.rebuild_failed
    assert index.upkeep() == (False, index.rebuild_failed)   # not taken up again by the window
    assert index.outdated() and [i for i, _ in index.nearest(rows[0], Scope(user="alice"), (), 1)] == [ids[0]]
    del index._graph_sql   # the next start's try builds it, and says nothing more
    index.regraph_later().join(timeout=120)
    assert not index.outdated() and not index.rebuilding and index.rebuild_failed == ""
    assert index.upkeep() == (False, "")
    db.close()


def test_the_window_sees_another_engrams_rebuild_and_takes_up_one_left_undone(postgres_url):
    """Two Engrams sharing a server: while one builds the graph again, the other's status says
    it is being rebuilt though it builds nothing itself; a graph left outdated with no build
    under way (its builder quit first) is taken up by the Engram whose window asks."""
    db, other = open_database(postgres_url), open_database(postgres_url)
    remember(db, model(db), Scope(user="alice"), 50, seed=9)
    old_graph(db, model(db))
    mine, theirs = model(db), model(other)
    db.execute(f"DROP INDEX {mine.table}_hnsw_next")   # their build begins at once, with no drop first
    with other.transaction() as conn:   # a writer: their build waits for it, on the server, to be seen
        conn.execute(f"LOCK TABLE {mine.table} IN ROW EXCLUSIVE MODE")
        building = theirs.regraph_later()
        for _ in range(100):
            if mine.table in pgvector_table.graph_builds(db):
                break
            threading.Event().wait(0.1)
        assert mine.upkeep() == (True, "") and not mine.rebuilding
    building.join(timeout=120)
    assert not building.is_alive() and mine.upkeep() == (False, "")
    old_graph(db, mine)              # outdated again, and nobody builds it
    assert mine.upkeep() == (True, "") and mine.rebuilding
    next(t for t in threading.enumerate() if t.name == "engram-regraph").join(timeout=120)
    assert not mine.outdated() and mine.upkeep() == (False, "")
    other.close()
    db.close()
