"""The Chinese retrieval sets of tests/bench/retrieval.py: MemSim's MemDaily and our zero-overlap cases.

MemDaily (github.com/nuster1128/MemSim, ``data_generation/final_dataset/messages_and_QAs/*.json``,
commit db9d5d5): LLM-simulated Chinese daily-life messages of one person (``trajectories`` of 4 to
15 messages) and one question each, labelled with the messages that hold its answer. Its own
``memdaily.json`` is the same data merged (and stored with Git LFS). Get the files with
``git clone https://github.com/nuster1128/MemSim`` and copy that folder; they are read from
``--memsim`` and never committed.

A trajectory alone is too small to search (4 to 15 messages), so, like MemSim's own noise
infusion, each person's memory holds ``HAYSTACK`` trajectories of different simulated users,
question types and topics: the other trajectories' messages are the noise. Each day of a
trajectory is a session. A question's gold is its own trajectory's evidence messages. Another
user's look-alike fact ("my boss is called ...") counts as a miss: that lowers the ceiling for
every retriever alike, and with 20 trajectories a person the bigram BM25 finds as much as among
all 2,954 (R@5 0.62 on 600, 0.60 on all). The sample takes from MemDaily's 26 files (question
type x topic) in turn, so any N mixes them all; it is fixed by a seed.

The zero-overlap cases (``zero_overlap_zh.json``, ours): a fact said in one session, a question in
a later one that shares no word with it (no CJK character bigram, no Latin word), the fact among
32 everyday messages of other sessions; it counts as found when it is in the top 3.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bigram_bm25 import bigrams

HAYSTACK = 20   # trajectories in one person's memory (about 145 messages)
PROFILES = 50   # MemSim's simulated users (data_generation/graphs.json)
SEED = 11
ZERO_OVERLAP_CASES = Path(__file__).resolve().parent / "zero_overlap_zh.json"
_FILE = re.compile(r"(\d\d)_([a-z_]+)_([a-z]+)\.json")
_WEEKDAY = re.compile(r"\s*周[一二三四五六日天]\s*")
_LATIN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Message:
    key: str
    text: str
    session: str
    created_at: datetime


@dataclass(frozen=True)
class Question:
    text: str
    gold: tuple[str, ...]   # keys of the messages that hold the answer
    kind: str               # MemDaily's question type, or the zero-overlap case's topic


@dataclass(frozen=True)
class Person:
    name: str
    messages: list[Message]
    questions: list[Question]


def memdaily_time(text: str) -> datetime:
    """MemDaily's '2024年04月01日 周一 08:39' as a datetime."""
    return datetime.strptime(_WEEKDAY.sub(" ", text), "%Y年%m月%d日 %H:%M")


def _trajectories(folder: Path) -> list[list[tuple[str, int, dict]]]:
    """Per MemDaily file (sorted by name), its usable trajectories as (name, profile, trajectory)."""
    files = sorted(p for p in folder.glob("*.json") if _FILE.fullmatch(p.name))
    if not files:
        raise FileNotFoundError(f"no MemDaily files (like 01_simple_roles.json) in {folder}; see {__file__}")
    per_file = []
    for path in files:
        trajectories = json.loads(path.read_text(encoding="utf-8"))
        per_profile = max(1, len(trajectories) // PROFILES)   # generated in profile order, as many for each
        usable = [(f"{path.stem}/{t['tid']}", t["tid"] // per_profile, t) for t in trajectories
                  if t["question_list"][0]["question"] != "[ERRORQ]" and t["question_list"][0]["answer"] != "[ERRORA]"]
        random.Random(f"{SEED}/{path.name}").shuffle(usable)
        per_file.append(usable)
    return per_file


def stratified(per_file: list[list], count: int) -> list:
    """``count`` items taken from the lists in turn (one from each, then the next from each...)."""
    taken: list = []
    for position in range(max(map(len, per_file), default=0)):
        taken.extend(items[position] for items in per_file if position < len(items))
    return taken[:count]


def haystacks(trajectories: list[tuple[str, int, dict]], size: int) -> list[list[tuple[str, int, dict]]]:
    """The (name, profile, trajectory) items in groups of ``size``, in order, no two of one simulated
    user in a group (they tell the same facts in other words, which would count as misses)."""
    groups: list[list] = []
    for item in trajectories:
        group = next((g for g in groups if len(g) < size and all(item[1] != other[1] for other in g)), None)
        if group is None:
            groups.append(group := [])
        group.append(item)
    return groups


def memdaily(folder: Path, trajectories: int, haystack: int = HAYSTACK) -> list[Person]:
    """``trajectories`` MemDaily trajectories (all when there are fewer), ``haystack`` to a person."""
    chosen = stratified(_trajectories(folder), trajectories)
    random.Random(SEED).shuffle(chosen)   # a person's trajectories from different files
    people = []
    for number, group in enumerate(haystacks(chosen, haystack)):
        messages, questions = [], []
        for name, _, trajectory in group:
            keys = []
            for m in trajectory["message_list"]:
                when = memdaily_time(m["time"])
                keys.append(f"{name}#{m['mid']}")
                messages.append(Message(keys[-1], m["message"], f"{name}@{when:%Y-%m-%d}", when))
            qa = trajectory["question_list"][0]
            questions.append(Question(qa["question"], tuple(keys[i] for i in qa["target_step_id"]),
                                      _FILE.fullmatch(name.split("/")[0] + ".json")[2]))
        messages.sort(key=lambda m: m.created_at)
        people.append(Person(f"memdaily-{number}", messages, questions))
    return people


def shared_words(first: str, second: str) -> set[str]:
    """The words two texts share: CJK character bigrams and Latin words or numbers (any case).
    Empty for a zero-overlap case."""
    def words(text: str) -> set[str]:
        return {g for g in bigrams(text) if not _LATIN.fullmatch(g)} | set(_LATIN.findall(text.lower()))
    return words(first) & words(second)


def zero_overlap(path: Path = ZERO_OVERLAP_CASES) -> list[Person]:
    """Each case as a person: the everyday messages, the fact (dated mid-way among them), the question."""
    data = json.loads(path.read_text(encoding="utf-8"))
    distractors = [Message(f"d{i}", d["text"], d["session"], datetime.fromisoformat(d["date"]))
                   for i, d in enumerate(data["distractors"])]
    middle = sorted(m.created_at for m in distractors)[len(distractors) // 2]
    return [Person(f"zero-{case['id']}", [*distractors, Message("fact", case["fact"], "fact", middle)],
                   [Question(case["question"], ("fact",), case["topic"])])
            for case in data["cases"]]
