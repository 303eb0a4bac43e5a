"""Time expressions in a question, resolved against the moment of asking, and the memories said
then coming first (timeframe.py). The real twin: tests/integration/test_timeframe_real.py."""

import time
from datetime import datetime, timedelta, timezone

import pytest

from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.search.timeframe import Timeframe, timeframes

THURSDAY = datetime(2023, 3, 9, 15, 47, tzinfo=timezone.utc)


def spans(query: str, now: datetime = THURSDAY) -> list[tuple[str, str]]:
    return [(f"{f.start:%Y-%m-%d %H:%M}", f"{f.end:%Y-%m-%d %H:%M}") for f in timeframes(query, now)]


@pytest.mark.parametrize("query, expected", [
    ("I received a piece of jewelry last Saturday from whom?", [("2023-03-04 00:00", "2023-03-05 00:00")]),
    ("What did I buy four weeks ago?", [("2023-02-06 03:47", "2023-02-13 03:47")]),   # 28 days back, ±3.5
    ("What did I cook a couple of days ago?", [("2023-03-06 15:47", "2023-03-08 15:47")]),
    ("What play did I attend last month?", [("2023-02-01 00:00", "2023-03-01 00:00")]),
    ("How many runs did I miss in March?", [("2023-03-01 00:00", "2023-04-01 00:00")]),
    ("What did I read in May?", [("2022-05-01 00:00", "2022-06-01 00:00")]),           # this May is yet to come
    ("Where was I in May 2021?", [("2021-05-01 00:00", "2021-06-01 00:00")]),
    ("the March 5th, 2021 party", [("2021-03-05 00:00", "2021-03-06 00:00")]),
    ("What did Maria plan on 7 July, 2022?", [("2022-07-07 00:00", "2022-07-08 00:00")]),
    ("the picture shared on December 1,2022", [("2022-12-01 00:00", "2022-12-02 00:00")]),
    ("Where did I work in 2021?", [("2021-01-01 00:00", "2022-01-01 00:00")]),
    ("the events I attended from November to February", [("2022-11-01 00:00", "2023-03-01 00:00")]),
    ("between May 2021 and January 2022", [("2021-05-01 00:00", "2022-02-01 00:00")]),
    ("What have I read since January?", [("2023-01-01 00:00", "2023-03-10 15:47")]),
    ("What did I do last weekend?", [("2023-03-04 00:00", "2023-03-06 00:00")]),
    ("How many times did I bake in the past two weeks?", [("2023-02-23 15:47", "2023-03-10 15:47")]),
    ("What did I do yesterday?", [("2023-03-08 00:00", "2023-03-09 00:00")]),
    ("in January and March", [("2023-01-01 00:00", "2023-02-01 00:00"), ("2023-03-01 00:00", "2023-04-01 00:00")]),
    ("我上周买了什么?", [("2023-02-27 00:00", "2023-03-06 00:00")]),                   # Monday to Monday
    ("三天前我去了哪里", [("2023-03-05 15:47", "2023-03-07 15:47")]),
    ("上周六我和谁吃饭", [("2023-03-04 00:00", "2023-03-05 00:00")]),
    ("两个月前", [("2022-12-23 13:23", "2023-01-22 23:56")]),
    ("上个月去了哪", [("2023-02-01 00:00", "2023-03-01 00:00")]),
    ("去年", [("2022-01-01 00:00", "2023-01-01 00:00")]),
    ("2022年3月5日", [("2022-03-05 00:00", "2022-03-06 00:00")]),
    ("最近三天", [("2023-03-06 15:47", "2023-03-10 15:47")]),
])
def test_a_time_expression_names_the_stretch_of_time_before_the_moment_asked(query, expected):
    assert spans(query) == expected


@pytest.mark.parametrize("query", [
    "May I ask what my dog's name is?",              # the verb
    "How many days ago did I meet Emma?",            # asks for the time, names none
    "What time do I wake up on Saturday mornings?",  # a habit, not a day
    "Any tips for this weekend?",                    # asked on a Thursday: plans, not memories
    "What will I do next week?",
    "下周一上午我有什么安排？",                          # next Monday
    "我每周二去健身",                                   # every Tuesday: a habit
    "2023年5月3日",                                    # after the moment asked
    "the order of airlines I flew with before today",
])
def test_no_timeframe_where_none_is_named_or_it_lies_ahead(query):
    assert spans(query) == []


def test_a_page_or_a_list_of_dates_names_no_time_to_search_in():
    """A pasted page names many times, none of which the question asks about; reading it would
    cost more than the search."""
    question = "What did I buy last Saturday?"
    assert spans(question) and spans(f"{question} Last Saturday, I mean.") == spans(question)   # one, said twice
    assert spans("in May 2021, June 2021, July 2021 and August 2021") == []
    assert spans("The minutes of the meeting. " * 40 + question) == []


def test_the_same_words_resolve_against_the_moment_asked():
    monday = datetime(2023, 3, 13, 9, 0, tzinfo=timezone.utc)
    assert spans("last Saturday", monday) == [("2023-03-11 00:00", "2023-03-12 00:00")]
    assert spans("this weekend", monday) == []
    assert spans("on Monday", monday) == [("2023-03-13 00:00", "2023-03-14 00:00")]     # today
    assert spans("last Monday", monday) == [("2023-03-06 00:00", "2023-03-07 00:00")]


def test_closeness_is_full_inside_and_halves_by_a_quarter_of_the_length_outside():
    week = Timeframe(datetime(2023, 3, 1, tzinfo=timezone.utc), datetime(2023, 3, 9, tzinfo=timezone.utc))
    assert week.closeness(datetime(2023, 3, 5, tzinfo=timezone.utc).timestamp()) == 1.0
    assert week.closeness(datetime(2023, 3, 11, tzinfo=timezone.utc).timestamp()) == pytest.approx(0.5)   # 2 days after
    assert week.closeness(datetime(2023, 2, 27, tzinfo=timezone.utc).timestamp()) == pytest.approx(0.5)   # 2 days before
    day = Timeframe(datetime(2023, 3, 1, tzinfo=timezone.utc), datetime(2023, 3, 2, tzinfo=timezone.utc))
    assert day.closeness(datetime(2023, 3, 3, tzinfo=timezone.utc).timestamp()) == pytest.approx(0.5)    # a day at least


PLAIN = dict(k=10, neighbour_weight=0.0, session_weight=0.0, importance_weight=0.0, pinned_weight=0.0,
             recency_weight=0.0, heat_weight=0.0, now="2023-03-09T15:47:00Z")


@pytest.mark.both_backends
def test_the_memory_said_in_the_named_time_comes_first(store):
    said = {day: store.add("I bought a silver necklace at the market", Scope(user="alice", session=day), "message",
                           created_at=f"2023-03-{day}T12:00:00.000Z").id for day in ("01", "04", "08")}
    other = store.add("The car needs new tyres before winter", Scope(user="alice"), "message",
                      created_at="2023-03-04T10:00:00.000Z").id
    for day, text in enumerate(("Lunch with Sam at noon", "The printer is out of ink", "Booked the dentist",
                                "Rain all afternoon", "Finished the quarterly report"), start=10):
        store.add(text, Scope(user="alice", session="everyday"), "message", created_at=f"2023-02-{day}T09:00:00.000Z")

    def order(query: str, **options) -> list[int]:
        return [h.memory.id for h in store.search(query, Scope(user="alice"), SearchOptions(**PLAIN | options)).hits]

    assert order("silver necklace last Saturday")[0] == said["04"]
    # what was said then keeps its score; the rest counts less
    saturday = SearchOptions(**PLAIN)
    scores = {h.memory.id: h.score for h in store.search("silver necklace last Saturday", Scope(user="alice"), saturday).hits}
    plain = {h.memory.id: h.score for h in store.search("silver necklace last Saturday", Scope(user="alice"),
                                                        SearchOptions(**PLAIN | {"timeframe_weight": 0})).hits}
    assert scores[said["04"]] == pytest.approx(plain[said["04"]])
    assert scores[said["01"]] < plain[said["01"]] / 2
    assert order("silver necklace yesterday")[0] == said["08"]
    assert order("silver necklace last Saturday", timeframe_weight=0)[0] == said["01"]   # a tie: the older id
    # said that day, but about something else: not lifted above the matches
    assert order("silver necklace last Saturday").index(other) > 2


def test_days_begin_at_midnight_where_the_moment_is():
    shanghai = datetime(2023, 3, 9, 1, 0, tzinfo=timezone(timedelta(hours=8)))      # 17:00 UTC the day before
    assert [(f.start.isoformat(), f.end.isoformat()) for f in timeframes("yesterday", shanghai)] == [
        ("2023-03-08T00:00:00+08:00", "2023-03-09T00:00:00+08:00")]


@pytest.fixture
def in_shanghai(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_search_names_days_in_the_computers_time_zone(store, in_shanghai):
    night = store.add("I went to the cinema with Li", Scope(user="alice", session="b"), "message",
                      created_at="2023-03-08T17:00:00.000Z").id                    # 01:00 on the 9th in Shanghai
    evening = store.add("I went to the cinema with Li", Scope(user="alice", session="a"), "message",
                        created_at="2023-03-08T10:00:00.000Z").id                  # 18:00 on the 8th in Shanghai
    options = SearchOptions(**PLAIN | {"now": "2023-03-09T10:00:00Z"})             # 18:00 on the 9th
    # in UTC both were said yesterday (a tie: the older id, night, would come first)
    assert [h.memory.id for h in store.search("cinema with Li yesterday", Scope(user="alice"), options).hits] == [evening, night]
    assert [h.memory.id for h in store.search("cinema with Li today", Scope(user="alice"), options).hits] == [night, evening]
