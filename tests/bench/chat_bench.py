"""The turn's cost, run by hand, with the real demo chat model and the bundled embedding model.

    .venv/bin/python tests/bench/chat_bench.py [--turns 30] [--max-tokens 64] [--repeat 3] [--memories 2000]
                                               [--chat-model PATH]
    .venv/bin/python tests/bench/chat_bench.py --prefix-only [--repeat 3]
    .venv/bin/python tests/bench/chat_bench.py --profile-only [--repeat 5]

Prints: tokens/s of Engram's turn beside a bare llama-cpp-python call on the same model, settings
and prompt tokens (target ratio >= 0.97); time to first token at turn 1 and at the last turn of one
session, with the prompt tokens llama.cpp took from its cache; the memory overhead of a turn
(embedding the query + hybrid search) over a store of --memories archived messages; time to first
token of the first and second turns of a new chat after a fresh start (a new Engram and model
instance), with the stable prefix restored from its saved state (target: first <= 1.5 x second)
and, for comparison, without it. And what each
part of the stable prefix (system prompt, preferences, file instructions and index, tool
descriptions) costs a new chat's first token with nothing cached, with tools on and off. And the
cost of a profile change on the turn's first token: in a chat of a few turns with a profile of ten
lines, a message that adds a line against one that changes nothing (target <= 1.3 x).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))


def bare_tokens_per_second(llm, tokens: list[int], max_tokens: int, sampling) -> tuple[float, int]:
    """Stream a completion of the same prompt tokens straight from llama-cpp-python; rate from
    first to last token."""
    stamps = []
    for chunk in llm.create_completion(tokens, stream=True, max_tokens=max_tokens, temperature=sampling.temperature,
                                       top_p=sampling.top_p, top_k=sampling.top_k,
                                       repeat_penalty=sampling.repeat_penalty):
        if chunk["choices"][0]["text"]:
            stamps.append(time.perf_counter())
    if len(stamps) < 2:
        return 0.0, len(stamps)
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), len(stamps)


def first_turns_after_a_fresh_start(label: str) -> tuple[float, float]:
    """Open Engram anew (a new model instance, as after a restart), start a new chat and return the
    time to first token of its first and second turns."""
    from engram.core.app import Engram

    engram = Engram()
    engram.chat_model()                 # loading the model is not part of the turn
    engram.sessions.get_or_create(f"fresh-{label}", "U")
    turns = []
    for text in ("Recommend me a snack for the trip", "And something to drink?"):
        result = engram.turn_engine.send(f"fresh-{label}", text, max_tokens=8)
        engram.outbox.run_due()
        t = result.record.timings
        turns.append(t["first_token_ms"])
        print(f"  {label}: turn {len(turns)} first token {t['first_token_ms']:8.1f} ms,"
              f" {t['cached_tokens']}/{result.record.tokens['prompt']} prompt tokens not evaluated")
    engram.close()
    return turns[0], turns[1]


def first_token_ms(model, system: str, repeat: int) -> float:
    """Shortest time to the first token of a reply to "Hello" after ``system``, read afresh each
    time (a different first line, so llama.cpp reuses none of the previous prompt); the shortest,
    as other work on the machine only ever adds to it."""
    times = []
    for n in range(repeat):
        generation = model.generate([{"role": "system", "content": f"[{time.time_ns() % 10**6}-{n}]\n{system}"},
                                     {"role": "user", "content": "Hello"}], max_tokens=1)
        times.append(generation.prompt_ms)
    return min(times)


def prefix_costs(engram, model, repeat: int) -> None:
    """The stable prefix of a chat with five files and two preferences, built up part by part in
    the turn's order: tokens and first-token time (nothing cached) once each part is added. Added
    up, not subtracted: on a busy machine the difference of two timings is mostly noise."""
    from engram.core.conversation.context import STABLE, TurnContext
    from engram.core.conversation.memory_options import session_scope
    from engram.core.conversation.prompts import EN

    session = engram.sessions.get_or_create("prefix", "U")
    for n in range(5):
        engram.files.write(session.folder, f"note-{n}.md", f"# Note {n}\ntext", f"notes about topic {n}")
    engram.preferences.set("U", "tone", "friendly")
    engram.preferences.set("U", "detail", "brief")
    options = engram.memory_options
    print(f"no system message: first token {first_token_ms(model, '', repeat):.0f} ms")
    for tools in (True, False):
        turn = TurnContext(session, "Hello", 0, session_scope(session, options.storage_scope),
                           session_scope(session, options.search_scope), model.count_tokens, EN, tools)
        sections, _ = engram.turn_engine._context(turn, model)   # the turn's own providers and order
        parts = [(s.name, "\n\n".join(m["content"] for m in s.messages)) for s in sections if s.slot == STABLE]
        print(f"stable prefix, tools {'on' if tools else 'off'}:")
        for end in range(1, len(parts) + 1):
            prefix = "\n\n".join(text for _, text in parts[:end])
            name, text = parts[end - 1]
            print(f"  + {name:<12} {model.count_tokens(text):>4} tokens -> {model.count_tokens(prefix):>4} tokens,"
                  f" first token {first_token_ms(model, prefix, repeat):6.0f} ms")


def profile_change_cost(engram, repeat: int) -> None:
    """First token of a turn whose message adds a profile line (the profile after the stable prefix
    is read again) beside a turn that changes nothing, alternating, in one chat of a few turns."""
    from engram.core.profile.document import ProfileLine

    for text in ("Lives in Lyon.", "Takes metformin every evening.", "Mother's birthday is March 5.",
                 "Afraid of heights.", "Vegetarian since 2019.", "Works as a nurse.", "Speaks French.",
                 "Daughter Mia is 7.", "Thesis due June 3.", "Prefers short answers."):
        engram.profiles.note("U", ProfileLine(text, "other", importance=3))
    session = engram.sessions.get_or_create("profile-cost", "U").id
    for turn in range(4):
        engram.turn_engine.send(session, f"Tell me about trains, part {turn}.", max_tokens=8)
    pairs = []
    allergens = ["peanuts", "cashews", "walnuts", "sesame", "shellfish", "kiwi", "celery", "mustard", "soy", "lupin"]
    for n in range(repeat):
        plain = engram.turn_engine.send(session, f"What about buses, part {n}?", max_tokens=8)
        noting = engram.turn_engine.send(session, f"I'm allergic to {allergens[n % len(allergens)]}.", max_tokens=8)
        assert noting.noted and not plain.noted, "the learner did not note the allergy"
        pairs.append([(r.record.timings["first_token_ms"], r.record.tokens["prompt"] - r.record.timings["cached_tokens"])
                      for r in (plain, noting)])
        (ms, read), (ms_changed, read_changed) = pairs[-1]
        print(f"  unchanged {ms:7.1f} ms ({read} tokens read), profile changed {ms_changed:7.1f} ms"
              f" ({read_changed} tokens read): {ms_changed / ms:.2f} x")
    ratios = [changed[0] / same[0] for same, changed in pairs]
    print(f"first token after a profile change against unchanged: median {statistics.median(ratios):.2f} x"
          f" (target <= 1.3); tokens read {statistics.median(p[1][1] for p in pairs):.0f} against"
          f" {statistics.median(p[0][1] for p in pairs):.0f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--chat-model", default="", help="a .gguf (default: the demo model)")
    parser.add_argument("--prefix-only", action="store_true", help="only the stable prefix's costs")
    parser.add_argument("--profile-only", action="store_true", help="only the cost of a profile change")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="engram-chat-bench-"))
    os.environ["ENGRAM_DATA_DIR"] = str(folder / "data")
    os.environ["ENGRAM_CONFIG_DIR"] = str(folder / "config")
    os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
    os.environ["ENGRAM_CACHE_DIR"] = str(folder / "cache")
    if args.chat_model:
        (folder / "config").mkdir(parents=True)
        (folder / "config" / "settings.json").write_text(json.dumps({"chat_model": args.chat_model}))

    from llama_cpp import Llama

    from engram.core.app import Engram
    from engram.core.memory.records import Kind, NewMemory
    from engram.core.memory.scope import Scope

    engram = Engram()
    model = engram.chat_model()
    print(f"chat model {model.path.name} ({model.chat_format}), context {model.context_tokens},"
          f" threads {engram.settings.chat_threads or os.cpu_count()}")
    if args.prefix_only or args.profile_only:
        (prefix_costs(engram, model, args.repeat) if args.prefix_only else profile_change_cost(engram, args.repeat))
        engram.close()
        return

    topics = ["peanuts", "the train to Lyon", "my sister's birthday", "a bug in the parser", "hiking boots",
              "the rent", "tomato soup", "a printer error", "Python packaging", "the dentist"]
    engram.store.add_many([NewMemory(f"Message {n} about {topics[n % len(topics)]} and detail {n * 7919 % 1000}",
                                     Scope(user="U", session=f"old-{n // 20}"), Kind.MESSAGE)
                           for n in range(args.memories)])
    engram.store.add("I am allergic to peanuts", Scope(user="U", session="old-x"), Kind.MESSAGE)

    # 1. tokens/s: Engram's turn against a bare call on the same prompt, alternating to share the noise.
    bare = Llama(model_path=str(model.path), n_ctx=model.context_tokens, n_threads=engram.settings.chat_threads
                 or os.cpu_count(), n_threads_batch=engram.settings.chat_threads or os.cpu_count(),
                 swa_full=True, chat_format=model.chat_format, verbose=False)
    ours, theirs = [], []
    for n in range(args.repeat):
        engram.sessions.get_or_create(f"speed-{n}", "U")
        result = engram.turn_engine.send(f"speed-{n}", "Tell me a long story about a snack.",
                                         max_tokens=args.max_tokens)
        ours.append(result.record.timings["tokens_per_second"])
        tokens = model._template.render(result.record.messages).tokens
        rate, count = bare_tokens_per_second(bare, tokens, args.max_tokens, model.sampling)
        theirs.append(rate)
        print(f"  run {n + 1}: engram {ours[-1]:.2f} tok/s ({result.record.tokens['reply']} tokens),"
              f" bare {rate:.2f} tok/s ({count} tokens)")
    bare.close()
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(f"tokens/s  engram {statistics.median(ours):.2f}  bare llama-cpp-python {statistics.median(theirs):.2f}"
          f"  ratio {ratio:.3f} (target >= 0.97)")

    # 2. time to first token over one session, and 3. memory overhead per turn.
    engram.sessions.get_or_create("long", "U")
    rows = []
    for turn in range(1, args.turns + 1):
        result = engram.turn_engine.send("long", f"Turn {turn}: recommend me a snack for the trip", max_tokens=8)
        engram.outbox.run_due()
        t = result.record.timings
        rows.append((turn, t["first_token_ms"], t["prompt_ms"], t["cached_tokens"], result.record.tokens["prompt"],
                     t["embed_ms"], t["search_ms"]))
    for turn, first, prompt, cached, tokens, embed, search in rows:
        if turn in (1, 2, args.turns - 1, args.turns) or turn % 10 == 0:
            print(f"  turn {turn:>3}: first token {first:8.1f} ms (prompt eval {prompt:8.1f} ms),"
                  f" {cached}/{tokens} prompt tokens from cache, embed {embed:.1f} ms, search {search:.1f} ms")
    first, last = rows[0], rows[-1]
    print(f"time to first token  turn 1: {first[1]:.0f} ms  turn {last[0]}: {last[1]:.0f} ms"
          f" ({last[3]}/{last[4]} prompt tokens reused)")
    overhead = [r[5] + r[6] for r in rows]
    print(f"memory overhead per turn (embed + search, {engram.store.count():,} memories):"
          f" median {statistics.median(overhead):.1f} ms, max {max(overhead):.1f} ms")

    # 4. what the stable prefix costs a new chat, and what a profile change costs a turn.
    prefix_costs(engram, model, args.repeat)
    profile_change_cost(engram, args.repeat)
    engram.close()

    # 5. A fresh start: the stable prefix evaluated by the runs above is restored from its state file.
    first, second = first_turns_after_a_fresh_start("saved prefix")
    print(f"time to first token after a fresh start  turn 1: {first:.0f} ms  turn 2: {second:.0f} ms"
          f"  ratio {first / second:.2f} (target <= 1.5)")
    os.environ["ENGRAM_CACHE_DIR"] = str(folder / "empty-cache")
    first, second = first_turns_after_a_fresh_start("no saved prefix")
    print(f"  without the saved prefix: turn 1 {first:.0f} ms, turn 2 {second:.0f} ms, ratio {first / second:.2f}")


if __name__ == "__main__":
    main()
