"""Keys that carry facts (issue 18), run by hand: LoCoMo recall on a slice of one conversation
with no notes, with notes the demo model (SmolLM2-135M) distils through Engram's real path
(core/conversation/distill.py), and with LoCoMo's own observations (per-session facts written by a strong
model, each naming its turns), each note stored as a key of the turns it came from.

    .venv/bin/python tests/bench/fact_keys.py --conversation 0 --sessions 3 --threads 1

Both speakers' turns are the person's messages ("Caroline: ..."), so either can give notes. A
hit's unit is its turn, a note's the turns it came from; a unit already ranked is skipped.
Questions are those whose evidence lies wholly inside the slice.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from embed_cache import CachedEmbedder  # noqa: E402
from metrics import mean, normalise_dia_ids, unit_recall  # noqa: E402
from retrieval import LOCOMO_CATEGORIES, REPO, iso, locomo_turn_text  # noqa: E402

from engram.core.models.chat_model import LlamaChatModel, Sampling  # noqa: E402
from engram.core.storage.database import Database  # noqa: E402
from engram.core.models.demo import demo_model_path  # noqa: E402
from engram.core.conversation.distill import Distiller, distilled_through  # noqa: E402
from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.conversation.memory_options import MemoryOptions  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.memory.records import DISTILLED_KINDS, NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402
from engram.core.memory.search.options import SearchOptions  # noqa: E402
from engram.core.conversation.sessions import Sessions  # noqa: E402
from engram.core.memory.store import MemoryStore  # noqa: E402

USER = "locomo"
KS = (5, 10)


def slice_of(sample: dict, sessions: int) -> list[tuple[int, datetime, list[dict]]]:
    conversation = sample["conversation"]
    numbers = sorted(int(key.split("_")[1]) for key in conversation
                     if key.startswith("session_") and not key.endswith("date_time"))[:sessions]
    return [(n, datetime.strptime(conversation[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y"),
             conversation[f"session_{n}"]) for n in numbers]


def archive(db: Database, store: MemoryStore, sessions: Sessions, chats) -> dict[int, str]:
    """Each turn a message of its chat and, as the archive keeps it, a memory; {message id: dia_id}."""
    dia_of = {}
    for number, when, turns in chats:
        session = sessions.get_or_create(f"session_{number}", USER)
        items = []
        for turn in turns:
            message = sessions.add_message(session.id, "user", locomo_turn_text(turn))
            dia_of[message.id] = turn["dia_id"]
            items.append(NewMemory(message.content, Scope(user=USER, session=session.id), "message",
                                   source_ids=(message.id,), created_at=iso(when),
                                   source={"role": "user", "message_id": message.id, "dia_id": turn["dia_id"]}))
        store.add_many(items)
    return dia_of


def demo_notes(store: MemoryStore, sessions: Sessions, chats, threads: int) -> tuple[int, float]:
    """Distil every chat with the demo model through the real Distiller; (notes, seconds)."""
    model = LlamaChatModel(demo_model_path(), context_size=2048, threads=threads, sampling=Sampling(seed=7))
    distiller = Distiller(sessions, store, lambda: model, dataclasses.replace(MemoryOptions(), distill=True))
    started = time.perf_counter()
    try:
        for number, _, _ in chats:
            session_id = f"session_{number}"
            last = sessions.messages(session_id)[-1].id
            while distilled_through(store.db, session_id) < last:
                distiller({"session_id": session_id})
    finally:
        model.close()
    return len(store.list(Scope(user=USER), kinds=DISTILLED_KINDS, limit=None)), time.perf_counter() - started


def observation_notes(store: MemoryStore, sample: dict, chats, message_of: dict[str, int]) -> int:
    items = []
    for number, when, _ in chats:
        for facts in sample["observation"].get(f"session_{number}_observation", {}).values():
            for text, dia_ids in facts:
                dia_ids = normalise_dia_ids([dia_ids] if isinstance(dia_ids, str) else dia_ids)
                items.append(NewMemory(text, Scope(user=USER, session=f"session_{number}"), "fact",
                                       created_at=iso(when),
                                       source_ids=tuple(message_of[d] for d in dia_ids if d in message_of)))
    return len(store.add_many(items))


def score(store: MemoryStore, questions: list[dict], dia_of: dict[int, str], asked: str,
          options: SearchOptions) -> dict:
    table: dict[str, list[float]] = defaultdict(list)
    for qa in questions:
        hits = store.search(qa["question"], Scope(user=USER), dataclasses.replace(options, now=asked)).hits
        units = list(dict.fromkeys(tuple(normalise_dia_ids(dia_of[i] for i in h.memory.source_ids if i in dia_of))
                                   for h in hits))
        for k in KS:
            value = unit_recall(units, normalise_dia_ids(qa["evidence"]), k)
            table[f"overall@{k}"].append(value)
            table[f"{LOCOMO_CATEGORIES[qa['category']]}@{k}"].append(value)
    return {key: round(mean(values), 4) for key, values in table.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--conversation", type=int, default=0)
    parser.add_argument("--sessions", type=int, default=3, help="the conversation's first N sessions")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    sample = json.loads((args.data / "locomo10.json").read_text())[args.conversation]
    chats = slice_of(sample, args.sessions)
    inside = {turn["dia_id"] for _, _, turns in chats for turn in turns}
    questions = [qa for qa in sample["qa"] if (e := normalise_dia_ids(qa["evidence"])) and set(e) <= inside]
    asked = iso(chats[-1][1])
    embedder = CachedEmbedder(GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, n_threads=args.threads), cache_single=True)
    options = dataclasses.replace(SearchOptions(), k=50)
    report: dict = {"conversation": args.conversation, "sessions": args.sessions, "turns": len(inside),
                    "questions": len(questions)}
    with tempfile.TemporaryDirectory(prefix="engram-fact-keys-") as folder:
        for notes in ("none", "demo", "observation"):
            db = Database(Path(folder) / f"{notes}.sqlite")
            store, sessions = MemoryStore(db, embedder), Sessions(db)
            dia_of = archive(db, store, sessions, chats)
            row: dict = {}
            if notes == "demo":
                row["notes"], row["distil_s"] = demo_notes(store, sessions, chats, args.threads)
                row["examples"] = [m.text for m in store.list(Scope(user=USER), kinds=DISTILLED_KINDS, limit=8)]
            elif notes == "observation":
                row["notes"] = observation_notes(store, sample, chats, {d: m for m, d in dia_of.items()})
            store.embed_pending()
            row |= score(store, questions, dia_of, asked, options)
            if notes != "none":
                row["notes only as themselves"] = score(store, questions, dia_of, asked,
                                                        dataclasses.replace(options, key_weight=0.0))
            report[notes] = row
            db.close()
            print(json.dumps({notes: row}, ensure_ascii=False, indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
