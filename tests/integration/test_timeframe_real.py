"""A question that names a time, with the bundled multilingual-e5-small (the real twin of
tests/unit/test_timeframe.py): of several purchases told on different days, the one told on the
day the question names comes first, in English and in Chinese."""

import pytest

from engram.core.memory.records import NewMemory
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.store import MemoryStore

pytestmark = pytest.mark.real_model

# Thursday 9 March 2023; the purchases were told on Saturday 4 March, Wednesday 1 March and
# in late January. Noise was told on the Saturday too.
ASKED = "2023-03-09T15:47:00Z"
TOLD = [("I just bought a new pair of hiking boots today.", "我今天买了一双新的登山鞋。", "2023-03-04T11:00:00.000Z"),
        ("I just bought a coffee grinder today.", "我今天买了一台咖啡磨豆机。", "2023-03-01T18:00:00.000Z"),
        ("I just bought a reading lamp today.", "我今天买了一盏台灯。", "2023-01-25T09:00:00.000Z"),
        ("The weather was lovely for a walk by the river.", "今天天气很好,去河边散步了。", "2023-03-04T16:00:00.000Z")]


@pytest.mark.parametrize("language, question, bought", [
    (0, "What did I buy last Saturday?", 0), (0, "What did I buy eight days ago?", 1), (0, "What did I buy in January?", 2),
    (1, "我上周六买了什么?", 0), (1, "我上周三买了什么?", 1), (1, "我一月买了什么?", 2)])
def test_the_purchase_told_in_the_time_named_comes_first(db, real_embedder, language, question, bought):
    store = MemoryStore(db, real_embedder)
    ids = [m.id for m in store.add_many([NewMemory(told[language], Scope(user="u", session=f"s{n}"), "message",
                                                   created_at=told[2]) for n, told in enumerate(TOLD)])]
    hits = store.search(question, Scope(user="u"), SearchOptions(k=4, now=ASKED)).hits
    assert hits[0].memory.id == ids[bought]
