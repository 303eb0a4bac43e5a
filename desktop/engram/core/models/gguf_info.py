"""What a GGUF model file is, read from its header without loading it: for the Settings page
(name, size, context length) before the person commits to a model."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from engram.core.errors import ModelError
from engram.core.models.gguf import check_model_file

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9
MAX_KEYS = 100_000


@dataclass(frozen=True)
class ModelInfo:
    path: Path
    name: str
    size: int                 # bytes on disk
    architecture: str
    context_length: int | None
    embedding_length: int | None
    layers: int | None = None         # transformer blocks: what GPU offloading counts (gpu.py)
    kv_width: int | None = None       # numbers a token keeps per layer for K (and again for V)

    def summary(self) -> str:
        context = f"{self.context_length:,} tokens of context" if self.context_length else "context length unknown"
        width = f" · {self.embedding_length:,} dimensions" if self.embedding_length else ""
        return (f"{self.name} · {self.architecture or 'unknown architecture'} · {self.size / 2**20:,.0f} MiB · "
                f"{context}{width}")


def read_model_info(path: str | os.PathLike, role: str = "chat") -> ModelInfo:
    """Read the GGUF header's metadata; ModelError (with a fix) for anything that is not a GGUF file."""
    p = check_model_file(path, role)
    wanted: dict[str, object] = {}
    keys = ("context_length", "embedding_length", "block_count", "attention.head_count", "attention.head_count_kv")
    try:
        with p.open("rb") as f:
            reader = _Reader(f)
            f.read(4)
            version = reader.scalar(4)
            if version < 2:
                raise ModelError(f"{p} is a GGUF version {version} file, too old for llama.cpp")
            reader.scalar(10)                    # tensor count
            for _ in range(min(reader.scalar(10), MAX_KEYS)):
                key = reader.string()
                kind = reader.scalar(4)
                architecture = wanted.get("general.architecture")
                if architecture and key.startswith("tokenizer."):   # the model's keys come first: skip the vocabulary
                    break
                if key in ("general.architecture", "general.name") or (
                        architecture and key.startswith(f"{architecture}.") and key.split(".", 1)[1] in keys):
                    wanted[key] = reader.value(kind)
                else:
                    reader.skip(kind)
                if architecture and len(wanted) == 2 + len(keys):  # all found
                    break
    except (struct.error, UnicodeDecodeError, OverflowError, MemoryError) as e:
        raise ModelError(f"{p} starts like a GGUF file but its header is damaged ({e})",
                         hint="download the model again") from e
    architecture = str(wanted.get("general.architecture", ""))
    found = {key: _int(wanted.get(f"{architecture}.{key}")) for key in keys}
    width, heads, kv_heads = found["embedding_length"], found["attention.head_count"], found["attention.head_count_kv"]
    # Grouped-query attention keeps kv_heads of the heads; unknown (or per-layer arrays): all of them.
    kv_width = width * kv_heads // heads if width and heads and kv_heads else width
    return ModelInfo(p, str(wanted.get("general.name") or p.stem), p.stat().st_size, architecture,
                     found["context_length"], width, found["block_count"], kv_width)


@dataclass(frozen=True)
class Head:
    """What a model makes of its last layer, from its GGUF header: the pooling it asks for, the
    classifier (a reranker's rank head: its tensors and labels) and the rerank template it carries."""

    architecture: str
    pooling: int | None                  # llama.h's llama_pooling_type; None: not in the file
    head_tensors: tuple[str, ...]        # cls.weight, cls.output.weight ... (a rank head's)
    labels: tuple[str, ...]              # the classifier's output labels (Qwen3-Reranker: yes, no)
    rerank_template: str | None          # tokenizer.chat_template.rerank


def read_head(path: str | os.PathLike, role: str = "reranker") -> Head:
    """The whole header (the vocabulary too, then the tensor names): a fraction of a second."""
    p = check_model_file(path, role)
    keys: dict[str, object] = {}
    tensors: list[str] = []
    try:
        with p.open("rb") as f:
            reader = _Reader(f)
            f.read(4)
            reader.scalar(4)
            tensor_count = reader.scalar(10)
            for _ in range(min(reader.scalar(10), MAX_KEYS)):
                key = reader.string()
                kind = reader.scalar(4)
                if key.endswith((".pooling_type", ".classifier.output_labels")) or key in (
                        "general.architecture", "tokenizer.chat_template.rerank"):
                    keys[key] = reader.strings() if kind == ARRAY else reader.value(kind)
                else:
                    reader.skip(kind)
            for _ in range(min(tensor_count, MAX_KEYS)):
                tensors.append(reader.string())
                f.seek(8 * reader.scalar(4) + 4 + 8, os.SEEK_CUR)      # dimensions, type, offset
    except (struct.error, UnicodeDecodeError, OverflowError, MemoryError) as e:
        raise ModelError(f"{p} starts like a GGUF file but its header is damaged ({e})",
                         hint="download the model again") from e
    architecture = str(keys.get("general.architecture", ""))
    labels = keys.get(f"{architecture}.classifier.output_labels")
    template = keys.get("tokenizer.chat_template.rerank")
    return Head(architecture, _int(keys.get(f"{architecture}.pooling_type")),
                tuple(name for name in tensors if name.startswith("cls.")),
                tuple(labels) if isinstance(labels, list) else (), template if isinstance(template, str) else None)


def _int(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) else None


class _Reader:
    def __init__(self, f):
        self.f = f

    def scalar(self, kind: int):
        fmt = _SCALARS[kind]
        size = struct.calcsize(fmt)
        data = self.f.read(size)
        return struct.unpack(fmt, data)[0]

    def string(self) -> str:
        length = self.scalar(10)
        if length > 1 << 24:
            raise OverflowError(f"a metadata string of {length} bytes")
        return self.f.read(length).decode("utf-8")

    def value(self, kind: int):
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            self.skip(kind)
            return None
        return self.scalar(kind)

    def strings(self) -> list[str] | None:
        """An array of strings (after its kind was read); None for any other array, skipped."""
        item, count = self.scalar(4), self.scalar(10)
        if item == STRING:
            return [self.string() for _ in range(count)]
        for _ in range(count):
            self.skip(item)
        return None

    def skip(self, kind: int) -> None:
        if kind == STRING:
            self.f.seek(self.scalar(10), os.SEEK_CUR)
        elif kind == ARRAY:
            item, count = self.scalar(4), self.scalar(10)
            if item in _SCALARS:
                self.f.seek(struct.calcsize(_SCALARS[item]) * count, os.SEEK_CUR)
            else:
                for _ in range(count):
                    self.skip(item)
        elif kind in _SCALARS:
            self.f.seek(struct.calcsize(_SCALARS[kind]), os.SEEK_CUR)
        else:
            raise struct.error(f"unknown GGUF value type {kind}")
