"""Every catalog chat family's own template, rendered through Engram (chat_template.py) on the
family's vocabulary or the nearest within reach (model_files.FAMILIES): with thinking off and on it
renders, the generation prompt is the one the model was trained to answer after (Qwen3 with
thinking off: the empty think block its template writes), the token that ends an assistant turn
ends the reply, and conversations that a template would refuse (no system role, two user turns in
a row) are laid out in its own format. The control-token guarantee and the stable prefix of the
same families are in test_chat_model_hostile_text.py.
"""

from __future__ import annotations

import datetime

import pytest

from engram.core.models.chat_template import ChatTemplate
from chat_turns import HARMLESS, conversation
from model_files import FAMILIES, family_vocabulary

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module", params=list(FAMILIES))
def family(request):
    llm = family_vocabulary(request.param)
    yield request.param, llm, ChatTemplate.for_model(llm, "", fallback="gemma")
    llm.close()


def text_of(llm, tokens: list[int]) -> str:
    return llm.detokenize(tokens, special=True).decode("utf-8")


@pytest.mark.parametrize("thinking", [False, True], ids=["thinking off", "thinking on"])
def test_the_generation_prompt_is_the_models_own(family, thinking):
    name, llm, template = family
    prompt = template.render(conversation(HARMLESS), thinking=thinking)
    assert text_of(llm, prompt.tokens).endswith(FAMILIES[name].prompt_end[thinking])
    assert not prompt.thinking_open          # none of the catalog's templates opens the block for the model


def test_qwen3_and_smollm3_are_told_by_their_own_switch(family):
    name, llm, template = family
    off = text_of(llm, template.render(conversation(HARMLESS), thinking=False).tokens)
    on = text_of(llm, template.render(conversation(HARMLESS), thinking=True).tokens)
    if name == "Qwen3":
        assert template.thinking_switch == "enable_thinking"
        assert off == on + "<think>\n\n</think>\n\n"
    elif name == "SmolLM3":
        assert template.thinking_switch == "enable_thinking"
        assert "Reasoning Mode: /no_think" in off and "Reasoning Mode: /think" in on
    else:                                   # no switch: these models do not think on their own
        assert template.thinking_switch == "" and off == on


def test_the_token_that_ends_an_assistant_turn_ends_the_reply(family):
    """The template closes an assistant turn with a token llama.cpp stops at (an end-of-generation
    token) or with a text in the prompt's stop list; the same token ends the model's reply."""
    import llama_cpp

    _, llm, template = family
    messages = conversation(HARMLESS)
    laid_out, variables = template.layout(messages)
    rendered = template._formatter(messages=laid_out, **variables).prompt
    reply = messages[2]["content"]
    after = rendered[rendered.index(reply) + len(reply):]
    first = llm.tokenize(after.encode("utf-8"), add_bos=False, special=True)[0]
    prompt = template.render(messages)
    assert llama_cpp.llama_vocab_is_eog(llm._model.vocab, first) or \
        any(after.startswith(stop) for stop in prompt.stop if stop)


def test_two_user_turns_in_a_row_are_laid_out_in_the_models_own_format(family):
    """A reply that failed leaves the person's message without an answer; the next turn has two user
    messages in a row, which Gemma 3's and Mistral's templates refuse. They are joined, in order."""
    _, llm, template = family
    messages = [conversation(HARMLESS)[0], {"role": "user", "content": "first question"},
                {"role": "user", "content": "second question"}]
    text = text_of(llm, template.render(messages).tokens)
    assert text.index("first question") < text.index("second question")


def test_llama_3_2_is_told_todays_date():
    """Its template asks strftime_now for the date (else it writes 26 Jul 2024); llama-cpp-python gives it."""
    llm = family_vocabulary("Llama 3.2")
    try:
        prompt = ChatTemplate.for_model(llm, "", fallback="gemma").render(conversation(HARMLESS))
        today = datetime.date.today()
        text = text_of(llm, prompt.tokens)
        assert f"Today Date: {today.strftime('%d %b %Y')}" in text or \
            f"Today Date: {(today - datetime.timedelta(days=1)).strftime('%d %b %Y')}" in text   # past midnight
    finally:
        llm.close()


@pytest.mark.parametrize("thinking", [False, True], ids=["thinking off", "thinking on"])
def test_a_real_model_is_fed_the_switch_and_its_reply_keeps_no_markup(thinking):
    """The demo model (ChatML, as Qwen3) answering through Qwen3's template: the tokens llama.cpp
    evaluated end with the generation prompt the switch asked for, and the reply is text only."""
    from engram.core.models.chat_model import LlamaChatModel, Sampling
    from model_files import DATA, smollm2_path

    model = LlamaChatModel(smollm2_path(), context_size=2048, sampling=Sampling(seed=7, temperature=0))
    try:
        model._llm.metadata["tokenizer.chat_template"] = (DATA / "templates" / FAMILIES["Qwen3"].template).read_text()
        model._template = ChatTemplate.for_model(model._llm, "", fallback="gemma")
        thought = []
        generation = model.generate(conversation(HARMLESS), max_tokens=12, thinking=thinking,
                                    on_reasoning=thought.append)
        fed = [int(t) for t in model._llm.input_ids[:generation.prompt_tokens]]
        assert text_of(model._llm, fed).endswith(FAMILIES["Qwen3"].prompt_end[thinking])
        assert generation.completion_tokens > 0 and "<think>" not in generation.text + "".join(thought)
    finally:
        model.close()


def test_a_template_that_reads_no_think_in_the_system_text_is_given_it():
    """SmolLM3's switch before ``enable_thinking``: "/no_think" in the system text, which the template
    looks for there (and takes out of the instructions it shows)."""
    from model_files import DATA, vocabulary

    source = (DATA / "templates" / FAMILIES["SmolLM3"].template).read_text()
    source = source.replace("{%- if enable_thinking is not defined -%}\n    {%- set enable_thinking = true -%}\n"
                            "{%- endif -%}\n", "").replace("{%- if enable_thinking -%}", "{%- if true -%}")
    llm = vocabulary("qwen2", source)
    try:
        template = ChatTemplate.for_model(llm, "", fallback="gemma")
        assert template.thinking_switch == "/no_think"
        off = text_of(llm, template.render(conversation(HARMLESS), thinking=False).tokens)
        on = text_of(llm, template.render(conversation(HARMLESS), thinking=True).tokens)
        assert "Reasoning Mode: /no_think" in off and off.count("/no_think") == 1
        assert "Reasoning Mode: /think" in on and off.endswith(FAMILIES["SmolLM3"].prompt_end[False])
    finally:
        llm.close()
