"""Vectors on a PostgreSQL server in pgvector, one table per embedding model so that spaces never mix.

Each row carries the memory's user, kind, session, agent and application, and every search has
the user (and the rest of its scope) in its WHERE clause: the server never returns another
user's rows. Nothing is held in this process: the server keeps the table and its indexes in its
own memory, shared by every Engram that uses it.

Two ways to the nearest rows, chosen per search by the user's share of the table (the planner's
statistics of the user column, kept by autovacuum):
- a user holding at least ``HNSW_SHARE`` of the table is searched through the HNSW index (cosine),
  always: sorting is off for the search, so the graph is the one way left to rows in order (on a
  small table the planner's costs favour reading the user's rows and sorting them). It is read with
  pgvector's iterative scan (0.8) keeping candidates (``hnsw.ef_search``) for k of the user's rows
  in one pass: k / share and half as many again, at least ``EF_SEARCH``. When they hold too few (another
  scope, another kind, deleted rows) the scan goes on with a second pass: for the 200 nearest of one
  person's 100k (tests/bench/scale.py --vectors locomo, 1,000 rows of another deleted), ef_search
  200 read 7,260 pages, 300 read 5,873 and found as many of the true 10 (99.3%; 220: 4,628 pages,
  98.5%). Of the true 10 it finds 99.75% on 21.5k real e5 vectors of one person
  (tests/bench/hnsw_recall.py); random vectors, where all distances are alike, are the graph's worst
  case (24%). What a graph misses grows with its size, so it is denser than pgvector's default
  (``M`` links a node, not 16; built with ``EF_CONSTRUCTION`` candidates, not 64), and a search
  keeps at least 400 (see the table below);
- any other user exactly: their rows through the (user) index, every distance computed, sorted.
  The graph is no use to them: measured on 100k vectors of 100 users (tests/bench/scale.py's
  data), an HNSW search for one user's 200 nearest took 250–640 ms and found 45% of the true
  10 (iterative scan, ef_search 200, up to 50,000 rows visited), the exact one 2–7 ms and all.
  The planner did choose the exact way itself there, but nothing in its costs keeps it from the
  graph for a user of 10,000 rows among a million.

Of the true 10 of each LoCoMo question among vectors made from LoCoMo turns' (k 200; the
benchmark's --vectors locomo; ef_search set exactly; on two cores shared with other work, load
average 6-8 at 100k, 14-16 at 300k, so the times are high):

  graph (m, ef_construction), size    200     300     400     600    1000   ef_search
  16, 64 (pgvector's), 100k          98.0%   98.9%   99.35%  99.65%  99.75%  p50 25-70 ms
  24, 128, 100k                      99.75%  99.8%   99.95%  99.95%  99.95%  p50 48-139 ms
  24, 128, 300k                      98.8%   99.4%   99.8%   99.95% 100%     p50 96-262 ms
  16, 64, 1M (scale.py, earlier)     93.3%   94.0%   (500: 96.3%)    97.0%

At a million the default graph never reaches 98%. The denser one's misses grew about threefold
from 100k to 300k; as much again to a million would leave it near 98% at ef_search 300 and about
99% at 400, hence ``EF_SEARCH`` 400 (a third more candidates than k 200 asked for, about a third
longer a search: at 300k p50/p95 132/226 ms against 100/138 at 300, on the loaded machine). Its
cost: building it takes 2.6 times as long (100k: 565 s against 218; 300k: 2,220 s, so a million
about two hours on two cores), memories added into it go a third as fast (100k: 23/s against
68/s; 300k: 10/s at load 16), its pages are as many (195 MB at 100k, 586 MB at 300k). A graph an older version built with
other parameters is built again beside it (``regraph``, from the window's warm-up), searches and
writes going on through the old one; nothing waits for it at open.

Vectors travel as numpy arrays in pgvector's binary format (the ``pgvector`` package).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
from pgvector.psycopg.vector import register_vector_info
from psycopg.types import TypeInfo

from engram.core.memory.scope import Scope
from engram.core.memory.search.vectors.index import EACH_BATCH, VectorIndex, model_ids
from engram.core.storage.postgres import translated

log = logging.getLogger(__name__)

M, EF_CONSTRUCTION = 24, 128    # the graph's links per node, and its build's breadth (pgvector's defaults: 16, 64)
EF_SEARCH = 400                 # candidates a search keeps at least (more for a larger k or a smaller share)
EF_MARGIN = 1.5                 # candidates beyond k / share: rows of another scope or deleted met on the way
HNSW_SHARE = 0.2                # a user's share of the table from which the graph serves them (see above)
MAX_SCAN_TUPLES = 50_000        # index rows an iterative scan visits at most, looking for the user's rows
SHARES_FOR_S = 60               # seconds the users' shares read from the statistics are used
BYTES_PER_LINK = 64             # the graph's build memory per row and link of M beyond its vector, with room
GRAPH = {"m": M, "ef_construction": EF_CONSTRUCTION}   # as graph_of reads a graph this version built


def graph_of(db, name: str) -> dict[str, int] | None:
    """The valid HNSW index ``name``'s parameters as the server holds them (m, ef_construction)."""
    row = db.query_one("SELECT coalesce(c.reloptions, '{}') FROM pg_class c JOIN pg_index i"
                       " ON i.indexrelid = c.oid WHERE c.oid = to_regclass(?) AND i.indisvalid", (name,))
    if row is None:
        return None
    given = dict(option.split("=", 1) for option in row[0])
    return {"m": int(given.get("m", 16)), "ef_construction": int(given.get("ef_construction", 64))}


def graph_builds(db) -> dict[str, str]:
    """The graphs being built again beside the old ones on the server (by any Engram), by table:
    how far each has come."""
    return {table: f"{phase}, {done / total:.0%}" if total else phase for table, phase, done, total in db.query(
        "SELECT c.relname, p.phase, p.blocks_done, p.blocks_total FROM pg_stat_progress_create_index p"
        " JOIN pg_class i ON i.oid = p.index_relid JOIN pg_class c ON c.oid = p.relid"
        " WHERE i.relname LIKE 'memory\\_vec\\_%\\_hnsw\\_next'")}


def outdated_graphs(db) -> dict[str, tuple[dict[str, int], str | None]]:
    """Each model's graph built with other parameters than this version's (by an older Engram),
    by table: its parameters, and how far its build beside it has come (None: no build under way
    on the server, e.g. the window has not started since, or the build failed)."""
    building = graph_builds(db)
    found = {}
    for (table,) in db.query("SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE 'memory\\_vec\\_%'"):
        graph = graph_of(db, f"{table}_hnsw")
        if graph not in (None, GRAPH):
            found[table] = (graph, building.get(table))
    return found


class PgVectorIndex(VectorIndex):
    """One model's vectors in a pgvector table with an HNSW index, searched on the server."""

    def __init__(self, db, model_name: str, fingerprint: str, dimensions: int):
        super().__init__(db, model_name, fingerprint, dimensions)
        with db.transaction() as conn:
            self._vector_type = TypeInfo.fetch(conn.raw, "vector")
        self._shares: dict[str, float] = {}     # user: share of the table (see _share)
        self._shares_read = -math.inf

    def _create(self, conn) -> None:
        # Two Engrams starting at once: one creates, the other finds it made.
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('engram.vectors'))")
        # Made already: no DDL, whose lock on the table would wait for a graph being built beside
        # it (CONCURRENTLY) while that build waits for this transaction: PostgreSQL then ends the
        # build as a deadlock (seen at a million memories, when a second Engram opened meanwhile).
        if conn.execute("SELECT to_regclass(?)", (f"{self.table}_by_user",)).fetchone()[0] is not None:
            self._build_graph(conn)
            return
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            " memory_id BIGINT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,"
            " user TEXT NOT NULL, kind TEXT NOT NULL, session TEXT NOT NULL, agent TEXT NOT NULL,"
            f" application TEXT NOT NULL, embedding vector({self.dimensions}) NOT NULL)")
        conn.execute(f"CREATE INDEX IF NOT EXISTS {self.table}_by_user ON {self.table}(user)")
        self._build_graph(conn)

    def _build_graph(self, conn) -> None:
        """Build the HNSW index if it is missing (``M``, ``EF_CONSTRUCTION``), with memory for the
        whole graph: pgvector builds in memory while the graph fits and falls back to page-by-page
        inserts after, many times slower (a 1M x 384 graph of M 16 takes about 2.5 GB; the server's
        default is 64 MB). The server's own setting is kept when larger. Not while another Engram
        builds it (a load's build, minutes to an hour in its transaction): searches here are exact
        until it commits, where waiting for its lock kept this Engram from opening at all."""
        if conn.execute("SELECT to_regclass(?)", (f"{self.table}_hnsw",)).fetchone()[0] is not None:
            return
        if not conn.execute("SELECT pg_try_advisory_xact_lock(hashtext(?))", (f"engram.graph.{self.table}",)).fetchone()[0]:
            return
        conn.execute("SELECT set_config('maintenance_work_mem', ?, true)", (self._build_memory(conn),))
        conn.execute(self._graph_sql(f"{self.table}_hnsw"))

    def _build_memory(self, conn) -> str:
        rows = conn.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0]
        need = rows * (4 * self.dimensions + BYTES_PER_LINK * M) // 2**20 + 64
        have = conn.execute("SELECT setting::bigint * 1024 / 1048576 FROM pg_settings"
                            " WHERE name = 'maintenance_work_mem'").fetchone()[0]
        return f"{max(need, have)}MB"

    def _graph_sql(self, name: str, how: str = "") -> str:
        return (f"CREATE INDEX {how} IF NOT EXISTS {name} ON {self.table}"
                f" USING hnsw (embedding vector_cosine_ops) WITH (m = {M}, ef_construction = {EF_CONSTRUCTION})")

    def graph(self, name: str = "") -> dict[str, int] | None:
        """A valid HNSW index's parameters as the server holds them (m, ef_construction): the
        table's graph, or the index ``name``; None while there is none (a load in progress)."""
        return graph_of(self.db, name or f"{self.table}_hnsw")

    def outdated(self) -> bool:
        """Whether the graph was built with other parameters than this version's (by one before)."""
        return self.graph() not in (None, GRAPH)

    def regraph_later(self) -> threading.Thread | None:
        """``regraph`` in a thread of its own when the graph is outdated (else None): at a million
        it takes an hour or more, while searches go on through the old graph."""
        if not self.outdated():
            return None
        log.warning("the vectors' graph %s is built again with m %d, ef_construction %d (was %s);"
                    " searches use the old one meanwhile", self.table, M, EF_CONSTRUCTION, self.graph())
        self.rebuilding, self.rebuild_failed = True, ""
        thread = threading.Thread(target=self._regraph_in_background, name="engram-regraph", daemon=True)
        thread.start()
        return thread

    def upkeep(self) -> tuple[bool, str]:
        """Also a build by another Engram sharing the server is a rebuild; and a graph left
        outdated with no build under way (the Engram building it quit before it began, or stopped)
        is taken up here. A try of this Engram's that stopped is tried again at its next start."""
        if self.rebuilding or not self.outdated():
            return self.rebuilding, ""
        if self.table in graph_builds(self.db):
            return True, ""
        if self.rebuild_failed:
            return False, self.rebuild_failed
        return self.regraph_later() is not None, ""

    def _regraph_in_background(self) -> None:
        """``regraph``, its end kept for the window's status (a thread's error would go unseen);
        the next start tries again."""
        try:
            self.regraph()
        except Exception as e:
            log.exception("building the vectors' graph %s again failed", self.table)
            self.rebuild_failed = (str(e).strip().splitlines() or [type(e).__name__])[0]
        finally:
            self.rebuilding = False

    def regraph(self) -> bool:
        """Build the graph again with this version's ``M`` and ``EF_CONSTRUCTION`` when it was built
        with others; True if it was. Searches and writes go on through the old graph meanwhile: the
        new one is built beside it without locking out writes (``CONCURRENTLY``, in a session outside
        any transaction), then takes its name in one short transaction. One Engram builds at a
        time; a build whose Engram quit goes on on the server, and the next start puts it in place
        (an interrupted one, left invalid, is dropped and built anew)."""
        beside = f"{self.table}_hnsw_next"
        with self.db.session() as raw:
            lock = f"engram.regraph.{self.table}"
            if not raw.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (lock,)).fetchone()[0]:
                return False   # another Engram is building it
            try:
                if not self.outdated():
                    return False
                if self.graph(beside) != GRAPH:
                    raw.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {beside}")
                    with self.db.transaction() as conn:
                        raw.execute(f"SET maintenance_work_mem = '{self._build_memory(conn)}'")
                    try:
                        raw.execute(self._graph_sql(beside, "CONCURRENTLY"))
                    finally:
                        raw.execute("RESET maintenance_work_mem")
                with self.db.transaction() as conn:
                    conn.execute(f"DROP INDEX IF EXISTS {self.table}_hnsw")   # a load may have dropped it
                    conn.execute(f"ALTER INDEX {beside} RENAME TO {self.table}_hnsw")
                return True
            finally:
                raw.execute("SELECT pg_advisory_unlock(hashtext(%s))", (lock,))

    def typed(self, conn):
        """The connection, able to send and read vectors as numpy arrays (pooled connections are
        shared with code that never needs it; registering is a few dictionary entries)."""
        register_vector_info(conn.raw, self._vector_type)
        return conn

    def put(self, conn, rows: Sequence[tuple[int, Scope, str]], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        self.typed(conn).executemany(
            f"INSERT INTO {self.table}(memory_id, user, kind, session, agent, application, embedding)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id) DO UPDATE SET user = excluded.user,"
            " kind = excluded.kind, session = excluded.session, agent = excluded.agent,"
            " application = excluded.application, embedding = excluded.embedding",
            [(mid, scope.user, kind, scope.session, scope.agent, scope.application, vector)
             for (mid, scope, kind), vector in zip(rows, vectors)])

    def neighbourhood(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        query = np.asarray(vector, np.float32).reshape(-1)
        rows = []
        if np.any(query) and k > 0:   # a zero query vector (no known token) has no direction
            with self.db.pipelined() as conn:   # BEGIN, the way's settings and the search in one round trip
                sql, params = self._search(conn, query, scope, kinds, k)
                # Vectors in binary: 200 of them as text would be 0.8 MB to write out and parse.
                rows = self.typed(conn).raw.cursor(binary=True).execute(translated(sql), params).fetchall()
        if not rows:
            return np.empty(0, np.int64), np.empty((0, self.dimensions), np.float32)
        # An iterative scan in relaxed order may return a slightly later row first: sort again.
        rows.sort(key=lambda row: (row[1], row[0]))
        return (np.array([memory_id for memory_id, _, _ in rows], np.int64),
                np.stack([embedding.to_numpy() for _, _, embedding in rows]).astype(np.float32, copy=False))

    def _search(self, conn, query: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[str, tuple]:
        """The statement finding the scope's nearest k and their vectors, its way chosen by the
        user's share and set for the rest of ``conn``'s transaction; and its parameters."""
        clause, params = ["user = ?"], [scope.user]   # the empty user is a user like any other
        for name in ("session", "agent", "application"):
            if value := getattr(scope, name):
                clause.append(f"{name} = ?")
                params.append(value)
        if kinds:
            clause.append(f"kind IN ({','.join('?' * len(kinds))})")
            params.extend(kinds)
        share = self._share(conn, scope.user)
        if share >= HNSW_SHARE:
            # No sorting, so through the graph; candidates for k of the user's rows in one pass.
            ef = min(max(EF_SEARCH, math.ceil(k * EF_MARGIN / share)), 1000)
            conn.execute("SELECT set_config('enable_sort', 'off', true), set_config('hnsw.ef_search', ?, true),"
                         " set_config('hnsw.iterative_scan', 'relaxed_order', true),"
                         " set_config('hnsw.max_scan_tuples', ?, true)", (str(ef), str(MAX_SCAN_TUPLES)))
        else:   # no index scan (neither graph nor btree): a bitmap of the user's rows, then a sort
            conn.execute("SELECT set_config('enable_indexscan', 'off', true)")
        return (f"SELECT memory_id, embedding <=> ? AS distance, embedding FROM {self.table}"
                f" WHERE {' AND '.join(clause)} ORDER BY distance LIMIT ?", (query, *params, k))

    def _share(self, conn, user: str) -> float:
        """The user's share of the table's rows as the planner's statistics have it; 0 for a user
        who is not among the most common values, or before the table was first analysed. The
        statistics change only when the table is analysed, and reading them through pg_stats
        (the view a login that is not a superuser may read) took 9 ms of a search on a busy
        server: they are read once for every user, again after ``SHARES_FOR_S``."""
        if time.monotonic() - self._shares_read > SHARES_FOR_S:
            row = conn.execute("SELECT most_common_vals::text::text[], most_common_freqs FROM pg_stats"
                               " WHERE schemaname = ANY(current_schemas(false)) AND tablename = ?"
                               " AND attname = 'user'", (self.table,)).fetchone()
            self._shares = dict(zip(*row)) if row and row[0] else {}
            self._shares_read = time.monotonic()
        return self._shares.get(user, 0.0)

    def count(self) -> int:
        return self.db.query_one(f"SELECT count(*) FROM {self.table}")[0]

    def warm(self, user: str) -> None:
        """Nothing to load: the server holds the index, for every user and every Engram at once.
        A graph an older version built with other parameters is built again, beside it, in a
        thread of its own (``regraph_later``)."""
        self.regraph_later()

    def each(self, batch: int = EACH_BATCH) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        # By memory id, a batch per statement: no transaction stays open while the caller works.
        after = 0
        while True:
            with self.db.transaction() as conn:
                cursor = self.typed(conn).raw.cursor(binary=True)
                rows = cursor.execute(f'SELECT memory_id, embedding FROM {self.table} WHERE memory_id > %s'
                                      ' ORDER BY memory_id LIMIT %s', (after, batch)).fetchall()
            if not rows:
                return
            yield (np.array([r[0] for r in rows], np.int64),
                   np.stack([r[1].to_numpy() for r in rows]).astype(np.float32, copy=False))
            after = rows[-1][0]

    @contextmanager
    def loading(self) -> Iterator[None]:
        """For loading many vectors at once (moving data, benchmarks): the HNSW index is dropped,
        and built again at the end over all rows, which is many times faster than growing it row
        by row. Searches meanwhile are exact (and slow)."""
        with self.db.transaction() as conn:
            conn.execute(f"DROP INDEX IF EXISTS {self.table}_hnsw")
        try:
            yield
        finally:
            with self.db.transaction() as conn:
                self._build_graph(conn)
                conn.execute(f"ANALYZE {self.table}")
            self._shares_read = -math.inf

    @staticmethod
    def remove_everywhere(conn, memory_ids: Sequence[int]) -> None:
        ids = [int(i) for i in memory_ids]
        for model_id in model_ids(conn):
            conn.execute(f"DELETE FROM memory_vec_{model_id} WHERE memory_id = ANY(?)", (ids,))
