"""Which demo chat model: 20 scripted prompts through Engram's real turn, per model, run by hand.

    .venv/bin/python tests/bench/demo_eval.py                               # the demo model, tools off and on
    .venv/bin/python tests/bench/demo_eval.py --model gemma=/path/gemma-3-270m-q4_k_m.gguf --tools on

Half of the prompts need a fact the person gave in an earlier chat (said in its own session through
the real TurnEngine, archived and embedded by the outbox, then asked in a new session); six are in
Chinese. Every turn is Engram's own (system prompt, file instructions, tools when on, recall), with
the bundled embedding model. Per model it counts replies that copy the instructions (a run of
24+ characters from the turn's system message; "repeats" when more than half the reply is copied,
which the archive then refuses), facts recalled into the prompt, replies that use the recalled
fact, on-topic replies (keyword checks), replies that called a tool, messages archived, and the
median seconds per reply and to the first token.
``--distill`` also lets the model note memories from the facts and prints them. ``--out`` writes
every reply as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))


@dataclass(frozen=True)
class Case:
    ask: str
    topic: tuple[str, ...]               # any of these (lower case) in the reply: on topic
    fact: str = ""                       # said in an earlier chat
    fact_words: tuple[str, ...] = ()     # any of these in the reply: the recalled fact was used


CASES = [
    Case("Can you recommend a snack for my hike tomorrow?", ("snack", "nut", "fruit", "bar", "trail"),
         "I'm allergic to peanuts.", ("peanut", "allerg")),
    Case("When is my sister's birthday?", ("birthday", "sister"),
         "My sister Clara's birthday is on May 3.", ("may 3", "clara")),
    Case("What is my home address again?", ("address", "street", "live"),
         "I live at 12 Rose Street in Lyon.", ("rose street", "lyon")),
    Case("What is my dog's name?", ("dog", "name"), "My dog is called Biscuit.", ("biscuit",)),
    Case("What do I do for a living?", ("work", "job", "nurse"),
         "I work as a nurse at the city hospital.", ("nurse", "hospital")),
    Case("The parser crashes again. What caused it last time?", ("parser", "crash", "bug", "cause"),
         "The parser bug was caused by a missing null check in tokenize().", ("null check", "tokenize")),
    Case("我对什么过敏？", ("过敏",), "我对花生过敏。", ("花生",)),
    Case("我的猫叫什么名字？", ("猫", "名字"), "我的猫叫小白。", ("小白",)),
    Case("我住在哪里？", ("住",), "我住在上海浦东新区。", ("上海", "浦东")),
    Case("我每天早上几点跑步？", ("跑步", "早上"), "我每天早上七点去跑步。", ("七点", "7点", "7:00")),
    Case("What is the capital of France?", ("paris",)),
    Case("Give me one tip for sleeping better.", ("sleep", "bed", "night", "caffeine", "screen")),
    Case("How do I reverse a list in Python?", ("reverse", "[::-1]")),
    Case("What color is the sky on a clear day?", ("blue",)),
    Case("Name a fruit that is yellow.", ("banana", "lemon", "pineapple", "mango")),
    Case("How many days are in a week?", ("seven", "7")),
    Case("Write one sentence about the ocean.", ("ocean", "sea", "water", "wave")),
    Case("法国的首都是哪里？", ("巴黎", "paris")),
    Case("一年有几个月？", ("十二", "12")),
    Case("推荐一种健康的早餐。", ("早餐", "燕麦", "鸡蛋", "水果", "牛奶", "粥", "面包")),
]


def has(text: str, words: tuple[str, ...]) -> bool:
    text = text.lower()
    return any(w in text for w in words)


def evaluate(label: str, path: Path, tools: str, args) -> dict:
    from engram.core.app import Engram
    from engram.core.conversation.archive import ECHO_SHARE, echoed_share
    from engram.core.models.chat_model import LlamaChatModel, Sampling
    from engram.core.memory.scope import Scope

    folder = Path(tempfile.mkdtemp(prefix="engram-demo-eval-"))
    model = LlamaChatModel(path, context_size=4096, threads=args.threads,
                           sampling=Sampling(seed=7, max_tokens=args.max_tokens))
    engram = Engram(folder / "data", folder / "config", chat_model=model)
    engram.settings.chat_tools = tools
    engram.settings.distill_memories = "on" if args.distill else "off"
    rows = []
    for n, case in enumerate(CASES):
        if case.fact:
            engram.sessions.get_or_create(f"fact-{n}", engram.user)
            told = engram.turn_engine.send(f"fact-{n}", case.fact)
            rows.append({"said": case.fact, "reply": told.reply.content})
        engram.outbox.run_due()
    for n, case in enumerate(CASES):
        engram.sessions.get_or_create(f"ask-{n}", engram.user)
        result = engram.turn_engine.send(f"ask-{n}", case.ask)
        reply = result.reply.content
        system = "\n".join(m["content"] for m in result.record.messages if m["role"] == "system")
        share = echoed_share(reply, system)
        rows.append({"ask": case.ask, "reply": reply, "echo": round(share, 2),
                     "recalled": case.fact != "" and has(" ".join(m["text"] for m in result.record.recalled),
                                                         case.fact_words),
                     "used": bool(case.fact) and has(reply, case.fact_words),
                     "on_topic": has(reply, case.topic + case.fact_words),
                     "seconds": result.record.timings["total_ms"] / 1000,
                     "first_token_ms": result.record.timings["first_token_ms"] or result.record.timings["total_ms"],
                     "prompt_tokens": result.record.tokens["prompt"],
                     "tool_calls": [c["name"] for c in result.record.tool_calls]})
    engram.outbox.run_due()
    notes = [m.text for m in engram.store.list(Scope(user=engram.user), kinds=["fact", "preference", "task"])]
    archived = len(engram.store.list(Scope(user=engram.user), kinds=["message"], limit=1000))
    engram.close()
    asked = [r for r in rows if "ask" in r]
    facts = [r for r, c in zip(asked, CASES) if c.fact]
    return {"model": label, "tools": tools, "rows": rows, "notes": notes, "archived": archived,
            "echo": sum(r["echo"] > 0 for r in asked), "repeats": sum(r["echo"] > ECHO_SHARE for r in asked),
            "recalled": sum(r["recalled"] for r in facts), "used": sum(r["used"] for r in facts),
            "on_topic": sum(r["on_topic"] for r in asked), "tool_calls": sum(bool(r["tool_calls"]) for r in asked),
            "seconds": statistics.median(r["seconds"] for r in asked),
            "first_token_ms": statistics.median(r["first_token_ms"] for r in asked),
            "prompt_tokens": statistics.median(r["prompt_tokens"] for r in asked)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", action="append", default=[], help="LABEL=PATH (default: the demo model)")
    parser.add_argument("--tools", nargs="+", default=["off", "on"], choices=["on", "off"])
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--distill", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    from engram.core.models.demo import demo_model_path

    models = [tuple(m.split("=", 1)) for m in args.model] or [("demo", str(demo_model_path()))]
    results = []
    for label, path in models:
        for tools in args.tools:
            results.append(evaluate(label, Path(path), tools, args))
            r = results[-1]
            for row in r["rows"]:
                print(f"  [{label} tools {tools}] {row.get('ask') or row['said']} -> {row['reply'][:150]!r}")
            for note in r["notes"]:
                print(f"  [{label} tools {tools}] noted: {note}")
    facts = sum(1 for c in CASES if c.fact)
    print(f"\n{'model':<28} {'tools':<5} {'echo':>5} {'repeats':>7} {'recalled':>8} {'used':>5} {'on topic':>8}"
          f" {'s/reply':>7} {'first tok ms':>12} {'prompt tok':>10} {'archived':>8} {'tool calls':>10}")
    for r in results:
        print(f"{r['model']:<28} {r['tools']:<5} {r['echo']:>2}/{len(CASES)} {r['repeats']:>4}/{len(CASES)}"
              f" {r['recalled']:>5}/{facts} {r['used']:>2}/{facts} {r['on_topic']:>5}/{len(CASES)}"
              f" {r['seconds']:>7.1f} {r['first_token_ms']:>12.0f} {r['prompt_tokens']:>10.0f} {r['archived']:>8}"
              f" {r['tool_calls']:>7}/{len(CASES)}")
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
