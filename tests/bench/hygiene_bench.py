"""What recall's preference for the person's words costs where it could hurt most (run by hand).

    .venv/bin/python tests/bench/hygiene_bench.py [--locomo 10] [--cached-queries]

LoCoMo as tests/bench/retrieval.py reads it (one database per conversation, the store's default
search), except that the second speaker of each conversation is stored as the assistant, so
REPLY_WEIGHT lowers half of all turns, including the evidence of every question about that
speaker. Prints recall@5/@10 of the search alone and after recall's reordering
(engram.core.conversation.recall.persons_words_first) of its 50 best with each of --weights, overall and for
questions whose evidence the first speaker said versus the second; and, last, with replies of a few
words dropped as recall drops them (``hollow``: "Yes!", "OK" said by the assistant).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import DEFAULT, REPO, Run, iso, locomo_turn_text  # noqa: E402  (puts desktop/ on the path)
from embed_cache import CachedEmbedder  # noqa: E402
from metrics import mean, normalise_dia_ids, unit_recall  # noqa: E402

from engram.core.models.embeddings import GGUFEmbedder  # noqa: E402
from engram.core.paths import BUNDLED_EMBEDDING_MODEL  # noqa: E402
from engram.core.conversation.recall import REPLY_WEIGHT, hollow, persons_words_first  # noqa: E402
from engram.core.memory.records import NewMemory  # noqa: E402
from engram.core.memory.scope import Scope  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench-data")
    parser.add_argument("--locomo", type=int, default=10)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--cached-queries", action="store_true")
    parser.add_argument("--weights", type=float, nargs="+", default=[REPLY_WEIGHT])
    args = parser.parse_args()

    embedder = CachedEmbedder(GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, n_threads=args.threads),
                              cache_single=args.cached_queries)
    scores: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="engram-hygiene-") as folder:
        run = Run("locomo", embedder, Path(folder))
        for number, sample in enumerate(json.loads((args.data / "locomo10.json").read_text())[:args.locomo]):
            user, conversation = f"locomo-{number}", sample["conversation"]
            speaker_of, items = {}, []
            for key in sorted((k for k in conversation if k.startswith("session_") and not k.endswith("date_time")),
                              key=lambda k: int(k.split("_")[1])):
                when = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
                for turn in conversation[key]:
                    role = "user" if turn["speaker"] == conversation["speaker_a"] else "assistant"
                    speaker_of[normalise_dia_ids([turn["dia_id"]])[0]] = role
                    items.append(NewMemory(locomo_turn_text(turn), Scope("bench", "", user, key), "message",
                                           source={"dia_id": turn["dia_id"], "role": role}, created_at=iso(when)))
            run.open(user)
            run.ingest(items)
            for qa in sample["qa"]:
                evidence = normalise_dia_ids(qa["evidence"])
                said_by = {speaker_of.get(e) for e in evidence} - {None}
                group = "by the person" if said_by == {"user"} else "by the 'assistant'" if said_by == {
                    "assistant"} else "by both"
                hits = run.search("default", DEFAULT, qa["question"], Scope(user=user))
                reordered = [(f"x{w}", persons_words_first(hits, w)) for w in args.weights]
                for name, ranked in [("search", hits), *reordered,
                                     ("no-hollow", [h for h in reordered[0][1] if not hollow(h)])]:
                    units = [normalise_dia_ids([h.memory.source["dia_id"]]) for h in ranked]
                    for k in (5, 10):
                        value = unit_recall(units, evidence, k)
                        scores[f"{name} overall@{k}"].append(value)
                        scores[f"{name} {group}@{k}"].append(value)
        run.close()
    print(f"LoCoMo, {args.locomo} conversations, second speaker stored as the assistant (REPLY_WEIGHT is"
          f" {REPLY_WEIGHT}); R@5 / R@10 of the search, then reordered with each weight")
    groups = sorted({key.split(" ", 1)[1].rsplit("@", 1)[0] for key in scores})
    for group in groups:
        figures = "   ".join(f"{name} {mean(scores[f'{name} {group}@5']):.3f} / {mean(scores[f'{name} {group}@10']):.3f}"
                             for name in ["search"] + [f"x{w}" for w in args.weights] + ["no-hollow"])
        print(f"  {group:<20} ({len(scores[f'search {group}@5']):>4} questions)  {figures}")


if __name__ == "__main__":
    main()
