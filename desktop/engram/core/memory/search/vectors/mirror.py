"""A user's vectors held in memory in compact form, so that nearest-neighbour search is fast.

vec0 reads and compares every float vector of a user's partition on every query: 165 ms at
100k memories on a laptop CPU. The mirror keeps, per vector, one bit per dimension (48 bytes
for 384 dimensions, stored word by word so a scan is a few vectorised passes) and an int8 copy
(384 bytes). A query ranks every vector by Hamming distance to its own bits, then rescores the
best ``OVERSAMPLE`` × k (at least ``SHORTLIST_MIN``) by the int8 copies and returns cosine
distances. Measured with tests/bench/quantisation.py (90k real MiniLM vectors, 300 LoCoMo
questions, k = 200): of the exact top 10, top 50 and top 200, 99.6%, 99.7% and 97.3% are found
(8× oversampling: 99.6/99.7/98.8%, for three times the scan time).

The bits are signs around a centre, not around 0. Some models' vectors all share one large
direction (multilingual-e5-small: unrelated texts have cosine ~0.75), so their plain sign bits are
nearly the same for every memory and the Hamming shortlist is close to random. Each copy takes
as its centre the mean of its own vectors, and both its rows' bits and a query's bits are signs
of (unit vector − centre): one centre per copy, so they always agree. The centre is taken again,
and every row's bits recomputed from the int8 copies (no float vectors needed), whenever the copy
has doubled since the last time: a copy loaded or grown from nothing is centred on a sample at
least half its size, for at most twice the cost of computing its bits once. A reload (from vec0)
starts over. Cosines are still computed on the whole unit vectors. Measured (quantisation.py,
the cached LoCoMo/LongMemEval vectors, 300 LoCoMo questions): e5 (16.5k vectors, k = 200) found
96.3/87.4/64.1% of the exact top 10/50/200 with plain bits, 99.2/99.1/91.9% centred; with k = 10
and a 40-row shortlist 75% → 97%. MiniLM, spread around 0, changes within noise (20.6k vectors:
98.9/99.4/99.2% both ways; 40 rows: 97.2 → 98.0%).

vec0 stays the durable copy. A mirror is loaded from it with the user in the SQL (another
user's vectors are never read), and follows every later change, made by this process or
another, through ``vector_log``, which Vec0Index (table.py) writes in the same transaction as the
vectors themselves. Narrower filters (session, agent, application, kind) are applied to the
mirror's rows here; the search fetches its results with the full scope in SQL again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence

import numpy as np

from engram.core.storage.database import Database
from engram.core.memory.scope import Scope

OVERSAMPLE = 4              # candidates rescored per result wanted
SHORTLIST_MIN = 1000        # candidates rescored at least (so a small collection is ranked exactly)
RELOAD_AFTER = 2000         # changes since the last sync above which reloading is cheaper
BLOCK = 8192                # rows turned back into floats at a time when recentring (memory stays bounded)
METADATA = ("kind", "session", "agent", "application")


def bits_of(vectors: np.ndarray) -> np.ndarray:
    """Sign bits of each row, packed into 64-bit words: shape (rows, words)."""
    packed = np.packbits(vectors > 0, axis=1)
    padding = -packed.shape[1] % 8
    if padding:
        packed = np.pad(packed, ((0, 0), (0, padding)))
    return np.ascontiguousarray(packed).view(np.uint64)


def _grown(array: np.ndarray, capacity: int, axis: int = 0) -> np.ndarray:
    """``array`` with room for ``capacity`` rows along ``axis`` (zeros after its own)."""
    shape = list(array.shape)
    shape[axis] = capacity
    grown = np.zeros(shape, array.dtype)
    grown[(slice(None),) * axis + (slice(0, array.shape[axis]),)] = array
    return grown


class UserVectors:
    """One user's vectors in one embedding model's space (the empty user is a user like any other)."""

    def __init__(self, dimensions: int):
        self.dimensions = dimensions
        self.words = bits_of(np.zeros((1, dimensions), np.float32)).shape[1]
        self.size = 0
        self.seq = 0                                    # the vector_log entry this copy includes
        self.stamp: tuple[int, int] | None = None       # the database's change counters then
        self.ids = np.empty(0, np.int64)
        self.alive = np.empty(0, bool)
        self.bits = np.empty((self.words, 0), np.uint64)  # word-major: a scan reads each word contiguously
        self.int8 = np.empty((0, dimensions), np.int8)
        self.scale = np.empty(0, np.float32)            # int8 × scale = the unit vector
        self.centre = np.zeros(dimensions, np.float32)  # the bits are signs of (unit vector − centre)
        self.centred_at = 0                             # rows when the centre was taken
        self.metadata = np.empty((len(METADATA), 0), np.int32)
        self.codes: list[dict[str, int]] = [{} for _ in METADATA]

    # -- changing ------------------------------------------------------------------------------

    def append(self, ids: np.ndarray, vectors: np.ndarray, metadata: Sequence[tuple[str, ...]]) -> None:
        """Add vectors (float32 rows) with their memory ids and (kind, session, agent, application)."""
        if not len(ids):
            return
        with np.errstate(over="ignore", invalid="ignore"):
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        # A vector damaged on disk (flipped bits: a huge or NaN float) is kept as no direction at
        # all, found by its words only, and says nothing on the terminal.
        norms = np.where(np.isfinite(norms) & np.isfinite(vectors).all(axis=1, keepdims=True), norms, 0)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        peak = np.abs(unit).max(axis=1)
        scale = np.where(peak > 0, peak / 127, 0).astype(np.float32)
        quantised = np.round(np.divide(unit, scale[:, None], out=np.zeros_like(unit), where=scale[:, None] > 0))
        self.reserve(self.size + len(ids))
        at = slice(self.size, self.size + len(ids))
        self.ids[at] = ids
        self.alive[at] = True
        self.int8[at] = quantised.astype(np.int8)
        self.scale[at] = scale
        for column, codes in enumerate(self.codes):
            self.metadata[column, at] = [codes.setdefault(row[column], len(codes)) for row in metadata]
        self.size += len(ids)
        if self.size >= 2 * self.centred_at:
            self._recentre()
        else:
            self.bits[:, at] = bits_of(self._unit(at) - self.centre).T

    def remove(self, memory_ids: Sequence[int]) -> None:
        self.alive[: self.size][np.isin(self.ids[: self.size], memory_ids)] = False
        if self.size > 1000 and np.count_nonzero(self.alive[: self.size]) < self.size * 3 // 4:
            self._compact()

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` rows in all (doubling, so appending one at a time stays cheap)."""
        if rows <= len(self.ids):
            return
        capacity = max(rows, 2 * len(self.ids), 1024)
        self.ids, self.alive, self.int8, self.scale = (_grown(a, capacity)
                                                       for a in (self.ids, self.alive, self.int8, self.scale))
        self.bits, self.metadata = (_grown(a, capacity, axis=1) for a in (self.bits, self.metadata))

    def _unit(self, rows: slice | np.ndarray) -> np.ndarray:
        """The unit vectors of ``rows``, as the int8 copies hold them."""
        return self.int8[rows].astype(np.float32) * self.scale[rows, None]

    def _recentre(self) -> None:
        """Take the mean of the live rows as the centre and recompute every row's bits around it."""
        blocks = [slice(start, min(start + BLOCK, self.size)) for start in range(0, self.size, BLOCK)]
        total = sum((self.alive[b, None] * self._unit(b)).sum(axis=0, dtype=np.float64) for b in blocks)
        live = np.count_nonzero(self.alive[: self.size])
        self.centre = (total / max(live, 1)).astype(np.float32)
        for b in blocks:
            self.bits[:, b] = bits_of(self._unit(b) - self.centre).T
        self.centred_at = self.size

    def _compact(self) -> None:
        """Keep only live rows, in arrays of exactly their size."""
        keep = np.flatnonzero(self.alive[: self.size])
        self.ids, self.alive = self.ids[keep], np.ones(len(keep), bool)
        self.bits, self.int8 = np.ascontiguousarray(self.bits[:, keep]), self.int8[keep]
        self.scale, self.metadata = self.scale[keep], np.ascontiguousarray(self.metadata[:, keep])
        self.size = len(keep)

    # -- searching -----------------------------------------------------------------------------

    def nearest(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Up to k (memory id, cosine distance) pairs inside the scope, nearest first."""
        rows, similarity = self._nearest_rows(vector, scope, kinds, k)
        return [(int(self.ids[row]), float(1.0 - similar)) for row, similar in zip(rows, similarity)]

    def neighbourhood(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """The memory ids and unit vectors (as the int8 copies hold them) of the k nearest, nearest first."""
        rows, _ = self._nearest_rows(vector, scope, kinds, k)
        return self.ids[rows], self._unit(rows)

    def _nearest_rows(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the k nearest inside the scope, nearest first, and their cosine similarities."""
        nothing = np.empty(0, np.int64), np.empty(0, np.float32)
        query = np.asarray(vector, np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        if norm == 0 or self.size == 0:
            return nothing  # a zero query vector (no known token) has no direction
        query = query / norm
        mask = self._mask(scope, kinds)
        if mask is None:
            return nothing
        n = self.size
        distance = np.zeros(n, np.uint16)
        for word, value in enumerate(bits_of(query[None, :] - self.centre)[0]):
            distance += np.bitwise_count(self.bits[word, :n] ^ value)
        distance[~mask] = np.iinfo(np.uint16).max
        shortlist = min(n, max(k * OVERSAMPLE, SHORTLIST_MIN))
        rows = np.argpartition(distance, shortlist - 1)[:shortlist] if shortlist < n else np.arange(n)
        rows = rows[mask[rows]]
        similarity = (self.int8[rows].astype(np.float32) @ query) * self.scale[rows]
        best = np.argsort(-similarity, kind="stable")[:k]
        return rows[best], similarity[best]

    def _mask(self, scope: Scope, kinds: Sequence[str]) -> np.ndarray | None:
        """Which rows the scope and kinds allow; None when none can."""
        mask = self.alive[: self.size].copy()
        wanted = {"session": scope.session, "agent": scope.agent, "application": scope.application}
        for column, name in enumerate(METADATA):
            values = list(kinds) if name == "kind" else [wanted[name]] if wanted[name] else []
            if not values:
                continue
            codes = [self.codes[column][v] for v in values if v in self.codes[column]]
            if not codes:
                return None
            mask &= np.isin(self.metadata[column, : self.size], codes)
        return mask


class VectorMirror:
    """The in-memory copies of one vec0 table, one per user searched, kept in step with it."""

    def __init__(self, db: Database, model_id: int, table: str, dimensions: int):
        self.db, self.model_id, self.table, self.dimensions = db, model_id, table, dimensions
        self._users: dict[str, UserVectors] = {}
        self._lock = threading.Lock()

    def neighbourhood(self, vector: np.ndarray, scope: Scope, kinds: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self._synced(scope.user).neighbourhood(vector, scope, kinds, k)

    def warm(self, user: str) -> None:
        """Load a user's copy now (e.g. in the background at start) rather than at the first search."""
        with self._lock:
            self._synced(user)

    def _synced(self, user: str) -> UserVectors:
        # Nothing committed since the last sync, by this connection or another: nothing to read.
        stamp = self.db.change_stamp()
        copy = self._users.get(user)
        if copy is not None and copy.stamp == stamp:
            return copy
        while copy is None or not self._caught_up(copy, user):
            copy = self._users[user] = self._loaded(user)
        copy.stamp = stamp
        return copy

    def _loaded(self, user: str) -> UserVectors:
        """A fresh copy of the user's vectors, read on the database's second connection, so that
        writes go on meanwhile; ``seq`` is the log position of the same snapshot."""
        with self.db.snapshot() as conn:
            copy = UserVectors(self.dimensions)
            copy.reserve(self._capacity(conn, user))  # growing by doubling would need twice the memory
            for block in stored(conn, self.table, self.dimensions, user):
                copy.append(*self._described(conn, user, *block))
            copy.seq = conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0]
        return copy

    def _caught_up(self, copy: UserVectors, user: str) -> bool:
        """Apply the changes logged since the copy's position; False when the log no longer
        reaches back that far, or when there are so many that reloading is cheaper."""
        with self.db.transaction() as conn:  # one snapshot: the log position and the rows agree
            oldest, newest = conn.execute("SELECT min(seq), max(seq) FROM vector_log").fetchone()
            if newest is None or newest <= copy.seq:
                return True
            changed = [i for (i,) in conn.execute(
                "SELECT DISTINCT memory_id FROM vector_log WHERE seq > ? AND model_id = ?"
                " AND user = ? LIMIT ?", (copy.seq, self.model_id, user, RELOAD_AFTER + 1))]
            if copy.seq < oldest - 1 or len(changed) > RELOAD_AFTER:
                return False
            copy.remove(changed)
            copy.append(*self._described(conn, user, *self._some(conn, changed)))
            copy.seq = newest
            return True

    def _capacity(self, conn, user: str) -> int:
        """Room for every vector of the user: the slots of the user's vec0 chunks."""
        return conn.execute(f"SELECT coalesce(sum(size), 0) FROM {self.table}_chunks WHERE partition00 = ?",
                            (user,)).fetchone()[0]

    def _some(self, conn, memory_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(memory ids, vectors) of those of ``memory_ids`` that have a vector, through vec0's SELECT."""
        rows = [row for memory_id in memory_ids for row in conn.execute(
            f"SELECT memory_id, embedding FROM {self.table} WHERE memory_id = ?", (memory_id,))]
        return (np.array([r[0] for r in rows], np.int64),
                np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), self.dimensions))

    @staticmethod
    def _described(conn, user: str, ids: np.ndarray, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        """The vectors that belong to the user's memories, with each memory's kind, session, agent
        and application, read with the user in the SQL."""
        rows = conn.execute(f"SELECT m.id, {', '.join('m.' + c for c in METADATA)} FROM json_each(?) AS wanted"
                            " CROSS JOIN memories m ON m.id = wanted.value WHERE m.user = ? ORDER BY m.id",
                            (json.dumps(ids.tolist()), user)).fetchall()
        known = np.array([r[0] for r in rows], np.int64)
        position = np.minimum(np.searchsorted(known, ids), max(len(known) - 1, 0))
        keep = known[position] == ids if len(known) else np.zeros(len(ids), bool)
        return ids[keep], vectors[keep], [rows[p][1:] for p in position[keep]]


def stored(conn, table: str, dimensions: int, user: str | None, block: int = BLOCK
           ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(memory ids, vectors) of a vec0 table, of one user or (None) of all, a block at a time
    (memory stays bounded), read from vec0's storage tables: chunks of vectors with a validity
    bitmap and their rowids, one partition value each. vec0's own SELECT reads a partition by
    scanning every user's rows (10 s for one user's 10k vectors among a million); this reads only
    the user's chunks. sqlite-vec is pinned, and a test checks this against vec0's own SELECT."""
    ids: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    mine, params = ("WHERE c.partition00 = ?", (user,)) if user is not None else ("", ())
    for size, validity, rowids, blob in conn.execute(
            f"SELECT c.size, c.validity, c.rowids, v.vectors FROM {table}_chunks c"
            f" JOIN {table}_vector_chunks00 v ON v.rowid = c.chunk_id {mine}", params):
        valid = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[:size].astype(bool)
        ids.append(np.frombuffer(rowids, np.int64)[:size][valid])
        vectors.append(np.frombuffer(blob, np.float32).reshape(size, dimensions)[valid])
        if sum(map(len, ids)) >= block:
            yield np.concatenate(ids), np.concatenate(vectors)
            ids, vectors = [], []
    if ids:
        yield np.concatenate(ids), np.concatenate(vectors)
