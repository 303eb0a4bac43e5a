"""Migration 9: a database whose word indexes were made by the release before it (schema 8, words
not cut by script) is re-indexed in place by an outbox job, resumably, with progress."""

import re

import pytest

from engram.core.storage import database as db_module
from engram.core import paths
from engram.core.memory.search.words import index as word_index, sqlite as sqlite_words
from engram.core.storage.database import Database
from engram.core.storage.migrations import MIGRATIONS
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore

WORDS = SearchOptions(mode="words", k=5, neighbour_weight=0.0, session_weight=0.0)   # words alone
TEXTS = {"alice": ["Bart在圣诞节晚会上跳舞", "我用Python写代码", "我的地址是88号3号楼502室", "記憶力很好"],
         "bob": ["Bart在圣诞节晚会上唱歌"]}


def schema_8_index_text(text: str) -> str:
    """words.index_terms as the release with schema 8 had it (a run of letters swallowed the
    Chinese after it), to build its database as it made them."""
    terms = []
    for token in re.findall(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+|[^\W_]+", text):
        if re.fullmatch(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+", token):
            terms += [token] if len(token) == 1 else [token[i:i + 2] for i in range(len(token) - 1)]
        else:
            terms.append(token.lower())
    return " ".join(terms)


def schema_8_record(conn, memory_id, user, action, actor, old, new):
    """The history line as the release with schema 8 wrote it (no owner column yet)."""
    conn.execute("INSERT INTO memory_history(memory_id, action, actor, old_text, new_text, at)"
                 " VALUES (?, ?, ?, ?, ?, '2026-11-30T00:00:00Z')", (memory_id, action, actor.value, old, new))


@pytest.fixture
def schema_8(tmp_path, monkeypatch):
    """The data folder's database as the release with schema 8 left it: every user's word index made."""
    path = tmp_path / "data" / paths.DATABASE_FILE
    with monkeypatch.context() as old:
        old.setattr(db_module, "MIGRATIONS", [m for m in MIGRATIONS if m.version <= 8])
        old.setattr(db_module, "index_terms", schema_8_index_text)
        old.setattr(sqlite_words, "index_terms", schema_8_index_text)
        old.setattr(MemoryStore, "_record", staticmethod(schema_8_record))
        store = MemoryStore(Database(path), None)
        ids = {text: store.add(text, Scope(user=user, session="s1"), "message").id
               for user, texts in TEXTS.items() for text in texts}
        assert store.db.schema_version() == 8
        assert store.search("圣诞节", Scope(user="alice"), WORDS).hits == []   # the bug this migration mends
        store.db.close()
    return path, ids


def found(store, query, user="alice"):
    return [hit.memory.text for hit in store.search(query, Scope(user=user), WORDS).hits]


def test_a_schema_8_database_is_reindexed_by_an_outbox_job(schema_8, make_engram):
    _, ids = schema_8
    engram = make_engram()
    assert engram.db.schema_version() == MIGRATIONS[-1].version
    assert [job.kind for job in engram.outbox.jobs("pending")] == [word_index.REINDEX_JOB]
    assert word_index.left_to_reindex(engram.db) == len(ids)
    engram.outbox.run_due()
    assert [job.kind for job in engram.outbox.jobs("done")] == [word_index.REINDEX_JOB]
    assert word_index.left_to_reindex(engram.db) == 0
    assert found(engram.store, "圣诞节") == ["Bart在圣诞节晚会上跳舞"]
    assert found(engram.store, "圣诞节", "bob") == ["Bart在圣诞节晚会上唱歌"]
    assert found(engram.store, "Python") == ["我用Python写代码"]
    assert found(engram.store, "3号楼") == ["我的地址是88号3号楼502室"]
    assert found(engram.store, "记忆") == ["記憶力很好"]
    # each memory is in its index once: the old words are gone, not kept beside the new ones
    table = word_index.searched(engram.db, "alice")
    assert word_index.documents(engram.db, table) == len(TEXTS["alice"])
    assert engram.db.query(f"SELECT rowid FROM {table} WHERE {table} MATCH 'bart在圣诞节晚会上跳舞'") == []


def test_a_new_database_has_nothing_to_reindex(make_engram):
    engram = make_engram()
    engram.store.add("Bart在圣诞节晚会上跳舞", Scope(user=engram.user))
    assert engram.outbox.jobs() == []
    assert word_index.left_to_reindex(engram.db) == 0
    assert found(engram.store, "圣诞节", engram.user) == ["Bart在圣诞节晚会上跳舞"]


def test_an_interrupted_reindex_does_only_what_is_left(schema_8):
    path, ids = schema_8
    store = MemoryStore(Database(path), None)
    told = []

    def crash_after_two(done, total):
        told.append((done, total))
        if done == 2:
            raise KeyboardInterrupt   # e.g. the window closed

    with pytest.raises(KeyboardInterrupt):
        word_index.reindex(store.db, crash_after_two, batch=2)
    assert word_index.left_to_reindex(store.db) == len(ids) - 2
    changed = store.update(ids["記憶力很好"], text="記憶力不錯")   # indexed anew now, and once more below
    told.clear()
    assert word_index.reindex(store.db, lambda done, total: told.append((done, total)), batch=2) == len(ids) - 2
    assert told == [(2, 3), (3, 3)]
    assert found(store, "圣诞节", "bob") == ["Bart在圣诞节晚会上唱歌"]
    assert found(store, "记忆") == [changed.text]
    assert word_index.reindex(store.db) == 0
