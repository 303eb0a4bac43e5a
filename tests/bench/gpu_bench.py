"""A turn's tokens per second on the device this llama.cpp build uses, run by hand.

    PYTHONPATH=desktop python tests/bench/gpu_bench.py [--model PATH] [--layers auto|0|-1|N]
                                                       [--tokens 128] [--runs 3] [--expect CPU|Vulkan|CUDA|Metal]

The Python that runs it decides the build: the development .venv (CPU), or one with the Vulkan or
CUDA wheel installed (packaging/check_vulkan.sh makes one). Prints the build's backends and devices,
where the model was placed (Engram's own loading: chat_gpu_layers, the CPU fallback), the load
time, and for each run the first token's wait and the reply's tokens per second (from the first
token to the last), then the median. --layers 0 runs the same build on the CPU for a comparison.
--expect exits 1 unless the model ran on that backend (CPU: no layer offloaded). Mesa's software
Vulkan device (lavapipe) is a CPU-type device that llama.cpp skips unless GGML_VK_VISIBLE_DEVICES
names it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))

PROMPT = ("Write a long story about a lighthouse keeper who finds a message in a bottle."
          " Describe the sea, the weather and every day of the week that follows.")


def main() -> int:
    from engram.core.models import gpu
    from engram.core.models.chat_model import LlamaChatModel, Sampling
    from engram.core.models.demo import demo_model_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=None, help="a chat GGUF (default: the demo model)")
    parser.add_argument("--layers", default="auto", help="chat_gpu_layers: auto, 0 (CPU), -1 (all) or a number")
    parser.add_argument("--tokens", type=int, default=128, help="tokens asked for in each reply")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--context", type=int, default=2048)
    parser.add_argument("--expect", default="", help="exit 1 unless the model ran on this backend")
    args = parser.parse_args()

    model_path = args.model or demo_model_path()
    print(f"llama.cpp backends: {', '.join(gpu.backends())}")
    for device in gpu.devices():
        print(f"  device {device.name}: {device.label} ({'GPU' if device.gpu else 'CPU'}), {device.memory()}")
    started = time.perf_counter()
    model = LlamaChatModel(model_path, context_size=args.context, gpu_layers=gpu.parse_layers(args.layers),
                           sampling=Sampling(seed=7, temperature=0.7, max_tokens=args.tokens))
    print(f"model: {model_path.name} ({model_path.stat().st_size / 1e6:.0f} MB), layers {args.layers}:"
          f" {model.placement.describe()}, loaded in {time.perf_counter() - started:.1f} s")
    rates, firsts = [], []
    try:
        for run in range(1, args.runs + 1):
            # A new chat each run (its first words differ), so no run reuses the last one's KV cache.
            reply = model.generate([{"role": "user", "content": f"({run}) {PROMPT}"}])
            rates.append(reply.tokens_per_second)
            firsts.append(reply.prompt_ms / 1000)
            print(f"  run {run}: {reply.completion_tokens} tokens, first token after {reply.prompt_ms / 1000:.2f} s"
                  f" ({reply.prompt_tokens} prompt tokens), {reply.tokens_per_second:.1f} tokens/s")
    finally:
        model.close()
    print(f"median: {statistics.median(rates):.1f} tokens/s, first token {statistics.median(firsts):.2f} s"
          f" [{model.placement.describe()}]")
    ran_on = model.placement.device.backend if model.placement.layers else "CPU"
    if args.expect and ran_on != args.expect:
        print(f"expected the {args.expect} backend, the model ran on {ran_on}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
