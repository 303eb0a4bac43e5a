"""Tiny GGUF models with random weights and real tokenizers, written with the ``gguf`` package.

No reranker or Qwen3 embedder can be downloaded here, so the code paths for them run against
models of their architectures and pooling, one layer and 16 dimensions wide, whose tokenizer is
copied from a real file: XLM-RoBERTa's (the bundled multilingual-e5-small's, which bge-m3 and
bge-reranker-v2-m3 share) or Qwen2's (tests/data/vocab, the BPE that Qwen3 uses). Their scores
and vectors mean nothing; what they prove is which tokens go in and which numbers come out.
"""

from __future__ import annotations

import struct
from pathlib import Path

import gguf
import numpy as np

from engram.core import paths

XLMR_VOCAB = paths.BUNDLED_EMBEDDING_MODEL
QWEN_VOCAB = Path(__file__).parent / "data" / "vocab" / "ggml-vocab-qwen2.gguf"
WIDTH = 16
FEED_FORWARD = 32
POSITIONS = 512

# Qwen3-Reranker's template as llama.cpp's converter writes it (conversion/qwen.py, Qwen3Model).
QWEN3_RERANK_TEMPLATE = (
    "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct"
    " provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n"
    "<|im_start|>user\n<Instruct>: Given a web search query, retrieve relevant passages that answer the query\n"
    "<Query>: {query}\n<Document>: {document}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")


def _copy_tokenizer(source: Path, writer: gguf.GGUFWriter) -> int:
    """Every ``tokenizer.*`` key of ``source`` (but its chat template) into ``writer``; returns the
    vocabulary's size. Read here with struct: gguf.GGUFReader takes half a minute over 250k pieces."""
    with source.open("rb") as f:
        _, keys = _header(f)
    for key, (kind, item, value) in keys.items():
        if key.startswith("tokenizer.") and key != "tokenizer.chat_template":
            writer.add_key_value(key, value, gguf.GGUFValueType(kind),
                                 sub_type=gguf.GGUFValueType(item) if item is not None else None)
    return len(keys["tokenizer.ggml.tokens"][2])


def read_tensors(path: Path) -> dict[str, np.ndarray]:
    """The F32 tensors of a file written here, by name, in numpy's shape (rows first)."""
    with path.open("rb") as f:
        count, keys = _header(f)
        infos = []
        for _ in range(count):
            name = _string(f)
            (dims,) = struct.unpack("<I", f.read(4))
            shape = struct.unpack(f"<{dims}Q", f.read(8 * dims))
            _, offset = struct.unpack("<IQ", f.read(12))
            infos.append((name, shape[::-1], offset))
        alignment = keys.get("general.alignment", (0, None, 32))[2]
        start = -(-f.tell() // alignment) * alignment
    data = path.read_bytes()
    return {name: np.frombuffer(data, "<f4", int(np.prod(shape)), start + offset).reshape(shape)
            for name, shape, offset in infos}


def _header(f) -> tuple[int, dict[str, tuple[int, int | None, object]]]:
    """The tensor count and each metadata key's (kind, array item kind or None, value); the file is
    left where the tensors' descriptions begin."""
    f.seek(4 + 4)                                           # magic, version
    tensors, count = struct.unpack("<QQ", f.read(16))
    keys: dict[str, tuple[int, int | None, object]] = {}
    for _ in range(count):
        key = _string(f)
        (kind,) = struct.unpack("<I", f.read(4))
        if kind == gguf.GGUFValueType.ARRAY:
            item, length = struct.unpack("<IQ", f.read(12))
            keys[key] = (kind, item, [_string(f) for _ in range(length)] if item == gguf.GGUFValueType.STRING
                         else np.frombuffer(f.read(length * _WIDTHS[item]), _DTYPES[item]).tolist())
        else:
            keys[key] = (kind, None, _string(f) if kind == gguf.GGUFValueType.STRING else struct.unpack(
                _SCALARS[kind], f.read(struct.calcsize(_SCALARS[kind])))[0])
    return tensors, keys


def _string(f) -> str:
    (length,) = struct.unpack("<Q", f.read(8))
    return f.read(length).decode("utf-8")


_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_DTYPES = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "<u1", 10: "<u8", 11: "<i8", 12: "<f8"}
_WIDTHS = {kind: struct.calcsize(fmt) for kind, fmt in _SCALARS.items()}


def _weights(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return (rng.standard_normal(shape) * 0.5).astype(np.float32)


def bert_model(path: Path, *, pooling: gguf.PoolingType, name: str = "tiny-bge-reranker-v2-m3",
               add_sep: bool = True, head: bool = True, seed: int = 0) -> Path:
    """An XLM-RoBERTa (llama.cpp ``bert``) model; with ``head`` the classifier bge-reranker-v2-m3
    has (a dense layer and one logit), without it an embedder like bge-m3."""
    rng = np.random.default_rng(seed)
    writer = gguf.GGUFWriter(str(path), arch="bert")
    writer.add_name(name)
    writer.add_block_count(1)
    writer.add_context_length(POSITIONS)
    writer.add_embedding_length(WIDTH)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(2)
    writer.add_layer_norm_eps(1e-12)
    writer.add_causal_attention(False)
    writer.add_pooling_type(pooling)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    vocab = _copy_tokenizer(XLMR_VOCAB, writer)
    writer.add_add_sep_token(add_sep)
    tensors = {"token_embd.weight": _weights(rng, vocab, WIDTH), "token_types.weight": _weights(rng, 2, WIDTH),
               "position_embd.weight": _weights(rng, POSITIONS, WIDTH),
               "token_embd_norm.weight": np.ones(WIDTH, np.float32), "token_embd_norm.bias": np.zeros(WIDTH, np.float32)}
    for part in ("attn_q", "attn_k", "attn_v", "attn_output"):
        tensors[f"blk.0.{part}.weight"] = _weights(rng, WIDTH, WIDTH)
        tensors[f"blk.0.{part}.bias"] = _weights(rng, WIDTH)
    for norm in ("attn_output_norm", "layer_output_norm"):
        tensors[f"blk.0.{norm}.weight"] = np.ones(WIDTH, np.float32)
        tensors[f"blk.0.{norm}.bias"] = np.zeros(WIDTH, np.float32)
    tensors |= {"blk.0.ffn_up.weight": _weights(rng, FEED_FORWARD, WIDTH), "blk.0.ffn_up.bias": _weights(rng, FEED_FORWARD),
                "blk.0.ffn_down.weight": _weights(rng, WIDTH, FEED_FORWARD), "blk.0.ffn_down.bias": _weights(rng, WIDTH)}
    if head:
        tensors |= {"cls.weight": _weights(rng, WIDTH, WIDTH), "cls.bias": _weights(rng, WIDTH),
                    "cls.output.weight": _weights(rng, 1, WIDTH), "cls.output.bias": _weights(rng, 1)}
    return _write(writer, tensors, path)


def qwen3_model(path: Path, *, pooling: gguf.PoolingType, name: str = "tiny-Qwen3-Reranker-0.6B",
                rerank_template: str | None = QWEN3_RERANK_TEMPLATE, add_eos: bool | None = None,
                seed: int = 0) -> Path:
    """A Qwen3 model; with RANK pooling the reranker's head (the rows of "yes" and "no"), with LAST
    an embedder like Qwen3-Embedding. ``add_eos`` None leaves the flag out, as older conversions did."""
    rng = np.random.default_rng(seed)
    heads, head_width = 2, 8
    writer = gguf.GGUFWriter(str(path), arch="qwen3")
    writer.add_name(name)
    writer.add_block_count(1)
    writer.add_context_length(POSITIONS)
    writer.add_embedding_length(WIDTH)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(heads)
    writer.add_head_count_kv(1)
    writer.add_key_length(head_width)
    writer.add_value_length(head_width)
    writer.add_rope_freq_base(1_000_000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_pooling_type(pooling)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    vocab = _copy_tokenizer(QWEN_VOCAB, writer)
    if add_eos is not None:
        writer.add_add_eos_token(add_eos)
    if pooling == gguf.PoolingType.RANK:
        writer.add_classifier_output_labels(["yes", "no"])
    if rerank_template is not None:
        writer.add_chat_template([{"name": "rerank", "template": rerank_template}])
    tensors = {"token_embd.weight": _weights(rng, vocab, WIDTH), "output_norm.weight": np.ones(WIDTH, np.float32),
               "blk.0.attn_norm.weight": np.ones(WIDTH, np.float32),
               "blk.0.attn_q.weight": _weights(rng, heads * head_width, WIDTH),
               "blk.0.attn_k.weight": _weights(rng, head_width, WIDTH),
               "blk.0.attn_v.weight": _weights(rng, head_width, WIDTH),
               "blk.0.attn_output.weight": _weights(rng, WIDTH, heads * head_width),
               "blk.0.attn_q_norm.weight": np.ones(head_width, np.float32),
               "blk.0.attn_k_norm.weight": np.ones(head_width, np.float32),
               "blk.0.ffn_norm.weight": np.ones(WIDTH, np.float32),
               "blk.0.ffn_gate.weight": _weights(rng, FEED_FORWARD, WIDTH),
               "blk.0.ffn_up.weight": _weights(rng, FEED_FORWARD, WIDTH),
               "blk.0.ffn_down.weight": _weights(rng, WIDTH, FEED_FORWARD)}
    if pooling == gguf.PoolingType.RANK:
        tensors["cls.output.weight"] = _weights(rng, 2, WIDTH)
    return _write(writer, tensors, path)


def _write(writer: gguf.GGUFWriter, tensors: dict[str, np.ndarray], path: Path) -> Path:
    for name, array in tensors.items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
