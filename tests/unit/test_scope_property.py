"""No search, list or get with scope A ever returns a record outside scope A."""

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.core.errors import NotFound
from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore
from fakes import FakeEmbedder

pytestmark = pytest.mark.both_backends

users = st.sampled_from(["ann", "ben", "chen", "dua"])
sessions = st.sampled_from(["", "s1", "s2"])
words = st.sampled_from("peanut allergy train 花生 过敏 lyon paris tea jazz bike".split())
texts = st.lists(words, min_size=1, max_size=5).map(" ".join)
records = st.lists(st.tuples(users, sessions, texts), min_size=1, max_size=25)


# One database for every example (a fresh server schema each would take longer than the example):
# each example's users are its own, and the other examples' memories are more that must not leak.
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(records=records, user=users, session=sessions, query=texts)
def test_scope_is_never_crossed(db, records, user, session, query):
    run = uuid.uuid4().hex[:8]
    store = MemoryStore(db, FakeEmbedder())
    stored = store.add_many([NewMemory(t, Scope(user=run + u, session=s)) for u, s, t in records])
    scope = Scope(user=run + user, session=session)
    for mode in ("hybrid", "words", "meaning"):
        for hit in store.search(query, scope, SearchOptions(mode=mode, k=50)).hits:
            assert scope.contains(hit.memory.scope)
    listed = store.list(scope, limit=None)
    assert all(scope.contains(m.scope) for m in listed)
    assert {m.id for m in listed} == {m.id for m in stored if scope.contains(m.scope)}
    for memory in stored:
        try:
            assert scope.contains(store.get(memory.id, scope).scope)
        except NotFound:
            assert not scope.contains(memory.scope)
