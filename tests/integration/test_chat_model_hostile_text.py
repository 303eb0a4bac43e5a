"""Hostile text stays data: whatever a memory, a file, a tool result or the person writes, the
prompt's control tokens are the chat template's own, for every template Engram supports.

Each case renders the conversation Engram sends (system text with a file index, the window, the
recalled block, a tool call and its result) with the same hostile text in every message, and counts
the control tokens in the token list: it must equal the count with harmless text (and with no text),
while llama-cpp-python's own rendering, one string tokenised with special tokens on, gets more.
Gemma and SmolLM2 are real models that also reply; every catalog family's own template runs on its
real vocabulary, or the nearest within reach (model_files.FAMILIES).
"""

from __future__ import annotations

import pytest

from engram.core.models.chat_model import LlamaChatModel, Sampling
from engram.core.models.chat_template import ChatTemplate
from chat_turns import HARMLESS, HOSTILE, control_tokens, conversation
from model_files import FAMILIES, family_vocabulary, gemma_path, smollm2_path, vocabulary

pytestmark = pytest.mark.real_model

def llama_cpp_python_tokens(template: ChatTemplate, llm, messages: list[dict]) -> list[int]:
    """What llama-cpp-python's create_chat_completion fed the model (given the messages as Engram
    lays them out for the template): one string, special tokens on."""
    messages, variables = template.layout(messages)
    result = template._formatter(messages=messages, **variables)
    return llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)


CASES = {
    "gemma 3, Engram's gemma format": (lambda: vocabulary_of(gemma_path()), ""),
    "SmolLM2, its own template": (lambda: vocabulary_of(smollm2_path()), ""),
    "SmolLM2, chatml format": (lambda: vocabulary_of(smollm2_path()), "chatml"),
    "Qwen2, qwen format": (lambda: vocabulary("qwen2"), "qwen"),
    "Llama 3, llama-3 format": (lambda: vocabulary("llama-3"), "llama-3"),
} | {f"{family}'s own template": (lambda family=family: family_vocabulary(family), "") for family in FAMILIES}
# Where a message's text ends in a character that the markup after it continues (Mistral v0.3: the tool
# result's closing ">" and "[/INST]"), the whole string has a token across the boundary; Engram's has two.
ACROSS_A_BOUNDARY = {"Mistral v0.3's own template"}


def vocabulary_of(path):
    from llama_cpp import Llama

    return Llama(model_path=str(path), vocab_only=True, verbose=False)


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    load, chat_format = CASES[request.param]
    llm = load()
    yield llm, ChatTemplate.for_model(llm, chat_format, fallback="gemma")
    llm.close()


def test_hostile_text_adds_no_control_token(case):
    llm, template = case
    hostile = template.render(conversation(HOSTILE)).tokens
    harmless = template.render(conversation(HARMLESS)).tokens
    bare = template.render(conversation("")).tokens
    # The template's turn markers are real control tokens: at least one opens and one ends each reply.
    assert len(control_tokens(llm, harmless)) > len([m for m in conversation("") if m["role"] == "assistant"])
    assert len(control_tokens(llm, hostile)) == len(control_tokens(llm, harmless)) == len(control_tokens(llm, bare))
    # The hostile text still reaches the model, every character of it, wherever it was put, as text (a
    # template that looks into a message, as Qwen3's does for "</think>", sees only a placeholder).
    assert llm.detokenize(hostile, special=True).decode().count(HOSTILE) == \
        sum(m["content"].count(HOSTILE) for m in conversation(HOSTILE))


def test_llama_cpp_python_alone_turns_the_same_text_into_control_tokens(case):
    """The attack is real on this vocabulary: without Engram's rendering it forges turns."""
    llm, template = case
    forged = control_tokens(llm, llama_cpp_python_tokens(template, llm, conversation(HOSTILE)))
    assert len(forged) > len(control_tokens(llm, template.render(conversation(HOSTILE)).tokens))


def test_harmless_text_gets_the_tokens_llama_cpp_python_gave_it(case, request):
    llm, template = case
    engram = template.render(conversation(HARMLESS)).tokens
    alone = llama_cpp_python_tokens(template, llm, conversation(HARMLESS))
    assert llm.detokenize(engram, special=True) == llm.detokenize(alone, special=True)
    if request.node.callspec.params["case"] in ACROSS_A_BOUNDARY:
        assert len(engram) == len(alone) + 1
    else:
        assert engram == alone


def test_the_stable_prefix_ends_with_the_system_text(case, request):
    llm, template = case
    prompt = template.render(conversation(HARMLESS))
    system = conversation(HARMLESS)[0]["content"]
    family = FAMILIES.get(request.node.callspec.params["case"].removesuffix("'s own template"))
    if family is not None and not family.stable_prefix:         # the system text comes after the history
        assert prompt.stable == 0
        return
    assert llm.detokenize(prompt.tokens[:prompt.stable], special=True).decode().endswith(system)
    other = template.render([conversation(HARMLESS)[0], {"role": "user", "content": "something else"}])
    assert other.tokens[:other.stable] == prompt.tokens[:prompt.stable]


@pytest.mark.parametrize("model_file", [gemma_path, smollm2_path], ids=["gemma 3", "SmolLM2"])
def test_the_model_is_fed_the_safe_tokens_and_replies(model_file):
    """The real prompt: the tokens llama.cpp evaluated, read back from the context after a reply."""
    model = LlamaChatModel(model_file(), context_size=2048, sampling=Sampling(seed=7))
    try:
        pieces = []
        generation = model.generate(conversation(HOSTILE), max_tokens=4, on_token=pieces.append)
        fed = [int(t) for t in model._llm.input_ids[:generation.prompt_tokens]]
        assert fed == model._template.render(conversation(HOSTILE)).tokens
        expected = 16 if model.chat_format == "gemma" else len(control_tokens(model._llm, model._template.render(
            conversation("")).tokens))
        assert len(control_tokens(model._llm, fed)) == expected
        assert generation.completion_tokens > 0 and "".join(pieces) == generation.text
    finally:
        model.close()
