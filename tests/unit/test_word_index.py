"""Each backend's word index (SQLite's FTS5 tables, PostgreSQL's keys under GIN) through the calls
the store makes: the same terms, BM25 scores equal to FTS5's bm25(), every user's words apart."""

import threading

import pytest

from engram.core.memory.records import content_hash, now_iso
from engram.core.memory.scope import Scope
from engram.core.memory.search import words
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.search.words import postgres as pg_words, tokens
from engram.core.storage import open_database
from engram.core.storage.database import Database

pytestmark = pytest.mark.both_backends

ALICE = Scope(user="alice")
WORDS = SearchOptions(mode="words", k=20)


def remember(db, text: str, user: str = "alice", session: str = "s", kind: str = "fact") -> int:
    """A memory stored as the store stores it: its row, then its words, in one transaction."""
    with db.transaction() as conn:
        at = now_iso()
        conn.execute("INSERT INTO memories(user, session, kind, text, created_at, updated_at, content_hash)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?)", (user, session, kind, text, at, at, content_hash(text)))
        memory_id = conn.last_insert_rowid()
        words.for_database(db).index(conn, [(memory_id, user, text)])
    return memory_id


def forget(db, memory_id: int, user: str = "alice") -> None:
    with db.transaction() as conn:
        words.for_database(db).unindex(conn, user, [memory_id])
        conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))


def ranked(db, query: str, scope: Scope = ALICE, options: SearchOptions = WORDS) -> list[tuple[int, float]]:
    return words.for_database(db).ranked(db, query, scope, options)


def found(db, query: str, scope: Scope = ALICE) -> list[int]:
    return [memory_id for memory_id, _ in ranked(db, query, scope)]


def test_chinese_is_found_by_its_bigrams_and_traditional_as_simplified(db):
    taiwan = remember(db, "我們在臺灣的記憶")
    memory = remember(db, "我的记忆力不太好")
    bart = remember(db, "Bart在圣诞节晚会上跳舞")
    assert found(db, "台湾") == [taiwan]
    assert set(found(db, "記憶")) == {taiwan, memory}
    assert found(db, "圣诞节") == found(db, "聖誕節") == found(db, "bart") == [bart]


def test_mixed_scripts_digits_and_a_lone_character(db):
    code = remember(db, "我用Python写代码")
    home = remember(db, "88号3号楼502室")
    peanut = remember(db, "我对花生过敏")
    assert found(db, "python") == found(db, "写代码") == [code]
    assert found(db, "3号楼") == [home]
    assert found(db, "花") == [peanut]          # a lone character finds the bigrams it begins


def test_english_is_stemmed_as_fts5_porter_stems_it(db):
    running = remember(db, "I went running with the dogs")
    remember(db, "a quiet evening at home")
    assert found(db, "run") == found(db, "runs") == found(db, "dog") == [running]


def test_scores_are_fts5s_bm25_of_the_users_memories_alone(db, tmp_path):
    """Among other users' memories, and after deletes, a user's scores equal FTS5's bm25() in a
    SQLite database that holds only that user's memories: per-user statistics, kept exact."""
    alice = [f"{a} {b} walk today" for a in ("red", "blue", "green") for b in ("dog", "cat", "bird")]
    alice += ["the dog and the other dog, dog again", "红色的狗在散步", "紅色的貓"]
    for n, text in enumerate([f"dog {a} {b}" for a in ("red", "tall", "old") for b in ("cat", "hat", "car")] * 2):
        remember(db, text, user=f"user{n % 3}", session=f"s{n}")
    ids = {text: remember(db, text) for text in alice}
    forget(db, ids.pop("green bird walk today"))
    forget(db, remember(db, "red red red dog walk"))
    alone = Database(tmp_path / "alone.sqlite")
    alone_ids = {text: remember(alone, text) for text in ids}
    for query in ("red dog", "blue bird walk", "cat", "dog", "红色", "狗", "walk green today"):
        among = {memory_id: score for memory_id, score in ranked(db, query)}
        only = {ids[text]: score for text, score in
                ((t, s) for memory_id, s in ranked(alone, query) for t in ids if alone_ids[t] == memory_id)}
        assert among == pytest.approx(only, rel=1e-9) and among, query
    alone.close()


def test_better_matches_rank_first(db):
    once = remember(db, "a tarantula in the garden, among many other things said about the weather")
    twice = remember(db, "tarantula, my tarantula")
    remember(db, "nothing about spiders")
    assert found(db, "tarantula") == [twice, once]


def test_no_word_crosses_from_one_user_to_another(db):
    mine = remember(db, "peanut allergy")
    bobs = [remember(db, f"peanut butter note {n}", user="bob") for n in range(5)]
    assert found(db, "peanut") == [mine]
    assert set(found(db, "peanut", Scope(user="bob"))) == set(bobs)
    assert found(db, "butter") == [] and found(db, "peanut", Scope(user="carol")) == []


def test_the_rest_of_the_scope_is_in_the_search(db):
    here = remember(db, "the museum was closed", session="s1", kind="message")
    there = remember(db, "museum trip", session="s2", kind="fact")
    assert found(db, "museum", Scope(user="alice", session="s1")) == [here]
    assert found(db, "museum", Scope(user="alice", session="s2")) == [there]
    only_facts = SearchOptions(mode="words", kinds=("fact",))
    assert [i for i, _ in ranked(db, "museum", ALICE, only_facts)] == [there]


def test_common_terms_still_score_what_rare_ones_find(db, monkeypatch):
    monkeypatch.setattr(tokens, "COMMON_AT_LEAST", 3)     # "hiking" is common here
    texts = ["hiking again", "hiking with the kids", "hiking up the hill", "museum trip, no hiking",
             "the museum was closed"]
    ids = {text: remember(db, text) for text in texts}
    remember(db, "hiking to the museum", user="bob")
    assert set(found(db, "museum hiking")) == {ids["museum trip, no hiking"], ids["the museum was closed"]}
    assert set(found(db, "hiking")) == {ids[t] for t in texts if "hiking" in t}


def test_matches_are_found_behind_better_ones_of_other_sessions(db):
    for n in range(6):
        remember(db, "tuna " * 3, session=f"other{n}")
    mine = remember(db, "tuna salad for lunch, with many other words", session="mine")
    one = SearchOptions(mode="words", candidates=1)
    assert [i for i, _ in ranked(db, "tuna", Scope(user="alice", session="mine"), one)] == [mine]


def test_a_changed_text_is_found_by_its_new_words_only(db):
    memory_id = remember(db, "peanut allergy")
    with db.transaction() as conn:
        conn.execute("UPDATE memories SET text = ? WHERE id = ?", ("almond allergy", memory_id))
        words.for_database(db).unindex(conn, "alice", [memory_id])
        words.for_database(db).index(conn, [(memory_id, "alice", "almond allergy")])
    assert found(db, "almond") == found(db, "allergy") == [memory_id]
    assert found(db, "peanut") == []


def test_postgres_stores_keys_of_the_users_terms_and_no_text(postgres_url):
    db = open_database(postgres_url)
    memory_id = remember(db, "Peanuts, 花生, peanut 花园")
    keys, repeats, length = db.query_one("SELECT keys, repeats, length FROM memory_words WHERE memory_id = ?",
                                         (memory_id,))
    alice = {token: pg_words.key("alice", token) for token in ("peanut", "花生", "花园", "花*")}
    assert length == 4 and sorted(keys) == sorted(alice.values())
    assert sorted(repeats) == sorted([alice["peanut"], alice["花*"]])
    assert pg_words.key("bob", "peanut") not in keys
    postings = db.query("SELECT key, tf, length FROM word_postings WHERE memory_id = ?", (memory_id,))
    assert sorted(postings) == sorted((k, 1 + repeats.count(k), 4) for k in keys)
    db.close()


def test_postgres_postings_follow_each_memorys_keys_however_it_goes(postgres_url):
    """word_postings is kept by memory_words' triggers: added with a memory's row, moved when the
    row changes, gone when it goes, through the word index or a delete cascading from memories."""
    db = open_database(postgres_url)
    first, second = remember(db, "tea in the garden"), remember(db, "garden gate")

    def postings() -> dict[int, int]:
        return dict(db.query("SELECT memory_id, count(*) FROM word_postings GROUP BY memory_id"))

    assert postings() == {first: 4, second: 2}   # FTS5 keeps "in" and "the"
    db.execute("UPDATE memory_words SET keys = ?, repeats = NULL, length = 1 WHERE memory_id = ?",
               ([pg_words.key("alice", "gate")], first))
    assert postings() == {first: 1, second: 2}
    assert db.query_one("SELECT length FROM word_postings WHERE memory_id = ?", (first,)) == (1,)
    db.execute("DELETE FROM memories WHERE id = ?", (first,))
    assert postings() == {second: 2}
    forget(db, second)
    assert postings() == {}
    db.close()


def test_postgres_upgrade_makes_the_postings_of_memories_indexed_before(postgres_url, monkeypatch):
    """A database indexed before migration 10 (memory_words alone, under a GIN index): the upgrade
    makes each memory's postings, and searches find what they found before."""
    from engram.core.storage import postgres

    monkeypatch.setattr(postgres, "MIGRATIONS", [m for m in postgres.MIGRATIONS if m.version < 10])
    old = open_database(postgres_url)
    ids = [remember(old, text) for text in ("peanut butter and 花生酱", "a peanut allergy", "the garden")]
    assert old.query_one("SELECT to_regclass('word_postings')") == (None,)
    old.close()
    monkeypatch.undo()
    db = open_database(postgres_url)
    assert db.schema_version() == postgres.MIGRATIONS[-1].version
    assert db.query_one("SELECT count(*) FROM word_postings")[0] == \
        db.query_one("SELECT sum(cardinality(keys)) FROM memory_words")[0]
    assert sorted(found(db, "peanut")) == ids[:2] and found(db, "花生") == [ids[0]]
    assert db.query_one("SELECT to_regclass('memory_words_by_key')") == (None,)
    assert db.query_one("SELECT reloptions FROM pg_class WHERE relname = 'word_postings'") == \
        (["autovacuum_vacuum_insert_scale_factor=0.02"],)
    db.close()


def test_postgres_indexes_memories_stored_without_their_words(postgres_url):
    """Rows put in ``memories`` by other means than the store (data moved onto the server) are
    found by words once ``reindex`` has run, a batch per transaction, with progress."""
    db = open_database(postgres_url)
    with db.transaction() as conn:
        at = now_iso()
        for text in ["the blue door", "a red gate", "蓝色的门"]:
            conn.execute("INSERT INTO memories(user, session, kind, text, created_at, updated_at, content_hash)"
                         " VALUES ('alice', 's', 'fact', ?, ?, ?, ?)", (text, at, at, content_hash(text)))
    index = words.for_database(db)
    assert found(db, "door") == [] and index.left_to_reindex(db) == 3
    told = []
    assert index.reindex(db, lambda done, total: told.append((done, total)), batch=2) == 3
    assert told == [(2, 3), (3, 3)] and index.left_to_reindex(db) == 0 and index.reindex(db) == 0
    assert len(found(db, "door")) == len(found(db, "蓝色")) == 1
    # vacuumed: searches read the postings from their index alone, not their table's pages too
    assert db.query_one("SELECT relallvisible, relpages FROM pg_class WHERE relname = 'word_postings'") == (1, 1)
    db.close()


def test_postgres_statistics_stay_exact_under_concurrent_writers(postgres_url):
    """Four threads add and delete one user's memories at once, each change a transaction of its
    own: no deadlock, and every count equals a recount of the stored keys."""
    db = open_database(postgres_url)

    def write(worker: int) -> None:
        for n in range(15):
            memory_id = remember(db, f"worker {worker} note {n}: the garden and the 花园", session=f"w{worker}")
            if n % 3 == 0:
                forget(db, memory_id)

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert db.query_one("SELECT documents, tokens FROM word_users WHERE user = 'alice'") == \
        db.query_one("SELECT count(*), sum(length) FROM memory_words") == (40, 40 * 9)
    recount = dict(db.query("SELECT k, count(*) FROM memory_words, unnest(keys) k GROUP BY k"))
    assert dict(db.query("SELECT key, documents FROM word_counts")) == recount
    assert dict(db.query("SELECT key, count(*) FROM word_postings GROUP BY key")) == recount
    assert len(found(db, "garden")) == 40
    db.close()


def test_scores_with_common_terms_are_fts5s_bm25(db, tmp_path, monkeypatch):
    """Where some terms are common (a second search on SQLite, the same one on PostgreSQL), the
    scores and the best few inside a scope still equal FTS5's bm25()."""
    monkeypatch.setattr(tokens, "COMMON_AT_LEAST", 3)     # "walk" and "dog" are common here
    texts = [f"{a} dog walk {b}" for a in ("red", "blue", "green", "old") for b in ("today", "again")]
    texts += ["a red cat", "red red kite", "walk the cat home", "blue kite walk", "the dog"]
    alone = Database(tmp_path / "alone.sqlite")
    ids, alone_texts = {}, {}
    for n, text in enumerate(texts):
        ids[text] = remember(db, text, session=f"s{n % 2}")
        alone_texts[remember(alone, text, session=f"s{n % 2}")] = text
    remember(db, "red dog walk kite", user="bob")
    for scope in (ALICE, Scope(user="alice", session="s1")):
        for query in ("red dog walk", "kite walk", "dog walk", "cat kite dog walk home"):
            for options in (WORDS, SearchOptions(mode="words", candidates=2)):
                among = {memory_id: score for memory_id, score in ranked(db, query, scope, options)}
                only = {ids[alone_texts[memory_id]]: score for memory_id, score in ranked(alone, query, scope, options)}
                assert among == pytest.approx(only, rel=1e-9) and among, (query, scope, options.candidates)
    alone.close()


def statements(db, monkeypatch) -> list[str]:
    """The statements ``db`` runs from now on, outside transactions (as searches do)."""
    ran = []
    query = db.query

    def counted(sql, params=()):
        ran.append(sql)
        return query(sql, params)
    monkeypatch.setattr(db, "query", counted)
    return ran


def test_postgres_searches_in_one_statement_unless_a_term_is_common(postgres_url, monkeypatch):
    """The statistics and the matches come in one round trip to the server; a common term takes
    a second, with ``match_terms``' terms."""
    db = open_database(postgres_url)
    for n in range(5):
        remember(db, f"hiking day {n}")
    remember(db, "museum and hiking")
    ran = statements(db, monkeypatch)
    assert len(found(db, "museum hiking")) == 6 and len(ran) == 1
    monkeypatch.setattr(tokens, "COMMON_AT_LEAST", 3)     # "hiking" is common now
    assert len(found(db, "museum hiking")) == 1 and len(ran) == 3
    db.close()


def test_postgres_coverage_reuses_the_statistics_its_search_read_until_a_write(postgres_url, monkeypatch):
    """``holding`` (coverage, at the merge) counts from what ``ranked`` read, with no statement of
    its own; after a write, or for another user or term, it reads again."""
    db = open_database(postgres_url)
    index = words.for_database(db)
    remember(db, "red dog")
    remember(db, "red cat", user="bob")
    ran = statements(db, monkeypatch)
    every = lambda documents: documents + 1   # noqa: E731
    ranked(db, "red dog")
    assert index.holding(db, "alice", ["red", "dog"], every) == (1, [1, 1]) and len(ran) == 1
    assert index.holding(db, "alice", ["red"], every) == (1, [1]) and len(ran) == 1
    assert index.holding(db, "alice", ["cat"], every) == (1, [0]) and len(ran) == 2     # a term not read
    assert index.holding(db, "bob", ["red"], every) == (1, [1]) and len(ran) == 3
    remember(db, "red fox")
    assert index.holding(db, "alice", ["red", "dog"], every) == (2, [2, 1]) and len(ran) == 4
    assert index.holding(db, "alice", ["red", "dog"], every) == (2, [2, 1]) and len(ran) == 4
    db.close()


def test_sqlite_coverage_counts_no_term_its_search_counted_until_a_write(tmp_path, monkeypatch):
    """On SQLite, too, ``holding`` takes the term counts ``ranked`` made (both went through one
    connection, one after the other); after a write, or for another user or term, it counts again."""
    db = Database(tmp_path / "engram.db")
    index = words.for_database(db)
    remember(db, "red dog")
    remember(db, "red cat", user="bob")
    ran = statements(db, monkeypatch)
    counts = lambda: sum("MATCH ? LIMIT ?" in sql for sql in ran)   # noqa: E731
    as_coverage = lambda documents: max(tokens.COMMON_AT_LEAST, int(documents * tokens.COMMON_SHARE)) + 1   # noqa: E731
    ranked(db, "red dog")
    assert counts() == 2
    assert index.holding(db, "alice", ["red", "dog"], as_coverage) == (1, [1, 1]) and counts() == 2
    assert index.holding(db, "alice", ["cat"], as_coverage) == (1, [0]) and counts() == 3     # a term not counted
    assert index.holding(db, "bob", ["red"], as_coverage) == (1, [1]) and counts() == 4
    remember(db, "red fox")
    assert index.holding(db, "alice", ["red", "dog"], as_coverage) == (2, [2, 1]) and counts() == 6
    with db.transaction():    # what a transaction counts may never be committed: not kept
        assert index.holding(db, "alice", ["red", "dog"], as_coverage) == (2, [2, 1]) and counts() == 8
    db.close()
