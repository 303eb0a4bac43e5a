"""End to end: is the fact a question needs in what the model saw, with the profile and without?

Run by hand (prints figures; not a pytest test)::

    PYTHONPATH=desktop .venv/bin/python tests/bench/profile_e2e.py --memsim /work/cache/memsim

Every question goes through ``engram.turn_engine.send`` (what ``engram ask`` runs) in a new chat,
with the defaults and the bundled models (demo chat model, multilingual-e5-small), a small
``--max-tokens``, in a fresh data folder per person; each person is run twice: profile learning
``auto`` (the default) and ``off`` (recall alone, as before the profile). A question's needed fact
is "in context" when it is in ``record.messages`` (the question itself taken out of its message, which also
carries the recalled memories); the figures are
the share of such questions and the median ``record.tokens["context"]``, per source and language,
and the misses are listed.

Sources:

- ``own``: ``profile_cases.json``, everyday people of ours (English and Chinese), written before
  reading the learner's rules. Each person's chats are sent live, turn by turn, the outbox
  drained after each chat (as ``engram ask`` does); a question is found when every key of its
  statement (alternatives split by ``|``) is in context. A ``blank`` run (no history) checks that
  no key is in the prompt anyway.
- ``longmemeval``: LongMemEval oracle (``../shared/bench-data/longmemeval_oracle.json.gz``),
  ``single-session-user`` and ``single-session-preference`` (no ``_abs``), a seeded sample of
  ``--limit`` each. A question's evidence sessions are imported (``importer.import_file``, Engram
  JSON, which feeds the profile like a live chat), the outbox drained, then the question asked.
  Found: a distinctive part of a ``has_answer`` user turn (its sentence holding the answer, else
  its longest, at most 80 characters), or for single-session-user the answer itself, or a profile
  line learned from a ``has_answer`` turn.
- ``memdaily``: MemSim's MemDaily (Chinese), ``01_simple_roles`` and ``02_conditional_roles`` (the
  person's relatives, boss, colleagues), read from ``--memsim`` (the folder of
  ``data_generation/final_dataset/messages_and_QAs/*.json``; never committed), a seeded sample of
  ``--limit`` in all. The person's messages are imported as chats (one per day), then the question.
  Found: an evidence message holding the answer (all evidence when none holds it) is in context,
  or a profile line learned from one of them that holds the answer. The bare answer does not
  count: the other messages of the trajectory hold look-alike values (the colleague's degree).

Results go to ``--out`` (JSON lines), one per question and mode; a second run skips the people
already done there (``--fresh`` starts over), so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = Path(__file__).resolve().parent / "profile_cases.json"
LONGMEMEVAL = next((up / "shared" / "bench-data" / "longmemeval_oracle.json.gz" for up in REPO.parents
                    if (up / "shared" / "bench-data").is_dir()), REPO.parent / "shared" / "bench-data")
MEMDAILY_FILES = ("01_simple_roles.json", "02_conditional_roles.json")
SEED = 31
MODES = ("auto", "off")
_SENTENCE = re.compile(r"(?<=[.!?。！？\n])\s*")
_WEEKDAY = re.compile(r"\s*周[一二三四五六日天]\s*")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class Question:
    id: str
    ask: str
    kind: str
    keys: list[list[str]] = field(default_factory=list)   # own: every group needs one of its words
    snippets: list[str] = field(default_factory=list)     # any of these (normalised) in context: found
    evidence: list[str] = field(default_factory=list)     # texts of the messages holding the fact
    answer: str = ""                                      # a profile line from evidence must hold it (memdaily)
    fact: str = ""                                        # for the list of misses


@dataclass
class Person:
    source: str
    id: str
    lang: str
    chats: list[list[tuple[str, str]]]     # (role, text); own: user messages only, sent live
    dates: list[str]                       # per chat, ISO (imported sources)
    questions: list[Question]
    live: bool = False


# -- the sources -------------------------------------------------------------------------------

def own_people(path: Path = CASES) -> list[Person]:
    people = []
    for p in json.loads(path.read_text(encoding="utf-8"))["people"]:
        said = [text for chat in p["chats"] for text in chat]
        questions = []
        for n, q in enumerate(p["questions"]):
            if not any(q["fact"] in text for text in said):
                raise ValueError(f"{p['id']}: the fact {q['fact']!r} is not in the chats")
            keys = [k.lower().split("|") for k in q["keys"]]
            if any(any(k in q["ask"].lower() for k in group) for group in keys):
                raise ValueError(f"{p['id']}: a key of {q['fact']!r} is in its question")
            questions.append(Question(f"{p['id']}-{n}", q["ask"], q["kind"], keys=keys,
                                      evidence=[t for t in said if q["fact"] in t], fact=q["fact"]))
        people.append(Person("own", p["id"], p["lang"], [[("user", t) for t in chat] for chat in p["chats"]],
                             [], questions, live=True))
    return people


def _lme_date(text: str) -> str:
    at = datetime.strptime(re.sub(r"\s*\(\w+\)\s*", " ", text), "%Y/%m/%d %H:%M")
    return at.replace(tzinfo=timezone.utc).isoformat()


def _distinctive(turn: str, answer: str) -> str:
    sentences = [s.strip() for s in _SENTENCE.split(turn) if s.strip()] or [turn]
    words = set(re.findall(r"\w+", answer.lower()))
    best = max(sentences, key=lambda s: (len(words & set(re.findall(r"\w+", s.lower()))), len(s)))
    return norm(best)[:80]


def longmemeval_people(path: Path, limit: int) -> list[Person]:
    data = json.loads(gzip.open(path, "rt", encoding="utf-8").read())
    people = []
    for kind in ("single-session-user", "single-session-preference"):
        pool = sorted((q for q in data if q["question_type"] == kind and "_abs" not in q["question_id"]),
                      key=lambda q: q["question_id"])
        for q in random.Random(f"{SEED}/{kind}").sample(pool, min(limit, len(pool))):
            turns = [m["content"] for s in q["haystack_sessions"] for m in s
                     if m.get("has_answer") and m["role"] == "user"]
            answer = q["answer"] if kind == "single-session-user" else ""
            # The answer itself counts when it cannot be mistaken for a date or a count ("18").
            distinctive = answer and len(answer) >= 4 and not re.fullmatch(r"[\d\W_]+", answer)
            snippets = [_distinctive(t, answer) for t in turns] + ([norm(answer)] if distinctive else [])
            chats = [[(m["role"], m["content"]) for m in s] for s in q["haystack_sessions"]]
            question = Question(q["question_id"], q["question"], kind.removeprefix("single-session-"),
                                snippets=snippets, evidence=turns, fact=" / ".join(t[:120] for t in turns))
            people.append(Person("longmemeval", q["question_id"], "en", chats,
                                 [_lme_date(d) for d in q["haystack_dates"]], [question]))
    return people


def _memdaily_time(text: str) -> datetime:
    return datetime.strptime(_WEEKDAY.sub(" ", text), "%Y年%m月%d日 %H:%M").replace(tzinfo=timezone.utc)


def memdaily_people(folder: Path, limit: int) -> list[Person]:
    per_file = []
    for name in MEMDAILY_FILES:
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: copy MemSim's data_generation/final_dataset/"
                                    f"messages_and_QAs/{name} there (see this file's docstring)")
        usable = [t for t in json.loads(path.read_text(encoding="utf-8"))
                  if t["question_list"][0]["question"] != "[ERRORQ]" and t["question_list"][0]["answer"] != "[ERRORA]"]
        random.Random(f"{SEED}/{name}").shuffle(usable)
        per_file.append([(Path(name).stem, t) for t in usable])
    chosen = [item for pair in zip(*per_file) for item in pair][:limit]
    people = []
    for stem, t in chosen:
        qa = t["question_list"][0]
        messages = t["message_list"]
        evidence = [messages[i]["message"] for i in qa["target_step_id"]]
        needed = [e for e in evidence if qa["answer"] in e] or evidence
        days: dict[str, list[tuple[str, str]]] = {}
        dates: dict[str, str] = {}
        for m in messages:
            at = _memdaily_time(m["time"])
            days.setdefault(f"{at:%Y-%m-%d}", []).append(("user", m["message"]))
            dates.setdefault(f"{at:%Y-%m-%d}", at.isoformat())
        kind = stem.split("_", 1)[1]
        people.append(Person("memdaily", f"{stem}/{t['tid']}", "zh", list(days.values()), list(dates.values()),
                             [Question(f"{stem}/{t['tid']}", qa["question"], kind,
                                       snippets=[norm(e) for e in needed], evidence=needed, answer=qa["answer"],
                                       fact=" / ".join(needed))]))
    return people


# -- one person, one mode ------------------------------------------------------------------------

class Models:
    """The bundled models, loaded once and lent to every data folder (never closed by one)."""

    def __init__(self, config: Path):
        from embed_cache import CachedEmbedder

        from engram.core.app import embedding_model_path
        from engram.core.models.chat_model import load_chat_model
        from engram.core.models.embeddings import GGUFEmbedder
        from engram.core.settings import Settings

        settings = Settings.load(config)
        self.chat = load_chat_model(settings)
        # The real embedder; vectors of texts already seen come from the benchmark cache (the same
        # vectors), so the second mode and a rerun do not embed again.
        class Lent(CachedEmbedder):
            def close(self) -> None:         # Engram.close closes its embedder: this one serves the next
                pass

        self.embedder = Lent(GGUFEmbedder(embedding_model_path(settings.embedding_model)), cache_single=True)


def _export(person: Person, path: Path) -> None:
    sessions = []
    for n, (chat, date) in enumerate(zip(person.chats, person.dates)):
        start = datetime.fromisoformat(date)
        sessions.append({"id": f"chat-{n}", "title": "", "created_at": start.isoformat(),
                         "messages": [{"role": role, "content": text,
                                       "created_at": (start + timedelta(seconds=30 * i)).isoformat()}
                                      for i, (role, text) in enumerate(chat) if text.strip()]})
    path.write_text(json.dumps({"format": "engram-export", "version": 1, "sessions": sessions},
                               ensure_ascii=False), encoding="utf-8")


def _user_messages(engram) -> list[tuple[int, str]]:
    with engram.db.transaction() as conn:
        return [(r[0], r[1]) for r in conn.execute("SELECT id, content FROM messages WHERE role = 'user'").fetchall()]


def found_in(question: Question, context: str, lines_in_context: list[tuple[str, str]]) -> tuple[bool, str]:
    """Whether the needed fact is in ``context`` (normalised), and through what: "profile" when a
    profile line in context carries it, "recall" when the rest does, "both"."""
    def carries(text: str, source_text: str) -> bool:
        if question.keys:
            return all(any(k in text for k in group) for group in question.keys)
        if norm(source_text)[:200] not in {norm(e)[:200] for e in question.evidence}:
            return False
        return not question.answer or norm(question.answer) in text

    by_profile = any(carries(norm(line), source) for line, source in lines_in_context)
    rest = context
    for line, _ in lines_in_context:
        rest = rest.replace(norm(line), " ")
    if question.keys:
        by_recall = all(any(k in rest for k in group) for group in question.keys)
    else:
        by_recall = any(s and s in rest for s in question.snippets)
    how = "both" if by_profile and by_recall else "profile" if by_profile else "recall" if by_recall else ""
    return bool(how), how


def run_person(person: Person, mode: str, models: Models, max_tokens: int, keep: bool) -> list[dict]:
    from engram.core.app import Engram
    from engram.core.porting.importer import import_file

    folder = Path(tempfile.mkdtemp(prefix=f"engram-e2e-{person.source}-"))
    (folder / "config").mkdir()
    engram = Engram(folder / "data", folder / "config", embedder=models.embedder, chat_model=models.chat)
    started = time.perf_counter()
    try:
        if mode != "blank":
            engram.settings.profile_learning = mode
        engram.apply_settings({"profile_learning"})
        user = engram.user
        if mode == "blank":
            pass
        elif person.live:
            for n, chat in enumerate(person.chats):
                session = engram.sessions.get_or_create(f"chat-{n}", user)
                for _, text in chat:
                    engram.turn_engine.send(session.id, text, max_tokens=max_tokens)
                engram.outbox.drain(120)
        else:
            export = folder / "chats.json"
            _export(person, export)
            import_file(engram, "engram", export, user)
            engram.outbox.drain(600)
        said = dict(_user_messages(engram))
        lines = [(line.text, said.get(line.message, "")) for line in engram.profiles.active(user)]
        rows = []
        for n, q in enumerate(person.questions):
            session = engram.sessions.get_or_create(f"ask-{n}", user)
            result = engram.turn_engine.send(session.id, q.ask, max_tokens=max_tokens)
            messages = list(result.record.messages)
            context = norm("\n".join(str(m.get("content") or "") for m in messages))
            # Recalled memories come in the last user message, before the question: only the
            # question itself (its last occurrence) is not context.
            at = context.rfind(norm(q.ask))
            context = context[:at] + context[at + len(norm(q.ask)):] if at >= 0 else context
            shown = [(t, s) for t, s in lines if norm(t) in context]
            found, how = found_in(q, context, shown)
            rows.append({"source": person.source, "person": person.id, "lang": person.lang, "mode": mode,
                         "question": q.id, "kind": q.kind, "ask": q.ask, "fact": q.fact, "found": found, "via": how,
                         "context_tokens": result.record.tokens.get("context"),
                         "profile_lines": len(lines), "profile_shown": len(shown),
                         "learned": [t for t, _ in lines][:12], "context": context, "shown": shown,
                         "recall": {k: v for k, v in result.record.recall.items() if k in ("searched", "triggers")},
                         "recalled": len(result.record.recalled)})
            engram.outbox.drain(120)
        for row in rows:
            row["seconds"] = round(time.perf_counter() - started, 1)
        return rows
    finally:
        engram._chat_model = None          # lent: the next data folder uses it
        engram.close()
        if not keep:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)


# -- figures -------------------------------------------------------------------------------------

def summary(rows: list[dict]) -> None:
    def group(name: str, selected: list[dict]) -> None:
        line = f"{name:<34}"
        for mode in MODES:
            got = [r for r in selected if r["mode"] == mode]
            if not got:
                line += f" {'-':>16} {'-':>9}"
                continue
            share = sum(r["found"] for r in got) / len(got)
            tokens = statistics.median(r["context_tokens"] or 0 for r in got)
            line += f" {sum(r['found'] for r in got):>4}/{len(got):<4} {share:>5.2f}  {tokens:>9.0f}"
        print(line)

    real = [r for r in rows if r["mode"] in MODES]
    print(f"\n{'':<34} {'profile auto':^27} {'profile off (recall alone)':^27}")
    print(f"{'source / language / kind':<34}" + f" {'found':>11} {'share':>5} {'med ctx':>9}" * 2)
    for source in ("own", "longmemeval", "memdaily"):
        these = [r for r in real if r["source"] == source]
        if not these:
            continue
        group(source, these)
        for lang in sorted({r["lang"] for r in these}):
            group(f"  {lang}", [r for r in these if r["lang"] == lang])
        for kind in sorted({r["kind"] for r in these}):
            group(f"    {kind}", [r for r in these if r["kind"] == kind])
    for lang in sorted({r["lang"] for r in real}):
        group(f"all {lang}", [r for r in real if r["lang"] == lang])
    group("all", real)
    for mode in MODES:
        got = [r for r in real if r["mode"] == mode and r["found"]]
        if got:
            via = {k: sum(r["via"] == k for r in got) for k in ("profile", "recall", "both")}
            print(f"found with profile {mode}: via " + ", ".join(f"{k} {v}" for k, v in via.items()))
    shown = [r["profile_shown"] for r in real if r["mode"] == "auto"]
    learned = [r["profile_lines"] for r in real if r["mode"] == "auto"]
    if shown:
        print(f"profile auto: median lines learned per person {statistics.median(learned):.0f},"
              f" in the question's context {statistics.median(shown):.0f}")
    blank = [r for r in rows if r["mode"] == "blank"]
    if blank:
        leaks = [r for r in blank if r["found"]]
        print(f"blank control (own questions, no history): {len(leaks)} of {len(blank)} found anyway"
              + "".join(f"\n  LEAK {r['question']}: {r['ask']}" for r in leaks))


def misses(rows: list[dict]) -> None:
    print("\nmisses (profile auto):")
    for r in rows:
        if r["mode"] == "auto" and not r["found"]:
            off = next((o for o in rows if o["mode"] == "off" and o["question"] == r["question"]), None)
            also = " (also off)" if off and not off["found"] else " (found off!)" if off else ""
            print(f"  [{r['source']} {r['lang']} {r['kind']}] {r['question']}{also}: {r['ask']!r}\n"
                  f"      needs: {r['fact'][:160]!r}\n      learned: {r['learned'][:6]}")
    lost = [r for r in rows if r["mode"] == "off" and r["found"]
            and any(a["mode"] == "auto" and a["question"] == r["question"] and not a["found"] for a in rows)]
    print(f"found off but missed auto: {len(lost)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", nargs="+", default=["own", "longmemeval", "memdaily"],
                        choices=["own", "longmemeval", "memdaily"])
    parser.add_argument("--limit", type=int, default=10, help="LongMemEval questions of each type")
    parser.add_argument("--memdaily-limit", type=int, default=40, help="MemDaily questions in all")
    parser.add_argument("--memsim", type=Path, default=Path("/work/cache/memsim"),
                        help="folder with MemDaily's 01_simple_roles.json and 02_conditional_roles.json")
    parser.add_argument("--longmemeval", type=Path, default=LONGMEMEVAL)
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--max-tokens", type=int, default=4)
    parser.add_argument("--out", type=Path, default=REPO / ".cache" / "profile_e2e.jsonl")
    parser.add_argument("--fresh", action="store_true", help="forget the results of earlier runs in --out")
    parser.add_argument("--keep", action="store_true", help="keep the data folders (printed)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    people: list[Person] = []
    if "own" in args.sources:
        people += own_people(args.cases)
    if "longmemeval" in args.sources:
        people += longmemeval_people(args.longmemeval, args.limit)
    if "memdaily" in args.sources:
        if args.memsim.is_dir():
            people += memdaily_people(args.memsim, args.memdaily_limit)
        else:
            print(f"memdaily skipped: no folder {args.memsim} (see --memsim)", file=sys.stderr)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh and args.out.exists():
        args.out.unlink()
    rows = [json.loads(line) for line in args.out.read_text(encoding="utf-8").splitlines()] if args.out.exists() else []
    done = {(r["source"], r["person"], r["mode"]) for r in rows}
    config = Path(tempfile.mkdtemp(prefix="engram-e2e-config-"))
    models = Models(config)
    started = time.perf_counter()
    jobs = [(p, m) for p in people for m in MODES] + \
           [(Person("own", "blank-" + p.id, p.lang, [], [], p.questions), "blank") for p in people if p.source == "own"]
    order = {"own": 0, "blank": 1, "memdaily": 2, "longmemeval": 3}    # the slowest last
    jobs.sort(key=lambda job: order["blank" if job[1] == "blank" else job[0].source])
    for n, (person, mode) in enumerate(jobs, 1):
        if (person.source, person.id, mode) in done:
            continue
        got = run_person(person, mode, models, args.max_tokens, args.keep)
        with args.out.open("a", encoding="utf-8") as out:
            for row in got:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        rows += got
        print(f"[{n}/{len(jobs)} {time.perf_counter() - started:6.0f}s] {person.source} {person.id} {mode}: "
              f"{sum(r['found'] for r in got)}/{len(got)} found", file=sys.stderr, flush=True)
    questions = {(p.source, q.id): q for p in people for q in p.questions}
    rows = [r for r in rows if (r["source"], r["question"]) in questions]
    for r in rows:     # judged again from what was recorded: a fixed criterion needs no new run
        r["found"], r["via"] = found_in(questions[r["source"], r["question"]], r["context"],
                                        [tuple(x) for x in r["shown"]])
    misses(rows)
    summary(rows)
    print(f"\nmodels: chat {Path(models.chat.path).name if hasattr(models.chat, 'path') else models.chat},"
          f" embedder {models.embedder.name}; max_tokens {args.max_tokens}; results in {args.out}")


if __name__ == "__main__":
    main()
