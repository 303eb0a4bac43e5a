"""Recall always or only when asked about the past: prompt tokens per turn on a scripted chat, run by hand.

    .venv/bin/python tests/bench/trigger_bench.py                 # before_call against triggered
    .venv/bin/python tests/bench/trigger_bench.py --modes before_call triggered hybrid --out /tmp/t.json

Eight facts are told in chats of their own (four in English, four in Chinese), archived and embedded
by the outbox; then one new chat of 20 scripted turns, in English and in Chinese, some of which need
a fact (asked with a trigger word, as a question about the person, or neither: "Suggest a snack for
the trip" needs the peanut allergy and gives no sign). Every turn goes through Engram's real
TurnEngine with the demo chat model (SmolLM2-135M-Instruct) and the bundled embedding model, once
per recall mode, each in a copy of the data folder where the facts were told. Per mode: the
prompt's tokens per turn (as the model counted them) and the recalled block's, the turns that
searched, and the turns that needed a fact and had it recalled. Replies are short
(``--max-tokens``), so the window grows alike in every mode.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))

FACTS = ["I'm allergic to peanuts.", "My sister Clara's birthday is on May 3.", "My dog is called Biscuit.",
         "The parser bug was caused by a missing null check in tokenize().",
         "我住在上海浦东新区。", "我的猫叫小白。", "我每天早上七点去跑步。", "我女儿在学钢琴。"]


@dataclass(frozen=True)
class Turn:
    say: str
    fact: str = ""                      # the fact the turn needs, if any
    words: tuple[str, ...] = ()         # any of these in the recalled text: the fact was recalled


CHAT = [
    Turn("Hi! How are you today?"),
    Turn("What is the capital of France?"),
    Turn("Do you remember what my dog is called?", FACTS[2], ("biscuit",)),
    Turn("Give me one tip for sleeping better."),
    Turn("How do I reverse a list in Python?"),
    Turn("The parser crashes again. What caused it last time?", FACTS[3], ("null check", "tokenize")),
    Turn("Write one sentence about the ocean."),
    Turn("When is my sister's birthday?", FACTS[1], ("may 3", "clara")),
    Turn("Suggest a snack for the trip.", FACTS[0], ("peanut",)),
    Turn("Thanks, that helps."),
    Turn("你好！今天天气不错。"),
    Turn("法国的首都是哪里？"),
    Turn("我住在哪里？", FACTS[4], ("上海", "浦东")),
    Turn("一年有几个月？"),
    Turn("我之前跟你说过我的猫叫什么吗？", FACTS[5], ("小白",)),
    Turn("推荐一种健康的早餐。"),
    Turn("我每天早上几点跑步？", FACTS[6], ("七点",)),
    Turn("写一句关于大海的话。"),
    Turn("上次我说我女儿在学什么？", FACTS[7], ("钢琴",)),
    Turn("谢谢，再见！"),
]


def told(model, max_tokens: int) -> Path:
    """A data folder where the facts were told, each in a chat of its own, archived and embedded."""
    from engram.core.app import Engram

    folder = Path(tempfile.mkdtemp(prefix="engram-trigger-bench-"))
    engram = Engram(folder / "data", folder / "config", chat_model=model)
    for n, fact in enumerate(FACTS):
        engram.sessions.get_or_create(f"fact-{n}", engram.user)
        engram.turn_engine.send(f"fact-{n}", fact, max_tokens=max_tokens)
    engram.outbox.run_due()
    engram.close()
    return folder


def run(mode: str, model, facts: Path, max_tokens: int) -> dict:
    from engram.core.app import Engram

    folder = Path(tempfile.mkdtemp(prefix=f"engram-trigger-bench-{mode}-"))
    shutil.copytree(facts, folder, dirs_exist_ok=True)
    engram = Engram(folder / "data", folder / "config", chat_model=model)
    engram.settings.recall_mode = mode
    engram.sessions.get_or_create("chat", engram.user)
    rows = []
    for turn in CHAT:
        record = engram.turn_engine.send("chat", turn.say, max_tokens=max_tokens).record
        recalled = " ".join(m["text"] for m in record.recalled).lower()
        rows.append({"say": turn.say, "needs": bool(turn.fact),
                     "got": bool(turn.fact) and any(w in recalled for w in turn.words),
                     "searched": bool(record.recall.get("searched")), "triggers": record.recall.get("triggers", []),
                     "about_person": record.recall.get("about_person", False),
                     "prompt": record.tokens["prompt"], "recalled_tokens": record.tokens["sections"].get("recalled", 0),
                     "memories": len(record.recalled),
                     "search_ms": record.timings["embed_ms"] + record.timings["search_ms"],
                     "prompt_ms": record.timings["prompt_ms"]})
        print(f"  [{mode}] {turn.say[:40]!r}: {rows[-1]['prompt']} prompt tokens,"
              f" {record.timings['total_ms'] / 1000:.1f} s", file=sys.stderr, flush=True)
        engram.outbox.run_due()
    engram.close()
    return {"mode": mode, "rows": rows}


def summary(result: dict) -> dict:
    rows = result["rows"]
    needs = [r for r in rows if r["needs"]]
    return {"mode": result["mode"], "prompt_mean": statistics.mean(r["prompt"] for r in rows),
            "prompt_total": sum(r["prompt"] for r in rows),
            "recalled_mean": statistics.mean(r["recalled_tokens"] for r in rows),
            "searched": sum(r["searched"] for r in rows), "got": sum(r["got"] for r in needs), "needs": len(needs),
            "search_ms": sum(r["search_ms"] for r in rows), "prompt_ms": sum(r["prompt_ms"] for r in rows)}


def padded(text: str, width: int) -> str:
    """``text`` cut or filled to ``width`` columns of a terminal (a Chinese character takes two)."""
    out, used = "", 0
    for char in text:
        wide = 2 if unicodedata.east_asian_width(char) in "WF" else 1
        if used + wide > width:
            break
        out, used = out + char, used + wide
    return out + " " * (width - used)


def report(results: list[dict]) -> None:
    print(padded("turn", 52) + "".join(f" {r['mode'][:11]:>11} {'rec':>4}" for r in results)
          + "  fact recalled, why")
    for n, turn in enumerate(CHAT):
        rows = [r["rows"][n] for r in results]
        cells = "".join(f" {row['prompt']:>11} {row['recalled_tokens']:>4}" for row in rows)
        got = " ".join(("+" if row["got"] else "-") + r["mode"][:3] for r, row in zip(results, rows)) \
            if turn.fact else ""
        why = ",".join(rows[-1]["triggers"]) + (" (about the person)" if rows[-1]["about_person"] else "")
        print(f"{padded(turn.say, 52)}{cells}  {got} {why}")
    print(f"\n{'mode':<12} {'prompt tok/turn':>15} {'total':>7} {'change':>7} {'recalled tok/turn':>17}"
          f" {'searched':>8} {'facts recalled':>14} {'search+embed ms':>15} {'prompt ms':>9}")
    summaries = [summary(r) for r in results]
    for s in summaries:
        change = s["prompt_total"] / summaries[0]["prompt_total"] - 1
        print(f"{s['mode']:<12} {s['prompt_mean']:>15.1f} {s['prompt_total']:>7} {change:>+7.1%}"
              f" {s['recalled_mean']:>17.1f} {s['searched']:>5}/{len(CHAT)} {s['got']:>12}/{s['needs']}"
              f" {s['search_ms']:>15.0f} {s['prompt_ms']:>9.0f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", nargs="+", default=["before_call", "triggered"])
    parser.add_argument("--model", type=Path, help="a chat model's GGUF (default: the demo model)")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, help="write every turn's figures as JSON")
    parser.add_argument("--report", type=Path, help="print the figures of an earlier --out, running nothing")
    args = parser.parse_args()
    if args.report:
        report(json.loads(args.report.read_text()))
        return
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    from engram.core.models.chat_model import LlamaChatModel, Sampling
    from engram.core.models.demo import demo_model_path

    def model():          # one per data folder (closing Engram closes its model)
        return LlamaChatModel(args.model or demo_model_path(), context_size=4096, threads=args.threads,
                              sampling=Sampling(seed=7))

    facts = told(model(), args.max_tokens)
    results = [run(mode, model(), facts, args.max_tokens) for mode in args.modes]
    report(results)
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
