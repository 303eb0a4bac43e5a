"""Token sequences through a llama.cpp context, one pooled output read back for each: the low-level
path that embedders and rerankers share.

``Llama.embed`` tokenises for itself (special tokens off, nothing appended) and reads ``n_embd``
floats per sequence; a reranker needs its pair built from tokens (a template with special tokens,
or BOS/EOS/SEP by the vocabulary's flags) and only ``n_cls_out`` floats are set under RANK pooling,
and a last-token embedder needs EOS at the end. So both hand over tokens and say how wide the
output is. Sequences are packed into batches as ``Llama.embed`` packs them (whole sequences, up to
``n_batch`` tokens and ``n_seq_max`` of them), so vectors come out as its did.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram.core.errors import ModelError

# llama.h's enum llama_pooling_type (values fixed by its API).
POOLING_UNSPECIFIED, POOLING_NONE, POOLING_MEAN, POOLING_CLS, POOLING_LAST, POOLING_RANK = -1, 0, 1, 2, 3, 4
POOLING_NAMES = {POOLING_NONE: "none", POOLING_MEAN: "mean", POOLING_CLS: "cls", POOLING_LAST: "last",
                 POOLING_RANK: "rank"}


def tokenize(llm, text: str, *, add_special: bool, parse_special: bool) -> list[int]:
    """``text``'s tokens; ``add_special``: BOS/EOS as the vocabulary adds them; ``parse_special``:
    ``<|im_start|>`` and the like written in the text become their control tokens."""
    return llm.tokenize(text.encode("utf-8"), add_bos=add_special, special=parse_special)


def pooled(llm, sequences: Sequence[Sequence[int]], width: int) -> np.ndarray:
    """One row of ``width`` floats per sequence: its pooled output (a vector, or a reranker's scores).
    Each sequence must fit in one batch (``llm.n_batch`` tokens)."""
    import llama_cpp  # loaded with the model that calls this

    rows: list[np.ndarray] = []
    batch, context = llm._batch, llm._ctx
    limit, most = llm.n_batch, llm.context_params.n_seq_max
    group: list[int] = []

    def decode() -> None:
        context.kv_cache_clear()
        context.decode(batch)
        batch.reset()
        for seq in range(len(group)):
            pointer = llama_cpp.llama_get_embeddings_seq(context.ctx, seq)
            if not pointer:
                raise ModelError("the model pools nothing (pooling type none): it gives no vector or score",
                                 hint="choose a model whose file names its pooling (engram doctor shows it)")
            rows.append(np.ctypeslib.as_array(pointer, shape=(width,)).copy())
        group.clear()

    batch.reset()
    for tokens in sequences:
        if not tokens or len(tokens) > limit:
            raise ValueError(f"a sequence of {len(tokens)} tokens does not fit a batch of {limit}")
        if sum(group) + len(tokens) > limit or len(group) >= most:
            decode()
        batch.add_sequence(list(tokens), len(group), True)    # every token an output, as Llama.embed marks them
        group.append(len(tokens))
    if group:
        decode()
    context.kv_cache_clear()
    return np.array(rows, dtype=np.float32).reshape(len(rows), width)
