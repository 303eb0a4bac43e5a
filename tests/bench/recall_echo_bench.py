"""How often a small model's reply copies the recalled memories' block format, per line form, run by hand.

    .venv/bin/python tests/bench/recall_echo_bench.py                 # the demo model, 3 seeds x 10 facts
    .venv/bin/python tests/bench/recall_echo_bench.py --model /path/qwen.gguf --seeds 5

The ten facts of demo_eval.py are stored as the person's words in earlier chats, then each is asked
about in a new chat through Engram's real turn (its system prompt, recall and block), once per
seed. The block's lines are written three ways: ``old`` (``[2026-12-03 session 1f07…, user
said] "…"``, Engram's form before issue 35), ``new`` (``- "…" (the person said, 3 Dec 2026)``,
recall.py's ``quote`` now) and ``plain`` (the quoted words alone, a floor). A reply copies the form
when one of its lines starts as the block's lines do or holds the block's source words. Printed:
per form, replies that copy it, that use the fact, and the median seconds per reply.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(Path(__file__).parent))

from demo_eval import CASES, has  # noqa: E402

FACTS = [case for case in CASES if case.fact]


def old_quote(hit) -> str:
    """The block's line before issue 35 (recall.py at main 840309a)."""
    from engram.core.conversation.quoting import defused
    from engram.core.memory.records import now_iso

    m = hit.memory
    role = m.source.get("role")
    where = f"session {m.scope.session}" if m.scope.session else "memory"
    said = f", {role} said" if role else f", {m.kind.value}"
    outdated = f"; {why}" if (why := m.outdated(now_iso())) else ""
    return f"[{m.created_at[:10]} {where}{said}{outdated}] {json.dumps(defused(m.text), ensure_ascii=False)}"


def plain_quote(hit) -> str:
    return json.dumps(hit.memory.text, ensure_ascii=False)


# A reply line that starts as the block's lines do, or the block's source words anywhere.
COPIES = {
    "old": re.compile(r"^\W*\[\d{4}-\d{2}-\d{2}|\b(?:session [0-9a-f]{6,}|user said\])", re.M),
    "new": re.compile(r'^\W*-\s+"|\((?:the person said|you replied|[a-z]+ noted)\b', re.M),
    "plain": re.compile(r'^\W*"[^"\n]{8,}"\s*$', re.M),
}


def run(form: str, quote, path: Path, seeds: list[int], max_tokens: int) -> dict:
    from engram.core.app import Engram
    from engram.core.conversation import recall
    from engram.core.memory.scope import Scope
    from engram.core.models.chat_model import LlamaChatModel, Sampling

    recall.quote = quote
    folder = Path(tempfile.mkdtemp(prefix=f"engram-echo-{form}-"))
    model = LlamaChatModel(path, context_size=4096, sampling=Sampling(max_tokens=max_tokens))
    engram = Engram(folder / "data", folder / "config", chat_model=model)
    engram.settings.chat_tools = "off"
    engram.settings.distill_memories = "off"
    for n, case in enumerate(FACTS):
        session = engram.sessions.get_or_create(f"fact-{n}", engram.user)
        message = engram.sessions.add_message(session.id, "user", case.fact)
        engram.store.add(case.fact, Scope(user=engram.user, session=session.id), "message",
                         source_ids=(message.id,), source={"role": "user", "message_id": message.id})
    rows = []
    for seed in seeds:
        model.sampling = replace(model.sampling, seed=seed)
        for n, case in enumerate(FACTS):
            session = engram.sessions.get_or_create(f"ask-{seed}-{n}", engram.user)
            result = engram.turn_engine.send(session.id, case.ask)
            reply = result.reply.content
            rows.append({"ask": case.ask, "reply": reply, "copies": bool(COPIES[form].search(reply)),
                         "used": has(reply, case.fact_words), "seconds": result.record.timings["total_ms"] / 1000})
    engram.close()
    return {"form": form, "rows": rows, "copies": sum(r["copies"] for r in rows),
            "used": sum(r["used"] for r in rows), "seconds": statistics.median(r["seconds"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, help="a GGUF chat model (default: the demo model)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--forms", nargs="+", default=["old", "new", "plain"], choices=list(COPIES))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    from engram.core.conversation.recall import quote
    from engram.core.models.demo import demo_model_path

    quotes = {"old": old_quote, "new": quote, "plain": plain_quote}
    path = args.model or demo_model_path()
    seeds = [7 + n for n in range(args.seeds)]
    results = [run(form, quotes[form], path, seeds, args.max_tokens) for form in args.forms]
    for result in results:
        for row in result["rows"]:
            if row["copies"]:
                print(f"  [{result['form']}] {row['ask']} -> {row['reply'][:160]!r}")
    print(f"\n{'form':<6} {'copies':>8} {'used fact':>9} {'s/reply':>7}   ({len(seeds)} seeds x {len(FACTS)} facts,"
          f" {path.name})")
    for r in results:
        total = len(r["rows"])
        print(f"{r['form']:<6} {r['copies']:>5}/{total} {r['used']:>6}/{total} {r['seconds']:>7.2f}")
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
