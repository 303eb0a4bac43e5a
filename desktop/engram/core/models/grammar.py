"""JSON-schema grammars for llama.cpp, applied to a shortlist of likely tokens first.

llama-cpp-python runs a grammar over the whole vocabulary before any other sampler; with Gemma's
262k tokens that makes constrained output about ten times slower than free text. Like llama.cpp's
own sampler, we first ask the grammar about the most likely tokens only and fall back to the whole
vocabulary just when none of them fits, which gives the same tokens at a fraction of the cost.
"""

from __future__ import annotations

import ctypes
import json

import numpy as np

from engram.core.errors import InvalidInput

_TOKEN_DATA = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)


def schema_grammar(schema: dict):
    """The llama.cpp grammar (GBNF) that only accepts JSON matching schema."""
    from llama_cpp import LlamaGrammar

    try:
        return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)   # keeps property order
    except (ValueError, RuntimeError, KeyError, TypeError, AssertionError) as e:    # its converter asserts too
        raise InvalidInput(f"cannot turn this JSON schema into a grammar: {e}",
                           hint="use plain types, properties, required, items, enum and maxLength") from e


class GrammarMask:
    """A logits processor for one generation: every token the grammar forbids gets -inf.

    llama-cpp-python calls it once per sampled token with all tokens so far, so the previous call's
    choice (the last id) is fed to the grammar before the next token is judged.
    """

    def __init__(self, llm, grammar, shortlist: int = 64):
        import llama_cpp

        self._lib = llama_cpp
        self._sampler = llama_cpp.llama_sampler_init_grammar(
            llm._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
        if not self._sampler:
            raise InvalidInput("llama.cpp rejected the grammar for this JSON schema",
                               hint="simplify the schema")
        self._shortlist = shortlist
        self._started = False

    def __call__(self, input_ids, scores: np.ndarray) -> np.ndarray:
        if self._started:
            self._lib.llama_sampler_accept(self._sampler, int(input_ids[-1]))
        self._started = True
        k = min(self._shortlist, len(scores))
        allowed = self._allowed(np.argpartition(scores, -k)[-k:], scores)
        if not allowed.size:
            allowed = self._allowed(np.arange(len(scores)), scores)
        masked = np.full_like(scores, -np.inf)
        masked[allowed] = scores[allowed]
        return masked

    def _allowed(self, ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
        cells = np.zeros(len(ids), dtype=_TOKEN_DATA)
        cells["id"] = ids
        cells["logit"] = scores[ids]
        candidates = self._lib.llama_token_data_array(
            data=cells.ctypes.data_as(self._lib.llama_token_data_p), size=len(ids), selected=-1, sorted=False)
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(candidates))
        return cells["id"][np.isfinite(cells["logit"])]

    def close(self) -> None:
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None
