"""The memory store: add, get, update, delete, list and the history of every change.

Texts live in ``memories`` and, prepared for words, in their user's word index
(core/memory/search/words/, one per backend); vectors live in the active embedding model's table of
vectors (core/memory/search/vectors/: vec0 or pgvector). All three change in one transaction. A
memory without a vector in the active model's space is "pending": it is still found by words, and
``embed_pending`` fills the gap (after a model change, or when the turn engine defers embedding
to the outbox).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from engram.core.memory.search import words
from engram.core.storage import dialect
from engram.core.storage.database import Database
from engram.core.models.embeddings import Embedder
from engram.core.models.reranker import Reranker
from engram.core.errors import DatabaseError, DiskFull, InvalidInput, NotFound
from engram.core.memory.records import (DISTILLED_KINDS, Actor, Change, Kind, Memory, NewMemory, check_importance,
                                        content_hash, normalise_text, now_iso, parse_kind)
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions, SearchResult
from engram.core.memory.search.searcher import EmbeddingSpace, Searcher
from engram.core.memory.search.vectors import index_type
from engram.core.memory.search.vectors.index import VectorIndex

_COLUMNS = ", ".join(f"m.{column.strip()}" for column in Memory.COLUMNS.split(","))
_SELECT = f"SELECT {_COLUMNS} FROM memories m"


class MemoryStore:
    def __init__(self, db: Database, embedder: Embedder | None):
        self.db = db
        # {(database change stamp, vector table): count}, one entry
        self._pending: dict[tuple, int] = {}
        self._space: tuple[Embedder | None, VectorIndex | None] = (None, None)
        self._vector_type = index_type(db)   # sqlite-vec or pgvector, by the database's engine
        # What a text goes through before it is stored (core/memory/sensitive.py's mask, by setting).
        # File chunks are exempt: they mirror the person's file, which stays as it is.
        self.clean: Callable[[str], str] | None = None
        self.words = words.for_database(db)
        self.searcher = Searcher(db, self.get_many)
        self.use_embedder(embedder)
        # The cross-encoder that reorders the best candidates of every search; None: fusion's order.
        self.reranker: Reranker | None = None

    @property
    def embedder(self) -> Embedder | None:
        """The embedding model in use; None: memories are found by words only."""
        return self._space[0]

    @property
    def vectors(self) -> VectorIndex | None:
        """Its vector index, or None with no embedding model."""
        return self._space[1]

    def use_embedder(self, embedder: Embedder | None) -> Embedder | None:
        """Embed and search with another model from now on (None: words only), while other threads
        use the store, without a restart. The model and its vector table change together in one
        assignment, made under the database's lock, so a transaction never sees them change; work
        that embedded with the old model stores those vectors in the old model's table. What the
        new model lacks is pending (``embed_pending``). Returns the old model, for the caller to close."""
        try:
            vectors = (self._vector_type(self.db, embedder.name, embedder.fingerprint, embedder.dimensions)
                       if embedder is not None else None)
        except (DatabaseError, DiskFull):
            if not (getattr(self.db, "damaged", "") or getattr(self.db, "full", False)):
                raise
            # A database only read (damaged, or a full disk) cannot take a model it has no table
            # for: its memories are found by words, and the model is not used.
            embedder, vectors = None, None
        with self.db.transaction():
            old, self._space = self._space[0], (embedder, vectors)
        return old

    # -- writing -------------------------------------------------------------------------------

    def add(self, text: str, scope: Scope, kind: Kind | str = Kind.FACT, *, actor: Actor | str = Actor.SYSTEM,
            embed: bool = True, **fields) -> Memory:
        """Remember one text. Identical text of the same kind in the same scope is not stored twice."""
        return self.add_many([NewMemory(text, scope, kind, **fields)], actor=actor, embed=embed)[0]

    def add_many(self, items: Sequence[NewMemory], *, actor: Actor | str = Actor.SYSTEM, embed: bool = True,
                 vectors: np.ndarray | None = None) -> list[Memory]:
        """Remember many texts in one transaction; embeddings are computed in batch first, so a
        broken embedding model leaves the store unchanged. Returns the memories in input order."""
        prepared = [self._prepare(item) for item in items]
        actor = Actor(actor)
        embedder, index = self._space
        if vectors is None and embed and embedder is not None and prepared:
            vectors = embedder.embed([p[0] for p in prepared])
        ids: list[int] = []
        fresh: list[tuple[int, int]] = []  # (position in items, memory id) of newly stored ones
        with self.db.transaction() as conn:
            for position, (text, item, kind, chash) in enumerate(prepared):
                existing = conn.execute(
                    "SELECT id FROM memories WHERE application=? AND agent=? AND user=? AND session=?"
                    " AND kind=? AND content_hash=?", (*[v for _, v in item.scope.items()], kind, chash)).fetchone()
                if existing:
                    ids.append(existing[0])
                    continue
                at = item.created_at or now_iso()
                conn.execute(
                    "INSERT INTO memories(application, agent, user, session, kind, text, importance, created_at,"
                    " updated_at, valid_from, source_ids, source, content_hash, pinned)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (*[v for _, v in item.scope.items()], kind, text, item.importance, at, at, at,
                     json.dumps(list(item.source_ids)), json.dumps(item.source, ensure_ascii=False), chash,
                     int(item.pinned)))
                memory_id = conn.last_insert_rowid()
                self._record(conn, memory_id, item.scope.user, "add", actor, None, text)
                ids.append(memory_id)
                fresh.append((position, memory_id))
            self.words.index(conn, [(mid, items[pos].scope.user, prepared[pos][0]) for pos, mid in fresh])
            if vectors is not None and fresh and index is not None:
                index.put(conn, [(mid, items[pos].scope, prepared[pos][2]) for pos, mid in fresh],
                          np.asarray(vectors)[[pos for pos, _ in fresh]])
        return self.get_many(ids)

    def _prepare(self, item: NewMemory) -> tuple[str, NewMemory, str, str]:
        kind = parse_kind(item.kind).value
        text = self._cleaned(item.text, kind)
        check_importance(item.importance)
        if not isinstance(item.scope, Scope):
            raise InvalidInput("scope must be a Scope")
        return text, item, kind, content_hash(text)

    def _cleaned(self, text: str, kind: str) -> str:
        text = normalise_text(text)
        return text if self.clean is None or kind == Kind.FILE.value else normalise_text(self.clean(text))

    def update(self, memory_id: int, *, actor: Actor | str = Actor.USER, text: str | None = None,
               importance: float | None = None, pinned: bool | None = None, kind: Kind | str | None = None,
               valid_to: str | None = None, superseded_by: int | None = None) -> Memory:
        """Change a memory; a new text is re-indexed and re-embedded in the same transaction."""
        old = self.get(memory_id)
        changes: dict[str, object] = {}
        new_text = None
        if text is not None:
            new_text = self._cleaned(text, old.kind.value)
            if new_text != old.text:
                changes |= {"text": new_text, "content_hash": content_hash(new_text)}
        if importance is not None:
            changes["importance"] = check_importance(importance)
        if pinned is not None:
            changes["pinned"] = int(pinned)
        if kind is not None:
            changes["kind"] = parse_kind(kind).value
        if valid_to is not None:
            changes["valid_to"] = valid_to
        if superseded_by is not None:
            newer = self.get(superseded_by)
            changes["superseded_by"] = superseded_by
        if not changes:
            return old
        vector = None
        embedder, index = self._space
        if "text" in changes and embedder is not None:
            vector = embedder.embed([new_text])
        with self.db.transaction() as conn:
            assignments = ", ".join(f"{column} = ?" for column in changes)
            try:
                conn.execute(f"UPDATE memories SET {assignments}, updated_at = ? WHERE id = ?",
                             (*changes.values(), now_iso(), memory_id))
            except Exception as e:
                if dialect.of(self.db).is_duplicate(e):     # the same text, kind and scope
                    raise InvalidInput("an identical memory already exists in this scope",
                                       hint="edit or delete the one that exists instead") from e
                raise
            if "text" in changes:
                self.words.unindex(conn, old.scope.user, [memory_id])
                self.words.index(conn, [(memory_id, old.scope.user, new_text)])
            if "text" in changes or "kind" in changes:
                self._vector_type.remove_everywhere(conn, [memory_id])
            if index is not None and ("text" in changes or "kind" in changes):
                if vector is None:
                    vector = embedder.embed([old.text])
                index.put(conn, [(memory_id, old.scope, changes.get("kind", old.kind.value))], vector)
            self._record(conn, memory_id, old.scope.user, "update", Actor(actor), old.text, new_text or old.text)
            if "superseded_by" in changes and old.kind in DISTILLED_KINDS:
                self._outdate_sources(conn, old, newer.valid_from or newer.created_at)
        return self.get(memory_id)

    def _outdate_sources(self, conn, note: Memory, at: str) -> None:
        """A note was superseded: the archived messages it came from that no current note speaks
        for any more (every note taken from them is superseded: "I live in Leeds" after the move)
        are valid until ``at``. They stay, found by search as history (include_superseded)."""
        kinds = [kind.value for kind in DISTILLED_KINDS]
        sql = dialect.of(self.db)
        for message_id in note.source_ids:
            if conn.execute(f"SELECT 1 FROM memories n CROSS JOIN {sql.ints('n.source_ids', 'said')} WHERE n.user = ?"
                            f" AND n.kind IN ({','.join('?' * len(kinds))}) AND n.superseded_by IS NULL"
                            " AND said.value = ? LIMIT 1", (note.scope.user, *kinds, message_id)).fetchone():
                continue
            conn.execute(f"UPDATE memories{sql.indexed_by('memories_by_message')} SET valid_to = ? WHERE user = ?"
                         " AND kind = 'message' AND source_ids = ? AND valid_to IS NULL",
                         (at, note.scope.user, json.dumps([message_id])))

    def delete(self, memory_id: int, *, actor: Actor | str = Actor.USER) -> None:
        """Delete a memory: its row, vectors, word-index entry and old texts in the history. The
        index keeps the words' bytes until it is merged and the write-ahead log keeps old pages until
        a checkpoint: ``engram.core.forget.forget_memory`` does both, and forgets what was made from it."""
        user = self.get(memory_id).scope.user
        with self.db.transaction() as conn:
            self.words.unindex(conn, user, [memory_id])
            self._vector_type.remove_everywhere(conn, [memory_id])
            conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
            # The delete's line first, then the older ones go: SQLite would give a line after them
            # the id of the newest one erased, and the newest id is the mark of core/memory/changes.py.
            line = self._record(conn, memory_id, user, "delete", Actor(actor), None, None)
            conn.execute("DELETE FROM memory_history WHERE memory_id = ? AND id < ?", (memory_id, line))

    def delete_where(self, scope: Scope, kinds: Sequence[str] = (), *, actor: Actor | str = Actor.USER) -> int:
        """Forget every memory inside a scope (e.g. a deleted session); returns how many."""
        ids = [m.id for m in self.list(scope, kinds=kinds, limit=None)]
        for memory_id in ids:
            self.delete(memory_id, actor=actor)
        return len(ids)

    def mark_accessed(self, memory_ids: Iterable[int]) -> None:
        """Count a recall (used for recency of use; not a change, so no history line)."""
        at = now_iso()
        with self.db.transaction() as conn:
            conn.executemany("UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?"
                             " WHERE id = ?", [(at, i) for i in memory_ids])

    @staticmethod
    def _record(conn, memory_id: int, user: str, action: str, actor: Actor, old: str | None, new: str | None) -> int:
        """A line in the memory's history; returns its id."""
        conn.execute("INSERT INTO memory_history(memory_id, user, action, actor, old_text, new_text, at)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?)", (memory_id, user, action, actor.value, old, new, now_iso()))
        return conn.last_insert_rowid()

    # -- reading -------------------------------------------------------------------------------

    def get(self, memory_id: int, scope: Scope | None = None) -> Memory:
        """One memory; with a scope, a memory outside it is reported as not found."""
        clause, params = (scope or Scope()).sql()
        row = self.db.query_one(f"{_SELECT} WHERE m.id = ? AND {clause}", (memory_id, *params))
        if row is None:
            raise NotFound(f"there is no memory #{memory_id}", hint="list memories to see their ids")
        return Memory.from_row(row)

    def get_many(self, memory_ids: Sequence[int], scope: Scope | None = None) -> list[Memory]:
        """Memories by id, in the order asked, skipping ids outside the scope or gone."""
        if not memory_ids:
            return []
        clause, params = (scope or Scope()).sql()
        # CROSS JOIN keeps the ids as the outer loop; SQLite would otherwise walk the user's index.
        # (The join's condition is in WHERE: PostgreSQL's CROSS JOIN takes no ON.)
        rows = self.db.query(f"SELECT {_COLUMNS} FROM {dialect.of(self.db).ints('?', 'wanted')} CROSS JOIN memories m"
                             f" WHERE m.id = wanted.value AND {clause}", (json.dumps(list(memory_ids)), *params))
        by_id = {row[0]: Memory.from_row(row) for row in rows}
        return [by_id[i] for i in memory_ids if i in by_id]

    def list(self, scope: Scope, *, kinds: Sequence[str] = (), contains: str = "", limit: int | None = 100,
             offset: int = 0, newest_first: bool = True, pinned_first: bool = False,
             ids: Sequence[int] | None = None) -> list[Memory]:
        """Memories in a scope, newest first (pinned ones before the rest with ``pinned_first``),
        optionally only of some kinds, holding some words, or among ``ids``."""
        clause, params = scope.sql()
        if ids is not None:
            clause += f" AND m.id IN (SELECT value FROM {dialect.of(self.db).ints('?', 'wanted')})"
            params.append(json.dumps(list(ids)))
        if kinds:
            clause += f" AND m.kind IN ({','.join('?' * len(kinds))})"
            params += [parse_kind(k).value for k in kinds]
        if contains:
            clause += f" AND {dialect.of(self.db).contains('m.text')}"
            params.append(contains)
        order = "DESC" if newest_first else "ASC"
        pins = "m.pinned DESC, " if pinned_first else ""
        rows = self.db.query(f"{_SELECT} WHERE {clause} ORDER BY {pins}m.created_at {order}, m.id {order}"
                             " LIMIT ? OFFSET ?", (*params, dialect.NO_LIMIT if limit is None else limit, offset))
        return [Memory.from_row(r) for r in rows]

    def salvage(self, scope: Scope, kinds: Sequence[str] = ()) -> tuple[builtins.list[Memory], builtins.list[str]]:
        """The scope's memories that a damaged database still gives, newest first, and the ids of
        those it does not (``Database.salvage``): what `engram memory list` shows when a list fails."""
        clause, params = scope.sql()
        if kinds:
            clause += f" AND m.kind IN ({','.join('?' * len(kinds))})"
            params += [parse_kind(k).value for k in kinds]
        rows, lost = self.db.salvage("memories", _COLUMNS, clause, params)
        memories = []
        for row in rows:
            try:
                memories.append(Memory.from_row(row))
            except (ValueError, InvalidInput):     # a field that no longer parses (its JSON, its scope)
                lost.append(f"#{row[0]}")
        return memories[::-1], lost

    def count(self, scope: Scope = Scope()) -> int:
        clause, params = scope.sql()
        return self.db.query_one(f"SELECT count(*) FROM memories m WHERE {clause}", params)[0]

    def history(self, memory_id: int, user: str | None = None) -> builtins.list[Change]:
        """Every change to a memory, also after it was forgotten; with ``user``, only if it was
        theirs (another user's memory, forgotten or not, is reported as never existing)."""
        mine, params = ("", (memory_id,)) if user is None else (" AND user = ?", (memory_id, user))
        rows = self.db.query("SELECT memory_id, action, actor, old_text, new_text, at FROM memory_history"
                             f" WHERE memory_id = ?{mine} ORDER BY id", params)
        if not rows:
            raise NotFound(f"memory #{memory_id} has no history: it never existed")
        return [Change(*r) for r in rows]

    def search(self, query: str, scope: Scope, options: SearchOptions = SearchOptions()) -> SearchResult:
        embedder, vectors = self._space   # of now, together: a switch meanwhile cannot mix two models
        space = None if embedder is None or vectors is None else EmbeddingSpace(
            embedder, vectors, lambda: self._pending_in(vectors))
        return self.searcher.search(query, scope, options, space, self.reranker)

    def warm(self, user: str) -> None:
        """Load the user's vectors for search now (seconds at 100k memories), and make their word
        index if an upgrade left it to be made (a minute at a million), not at the first search."""
        self.words.warm(self.db, user)
        if (vectors := self.vectors) is not None:
            vectors.warm(user)

    # -- embedding upkeep ----------------------------------------------------------------------

    def pending_embeddings(self) -> int:
        """How many memories the active embedding model has not embedded yet. Remembered until the
        database changes (this connection's or another's): every search asks, and counting two
        tables at a million memories costs more than the search itself."""
        return 0 if (vectors := self.vectors) is None else self._pending_in(vectors)

    def _pending_in(self, vectors: VectorIndex) -> int:
        key = (self.db.change_stamp(), vectors.table)
        if (count := self._pending.get(key)) is None:
            count = self.count() - vectors.count()
            self._pending.clear()
            self._pending[key] = count
        return count

    def embed_pending(self, batch: int = 64, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed memories that lack a vector in the active model's space. Resumable: it only ever
        looks at what is still missing, so an interrupted run continues where it stopped, and after
        a switch of model (``use_embedder``) the next batch is the new model's."""
        total, done = self.pending_embeddings(), 0
        while True:
            embedder, index = self._space
            if embedder is None or not (rows := index.missing(batch)):
                return done
            vectors = embedder.embed([r[1] for r in rows])
            with self.db.transaction() as conn:
                alive = {i for (i,) in conn.execute(
                    f"SELECT id FROM memories WHERE id IN ({','.join('?' * len(rows))})", [r[0] for r in rows])}
                keep = [n for n, r in enumerate(rows) if r[0] in alive]
                index.put(conn, [(rows[n][0], Scope(*rows[n][3:7]), rows[n][2]) for n in keep], vectors[keep])
            done += len(rows)
            if progress:
                progress(done, total)
