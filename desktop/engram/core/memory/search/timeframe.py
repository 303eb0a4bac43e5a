"""When a question is about: time expressions resolved against the moment of asking.

"What did I buy last Saturday?", "the workshop two weeks ago", "我上周买了什么", "三天前" name a
stretch of time, and the person's words said then are what the question is about; a memory from
another month that matches as well is more likely a different occasion. So a question's time
expressions become timeframes (start and end, resolved against ``SearchOptions.now``), and a
memory said inside one earns ``timeframe_weight`` more relevance (multiplied, as standing is:
it orders matches and cannot lift a memory that does not match; told as a loss for the others, so
that scores keep their scale). Outside, the share halves every
``max(1 day, a quarter of the timeframe's length)``: people round ("four weeks ago" is rarely
28 days to the hour) and a message may be written a day after the event. Days begin at midnight
in the computer's time zone (the person's).

What is resolved, English and Chinese: today, yesterday (昨天, 前天); N days / weeks / months /
years ago (三天前, 两个月前), with words for N (a, two, a couple of, a few, 几); last / this /
the past week, weekend, month, year (上周, 上周末, 这个月, 去年, 今年); the past N days... (最近三天,
过去两周); last / on a weekday (上周六, 周一); a month (in March, 三月, 3月, May 2022, 2022年3月; from
July to October, since March), a
day (March 15th, 7 July 2023, 3月15日) and a year (in 2021, 2021年); a month or day without a
year is the latest one by the moment of asking. A timeframe that starts after that moment is left
out (no memory is from the future): "this weekend" asked on a Tuesday means plans, not memories.
"How many days ago ...?" names no timeframe: it asks for one.

A hand-written grammar rather than dateparser: measured, dateparser's search_dates took 2-10 ms a
question (100 ms the first), returned a point not a span ("last month" → one day, "in May" → May
9th of last year), found "May I ask" to be a date and missed 三天前. These patterns take 0.02-0.1
ms; the candidates' dates are read only when the question names a time, and only of those that
could still reach the results (about 1 ms for 400 candidates among 100k memories).
"""

from __future__ import annotations

import calendar
import heapq
import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from engram.core.memory.records import moment_of
from engram.core.storage import dialect

if TYPE_CHECKING:
    from engram.core.memory.search.options import SearchOptions
    from engram.core.storage.database import Database

DAY = timedelta(days=1)
_DAY_SECONDS = DAY.total_seconds()
# A question names the time it asks about once or twice ("in January and March"). A longer text
# (a pasted page, a message with its history) or one naming more times is not about one stretch
# of time, and reading it would cost more than the search (100k characters: 0.2 s, 3,000 spans).
MAX_QUESTION_CHARS = 1000
MAX_TIMEFRAMES = 3


@dataclass(frozen=True)
class Timeframe:
    start: datetime
    end: datetime

    def closeness(self, said: float) -> float:
        """1 inside, halving every max(1 day, a quarter of the length) outside (``said``: POSIX seconds)."""
        return _closeness(self.start.timestamp(), self.end.timestamp(), said)


def _closeness(start: float, end: float, said: float) -> float:
    if start <= said < end:
        return 1.0
    return 0.5 ** ((start - said if said < start else said - end) / max(_DAY_SECONDS, (end - start) / 4))


_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
            "a few": 3, "few": 3, "several": 4}
_ZH_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
               "十一": 11, "十二": 12, "几": 3, "半": 0.5}
_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name and name != "May"}
_WEEKDAYS = {name.lower(): number for number, name in enumerate(calendar.day_name)}
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_UNITS = {"day": 1, "week": 7, "month": 30.44, "year": 365.25}
_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "个星期": "week",
             "个礼拜": "week", "个月": "month", "月": "month", "年": "year"}

_N = "|".join(sorted((re.escape(n) for n in _NUMBERS), key=len, reverse=True))
_ZN = "|".join(sorted(_ZH_NUMBERS, key=len, reverse=True))
_ZU = "|".join(sorted(_ZH_UNITS, key=len, reverse=True))
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(_WEEKDAYS)

_ENGLISH = re.compile(
    rf"\b(?:from|between)\s+(?P<first>{_MONTH}|May)(?:,?\s+(?P<fyear>(?:19|20)\d\d))?\s+(?:to|and|until|through|till)\s+"
    rf"(?P<last>{_MONTH}|May)\b(?:,?\s+(?P<lyear>(?:19|20)\d\d)\b)?"
    rf"|\b(?P<ago>(?P<n>\d+|{_N})\s+(?P<unit>day|week|month|year)s?\s+ago)\b"
    rf"|\b(?:in\s+|over\s+|during\s+)?(?:the\s+)?(?:past|last|previous)\s+(?P<pn>\d+|{_N})\s+(?P<punit>day|week|month|year)s?\b"
    rf"|\b(?P<rel>last|this|the\s+past|this\s+past|past|previous)\s+(?P<period>week|weekend|month|year)\b"
    rf"|\b(?P<wrel>last|this\s+past|past|on)\s+(?P<weekday>{_WEEKDAY})\b(?!s|\s+(?:morning|afternoon|evening|night)s)"
    r"|\b(?P<day>(?<!before\s)today|yesterday|the\s+day\s+before\s+yesterday)\b"
    rf"|\b(?P<mname>{_MONTH}|May)\.?\s+(?P<mday>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<dyear>(?:19|20)\d\d)\b)?"
    rf"|\b(?P<dday>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dname>{_MONTH}|May)\b(?:,?\s*(?P<ddyear>(?:19|20)\d\d)\b)?"
    rf"|\b(?P<ymonth>{_MONTH}|May),?\s+(?P<myear>(?:19|20)\d\d)\b"
    rf"|\b(?P<mprep>in|of|during|since|from|between|to|until|through|early|late|mid|and)\s+(?:the\s+month\s+of\s+)?"
    rf"(?P<month>{_MONTH}|May)\b(?:,?\s+(?P<pyear>(?:19|20)\d\d)\b)?"
    r"|\b(?:in|during|of|since)\s+(?P<year>(?:19|20)\d\d)\b",
    re.IGNORECASE)
_CHINESE = re.compile(
    rf"(?P<ago>(?P<n>\d+|{_ZN})(?P<unit>{_ZU})(?:以?前|之前))"
    rf"|(?:最近|过去|近)(?P<pn>\d+|{_ZN})(?P<punit>{_ZU})"
    r"|(?<![下每])(?P<wrel>上|这|本)?(?:个)?(?:周|星期|礼拜)(?P<weekday>[一二三四五六日天])"   # not 下周一, 每周二
    r"|(?P<rel>上|这|本|去|今|前)(?:个)?(?P<period>周末|周|星期|礼拜|月|年)"
    r"|(?P<day>今天|昨天|前天|大前天)"
    rf"|(?:(?P<myear>\d{{4}})年)?(?P<month>\d{{1,2}}|十[一二]?|[一二三四五六七八九])月(?:(?P<mday>\d{{1,2}})[日号])?"
    r"|(?P<year>\d{4})年")
_ZH_PERIODS = {"周末": "weekend", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}


def timeframes(query: str, now: datetime) -> list[Timeframe]:
    """The timeframes ``query`` names, resolved against ``now``; none that start after it, and
    none at all for a text longer than a question or naming more times than one asks about."""
    if len(query) > MAX_QUESTION_CHARS:
        return []
    found = [frame for match in _ENGLISH.finditer(query) if (frame := _english(match, now))]
    found += [frame for match in _CHINESE.finditer(query) if (frame := _chinese(match, now))]
    named = list(dict.fromkeys(frame for frame in found if frame.start <= now))
    return named if len(named) <= MAX_TIMEFRAMES else []


def _english(m: re.Match, now: datetime) -> Timeframe | None:
    if m["first"]:     # from July to October: the first month's start to the last one's end
        last = _month(_MONTHS[m["last"].lower()], now, year=int(m["lyear"]) if m["lyear"] else None)
        if last is None:    # (a whole month always exists: only a named day may not)
            return None
        month = _MONTHS[m["first"].lower()]
        year = int(m["fyear"]) if m["fyear"] else last.start.year - (month > last.start.month)
        first = _month(month, now, year=year)
        return Timeframe(first.start, last.end) if first else None
    if m["ago"]:
        return _ago(_count(m["n"]), m["unit"].lower(), now)
    if m["pn"]:
        return _past(_count(m["pn"]), m["punit"].lower(), now)
    if m["period"]:
        relation, period = " ".join(m["rel"].lower().split()), m["period"].lower()
        if relation != "this" and period != "weekend" and relation not in ("last", "previous"):
            return _past(1, period, now)      # the past month: the length of one, up to now
        return _period(period, previous=relation != "this", now=now)
    if m["weekday"]:
        return _weekday(_WEEKDAYS[m["weekday"].lower()], now, before_today=m["wrel"].lower() != "on")
    if m["day"]:
        return _day_back({"today": 0, "yesterday": 1}.get(m["day"].lower(), 2), now)
    if name := m["mname"] or m["dname"] or m["ymonth"] or m["month"]:
        if name.lower() == "may" and name != "May":   # the verb, not the month: capitalised only
            return None
        day, year = m["mday"] or m["dday"], m["dyear"] or m["ddyear"] or m["myear"] or m["pyear"]
        frame = _month(_MONTHS[name.lower()], now, int(day) if day else None, int(year) if year else None)
        if frame and (m["mprep"] or "").lower() == "since":
            return Timeframe(frame.start, now + DAY)
        return frame
    if m["year"]:
        return _year(int(m["year"]), now.tzinfo)
    return None


def _chinese(m: re.Match, now: datetime) -> Timeframe | None:
    if m["ago"]:
        return _ago(_zh_count(m["n"]), _ZH_UNITS[m["unit"]], now)
    if m["pn"]:
        return _past(_zh_count(m["pn"]), _ZH_UNITS[m["punit"]], now)
    if m["weekday"]:
        weekday = _ZH_WEEKDAYS[m["weekday"]]
        if m["wrel"] == "上":
            monday = _midnight(now) - timedelta(days=now.weekday() + 7)
            return _days(monday + timedelta(days=weekday), 1)
        return _weekday(weekday, now, before_today=False)
    if m["period"]:
        period, relation = _ZH_PERIODS[m["period"]], m["rel"]
        if period == "year" and relation in ("去", "前"):
            return _year(now.year - (1 if relation == "去" else 2), now.tzinfo)
        if period == "year" and relation == "今":
            return _year(now.year, now.tzinfo)
        if relation in ("去", "今", "前"):
            return None
        return _period(period, previous=relation == "上", now=now)
    if m["day"]:
        return _day_back({"今天": 0, "昨天": 1, "前天": 2, "大前天": 3}[m["day"]], now)
    if m["month"]:
        month = int(m["month"]) if m["month"].isdigit() else int(_zh_count(m["month"]))
        if 1 <= month <= 12:
            return _month(month, now, int(m["mday"]) if m["mday"] else None, int(m["myear"]) if m["myear"] else None)
    if m["year"]:
        return _year(int(m["year"]), now.tzinfo)
    return None


def _count(word: str) -> float:
    return float(word) if word.isdigit() else _NUMBERS[" ".join(word.lower().split())]


def _zh_count(word: str) -> float:
    if word.isdigit():
        return float(word)
    if word in _ZH_NUMBERS:
        return _ZH_NUMBERS[word]
    return 0.0


def _midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _days(start: datetime, days: float) -> Timeframe:
    return Timeframe(start, start + timedelta(days=days))


def _day_back(days: int, now: datetime) -> Timeframe:
    return _days(_midnight(now) - timedelta(days=days), 1)


def _ago(count: float, unit: str, now: datetime) -> Timeframe | None:
    """N units before now, give or take half a unit (a day at least)."""
    if count <= 0:
        return None
    length = timedelta(days=_UNITS[unit])
    tolerance = max(DAY, length / 2)
    return Timeframe(now - count * length - tolerance, now - count * length + tolerance)


def _past(count: float, unit: str, now: datetime) -> Timeframe | None:
    """The last N units, up to now."""
    return Timeframe(now - count * timedelta(days=_UNITS[unit]), now + DAY) if count > 0 else None


def _period(period: str, previous: bool, now: datetime) -> Timeframe:
    """The calendar week (from Monday), weekend, month or year holding now, or the one before it
    (a weekend not yet begun is the coming one: "this weekend" on a Tuesday)."""
    today = _midnight(now)
    if period == "week":
        return _days(today - timedelta(days=now.weekday() + (7 if previous else 0)), 7)
    if period == "weekend":
        saturday = today - timedelta(days=(now.weekday() - 5) % 7)   # the latest Saturday by today
        if now.weekday() >= 5 and previous:
            saturday -= timedelta(days=7)
        elif now.weekday() < 5 and not previous:
            saturday += timedelta(days=7)
        return _days(saturday, 2)
    if period == "month":
        first = today.replace(day=1)
        return Timeframe((first - DAY).replace(day=1), first) if previous else Timeframe(first, _next_month(first))
    return _year(now.year - 1 if previous else now.year, now.tzinfo)


def _weekday(weekday: int, now: datetime, before_today: bool) -> Timeframe:
    """The latest such weekday: before today ("last Saturday") or up to today ("on Monday")."""
    back = (now.weekday() - weekday) % 7 or (7 if before_today else 0)
    return _day_back(back, now)


def _month(month: int, now: datetime, day: int | None = None, year: int | None = None) -> Timeframe | None:
    """A month (or a day of it) of ``year``, or else the latest such that began by now."""
    if year is None:
        year = now.year if (month, day or 1) <= (now.month, now.day) else now.year - 1
    if day is not None:
        if not 1 <= day <= calendar.monthrange(year, month)[1]:
            return None
        return _days(datetime(year, month, day, tzinfo=now.tzinfo), 1)
    first = datetime(year, month, 1, tzinfo=now.tzinfo)
    return Timeframe(first, _next_month(first))


def _next_month(first: datetime) -> datetime:
    return (first + timedelta(days=32)).replace(day=1)


def _year(year: int, zone: tzinfo | None) -> Timeframe:
    return Timeframe(datetime(year, 1, 1, tzinfo=zone), datetime(year + 1, 1, 1, tzinfo=zone))


def in_timeframe(db: "Database", fused: dict[int, float], query: str, options: "SearchOptions") -> dict[int, float]:
    """Scores after each memory earns up to ``timeframe_weight`` more for being said in a timeframe
    the query names (see above); unchanged when it names none. Told as a loss, so that scores keep
    their scale: what was said in the timeframe keeps its score, the rest keeps down to 1 / (1 +
    the weight) of it. A memory below the k-th best score over 1 + the weight cannot reach the
    results either way: only the others' dates are read."""
    if not options.timeframe_weight or not fused:
        return fused
    # days begin at midnight where the person is: the computer's time zone
    frames = timeframes(query, moment_of(options.moment).astimezone())
    if not frames:
        return fused
    floor = heapq.nlargest(options.k, fused.values())[-1] / (1 + options.timeframe_weight)
    rows = db.query(f"SELECT m.id, m.created_at FROM {dialect.of(db).ints('?', 'pool')} CROSS JOIN memories m"
                    " WHERE m.id = pool.value", (json.dumps([i for i, score in fused.items() if score >= floor]),))
    spans = [(frame.start.timestamp(), frame.end.timestamp()) for frame in frames]
    scores = {memory_id: score / (1 + options.timeframe_weight) for memory_id, score in fused.items()}
    for memory_id, created_at in rows:
        said = moment_of(created_at).timestamp()
        scores[memory_id] *= 1 + options.timeframe_weight * max(_closeness(*span, said) for span in spans)
    return scores
