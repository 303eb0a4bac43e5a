"""Chat runtime figures on the demo model (run by hand: .venv/bin/python tests/bench/chat_model_bench.py).

Prints load time, free-text tokens/s, prompt evaluation with and without a cached shared prefix,
and JSON-constrained tokens/s with our shortlist grammar mask against llama-cpp-python's own
whole-vocabulary grammar sampler.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(Path(__file__).resolve().parents[2] / ".cache" / "models"))

from engram.core.models.chat_model import LlamaChatModel, Sampling  # noqa: E402
from engram.core.models.demo import demo_model_path  # noqa: E402
from engram.core.models.grammar import schema_grammar  # noqa: E402

MEMORY = {"type": "object", "required": ["kind", "text", "importance"],
          "properties": {"kind": {"enum": ["fact", "preference", "task"]},
                         "text": {"type": "string", "maxLength": 80}, "importance": {"type": "integer"}}}


def main() -> None:
    started = time.perf_counter()
    path = demo_model_path()
    print(f"demo model ready in {time.perf_counter() - started:.2f} s: {path}")
    model = LlamaChatModel(path, sampling=Sampling(seed=1, temperature=0.0, repeat_penalty=1.0))
    print(f"load: {model.load_seconds * 1000:.0f} ms (context {model.context_tokens}, format {model.chat_format})")
    model.generate([{"role": "user", "content": "warm up"}], max_tokens=2)

    free = model.generate([{"role": "user", "content": "Tell me a long story about a lighthouse."}], max_tokens=64)
    print(f"free text: {free.completion_tokens} tokens, {free.tokens_per_second:.1f} tokens/s")

    notes = "Notes. " + " ".join(f"Item {i} is kept in box {i * 7 % 13} on shelf {i % 5}." for i in range(80))
    first = model.generate([{"role": "system", "content": notes}, {"role": "user", "content": "Where is item 3?"}],
                           max_tokens=4)
    second = model.generate([{"role": "system", "content": notes}, {"role": "user", "content": "And item 9?"}],
                            max_tokens=4)
    for label, g in (("first", first), ("second", second)):
        print(f"shared prefix, {label} call: prompt {g.prompt_tokens} tokens, evaluated"
              f" {g.timings['prompt_eval_tokens']}, cached {g.timings['cached_tokens']}, prompt_ms {g.prompt_ms:.0f}")
    print(f"prompt evaluation: {first.prompt_tokens / (first.prompt_ms / 1000):.0f} tokens/s;"
          f" second call prompt_ms is {first.prompt_ms / second.prompt_ms:.1f}x lower")

    ask = [{"role": "user", "content": "I am allergic to peanuts. Extract one memory as JSON."}]
    masked = model.generate(ask, json_schema=MEMORY, max_tokens=60)
    print(f"JSON, shortlist mask: {masked.completion_tokens} tokens, {masked.tokens_per_second:.1f} tokens/s: {masked.text}")
    grammar = schema_grammar(MEMORY)
    t = time.perf_counter()
    whole = model._worker.submit(lambda: model._llm.create_chat_completion(
        ask, temperature=0.0, repeat_penalty=1.0, max_tokens=60, grammar=grammar)).result()
    seconds = time.perf_counter() - t
    tokens = whole["usage"]["completion_tokens"]
    print(f"JSON, llama-cpp-python grammar over the whole vocabulary: {tokens} tokens in {seconds:.1f} s"
          f" ({tokens / seconds:.1f} tokens/s incl. prompt): {whole['choices'][0]['message']['content']}")
    model.close()


if __name__ == "__main__":
    main()
