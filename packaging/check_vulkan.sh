#!/usr/bin/env bash
# Check the Vulkan build (ENGRAM_GPU=vulkan packaging/build_linux.sh) without a GPU: a turn of the
# demo model runs through llama.cpp's Vulkan backend on Mesa's software device (lavapipe), and the
# models fall back to the CPU when Vulkan offers no device. Prints each run's tokens per second
# (tests/bench/gpu_bench.py); lavapipe is far slower than the CPU build: it only shows the path works.
#
#   packaging/check_vulkan.sh [PYTHON]
#
# PYTHON has the Vulkan llama-cpp-python and Engram's requirements (default: build/venv-vulkan's).
# Needs mesa-vulkan-drivers (lavapipe) and vulkan-tools (vulkaninfo).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${1:-$ROOT/build/venv-vulkan/bin/python}"
BENCH=("$PY" "$ROOT/tests/bench/gpu_bench.py" --runs "${RUNS:-2}" --tokens "${TOKENS:-64}")
cd "$ROOT"

echo "== the build has the Vulkan backend"
PYTHONPATH="$ROOT/desktop" "$PY" -c '
import sys
from engram.core.models import gpu
sys.exit(0 if "Vulkan" in gpu.backends() else f"no Vulkan backend in this llama.cpp build: {gpu.backends()}")'

echo "== lavapipe, Mesa's software Vulkan device"
if ! vulkaninfo --summary 2>/dev/null | grep -q "PHYSICAL_DEVICE_TYPE_CPU"; then
    echo "check_vulkan.sh: no software Vulkan device: sudo apt-get install mesa-vulkan-drivers vulkan-tools" >&2
    exit 1
fi

# llama.cpp leaves CPU-type Vulkan devices out unless they are named: lavapipe is device 0 here.
echo "== a turn through the Vulkan backend (lavapipe named by GGML_VK_VISIBLE_DEVICES=0)"
GGML_VK_VISIBLE_DEVICES=0 PYTHONPATH="$ROOT/desktop" "${BENCH[@]}" --expect Vulkan

echo "== no Vulkan device (lavapipe left out, as llama.cpp does by default): the CPU"
PYTHONPATH="$ROOT/desktop" "${BENCH[@]}" --expect CPU

echo "== check_vulkan.sh: both passed"
