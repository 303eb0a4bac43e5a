"""Tools laid out by the model's own chat template (``tools=``), as the model was trained to see
them, on real templates and vocabularies (model_files.py); templates without tools get none."""

from __future__ import annotations

import pytest

from engram.core.conversation.tools import Tool
from engram.core.models.chat_template import ChatTemplate
from engram.core.models.template_tools import tools_place
from model_files import family_vocabulary, gemma_path, vocabulary

SEARCH = Tool("search_memory", "Search what the person said in earlier conversations.",
              {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
              lambda query: "")
# The window may start with a reply: Llama 3.2's template would take it for the first user message.
MESSAGES = [{"role": "system", "content": "You are Engram."},
            {"role": "assistant", "content": "Noted: the train leaves at 9."},
            {"role": "user", "content": "When does my train leave?"}]


def rendered(llm, template: ChatTemplate, tools) -> tuple[str, str]:
    """The prompt as text, and the system text's part of it (up to the stable mark)."""
    prompt = template.render(MESSAGES, tools)
    text = llm.detokenize(prompt.tokens, special=True).decode("utf-8")
    return text, llm.detokenize(prompt.tokens[:prompt.stable], special=True).decode("utf-8")


@pytest.mark.parametrize("family", ["Qwen2.5", "Llama 3.2"])
def test_a_template_that_takes_tools_lays_them_out_itself(family):
    llm = family_vocabulary(family)
    template = ChatTemplate.for_model(llm, "", fallback="gemma")
    assert template.takes_tools
    without, _ = rendered(llm, template, None)
    text, stable = rendered(llm, template, [SEARCH.spec()])
    assert "search_memory" not in without and "Search what the person said" in text
    assert stable.endswith("You are Engram.")
    assert text.count("Noted: the train leaves at 9.") == 1
    spent = len(template.render(MESSAGES, [SEARCH.spec()]).tokens) - len(template.render(MESSAGES).tokens)
    assert template.tool_tokens([SEARCH.spec()]) == spent                # what the turn's budget counts
    if family == "Qwen2.5":
        assert '<tools>\n{"type": "function", "function": {"name": "search_memory"' in text
        assert "<tool_call>" in text                                     # the format it is told to write
    else:
        system_turn = text.split("<|eot_id|>")[0]
        assert "search_memory" in system_turn and '"parameters": dictionary' in system_turn
        assert "<|start_header_id|>assistant<|end_header_id|>\n\nNoted" in text    # still the model's turn


# Phi-4-mini's own template (MIT), as microsoft/Phi-4-mini-instruct's tokenizer_config.json and its GGUF carry it.
PHI4 = ("{% for message in messages %}{% if message['role'] == 'system' and 'tools' in message and"
        " message['tools'] is not none %}{{ '<|' + message['role'] + '|>' + message['content'] + '<|tool|>'"
        " + message['tools'] + '<|/tool|>' + '<|end|>' }}{% else %}{{ '<|' + message['role'] + '|>'"
        " + message['content'] + '<|end|>' }}{% endif %}{% endfor %}{% if add_generation_prompt %}"
        "{{ '<|assistant|>' }}{% else %}{{ eos_token }}{% endif %}")


def test_phi4_minis_template_gets_the_tools_in_its_system_message():
    llm = vocabulary("qwen2", PHI4)             # no Phi vocabulary here: the layout is what is checked
    template = ChatTemplate.for_model(llm, "", fallback="gemma")
    assert template.takes_tools and tools_place(PHI4) == "system"
    text, stable = rendered(llm, template, [SEARCH.spec()])
    assert text.startswith('<|system|>You are Engram.<|tool|>[{"name": "search_memory", "description": "Search')
    assert '"required": ["query"]}}]<|/tool|><|end|><|assistant|>Noted' in text
    assert stable.endswith("You are Engram.")
    assert template.tool_tokens([SEARCH.spec()]) > 0


def test_templates_without_tools_are_taught_in_the_prompt_instead():
    from llama_cpp import Llama

    gemma = Llama(model_path=str(gemma_path()), vocab_only=True, verbose=False)
    assert not ChatTemplate.for_model(gemma, "", fallback="gemma").takes_tools       # Engram's gemma format
    assert not ChatTemplate.for_model(vocabulary("qwen2"), "chatml", fallback="gemma").takes_tools
    assert tools_place("{{ messages[0]['content'] }}") == "" and tools_place("{% broken") == ""
