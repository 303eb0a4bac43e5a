"""Every catalog chat family's own template under Engram, as a table, run by hand:

    .venv/bin/python tests/bench/templates_table.py

For each family (model_files.FAMILIES: its real template and its own tokenizer, or the nearest
within reach, which the table names): whether the template renders Engram's first turn with
thinking off and on, and its thinking switch; the tool-call format the family was trained on and
whether Engram reads a call written in it (conversation/tool_calls.py); the tokens of Engram's
stable prefix under the template (the system text of a chat with five files and two preferences,
tools on: the part llama.cpp keeps evaluated, on disk too) and of the whole prompt of a chat's
third turn. No model
runs: what a model answers, and how fast, is not measured here.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1].parent
for folder in ("desktop", "tests", "tests/integration"):
    sys.path.insert(0, str(REPO / folder))

HERMES = '<tool_call>{"name": "files_read", "arguments": {"name": "plan.md"}}</tool_call>'
TOOL_FORMATS = {     # a call to files_read as each format writes it
    "Hermes <tool_call>": HERMES,
    "Llama 3 JSON": '{"name": "files_read", "parameters": {"name": "plan.md"}}',
    "JSON in a code fence": '```json\n{"name": "files_read", "arguments": {"name": "plan.md"}}\n```',
    "Phi-4 <|tool_call|>": '<|tool_call|>[{"name": "files_read", "arguments": {"name": "plan.md"}}]<|/tool_call|>',
    "Mistral [TOOL_CALLS]": '[TOOL_CALLS] [{"name": "files_read", "arguments": {"name": "plan.md"}}]',
}
TRAINED_ON = {"Qwen3": "Hermes <tool_call>", "Qwen2.5": "Hermes <tool_call>", "Llama 3.2": "Llama 3 JSON",
              "Gemma 3": "JSON in a code fence", "Phi-4-mini": "Phi-4 <|tool_call|>",
              "Mistral v0.3": "Mistral [TOOL_CALLS]", "Mistral v0.3 (first)": "Mistral [TOOL_CALLS]",
              "SmolLM3": "Hermes <tool_call>"}
VOCABULARY_NAMES = {"qwen2": "Qwen2", "llama-3": "Llama 3", "gemma-3": "Gemma 3 (270M)",
                    "phi-3": "Phi-3 (stand-in)", "llama-spm": "Llama 2 SPM (stand-in)",
                    "llama-3 text": "Llama 3 BPE (its turn markers counted as text)"}
# SmolLM3's tokenizer is Llama 3's BPE with its own added turn markers; its tests run on Qwen2's
# vocabulary, which has those markers as control tokens, and its tokens are counted with Llama 3's.
COUNTED_WITH = {"SmolLM3": "llama-3 text"}


def third_turn_messages() -> list[dict]:
    """The messages of a chat's third turn, built by Engram's own providers over fake models: the
    system text, two earlier turns in the window, the new message."""
    from engram.core.app import Engram
    from engram.core.conversation.context import TurnContext
    from engram.core.conversation.engine import assemble
    from engram.core.conversation.memory_options import session_scope
    from engram.core.conversation.prompts import EN, recall_prompt
    from fakes import FakeChatModel, FakeEmbedder

    folder = Path(tempfile.mkdtemp(prefix="engram-templates-"))
    os.environ["ENGRAM_DATA_DIR"] = str(folder / "data")
    os.environ["ENGRAM_CONFIG_DIR"] = str(folder / "config")
    with Engram(embedder=FakeEmbedder(), chat_model=FakeChatModel()) as engram:
        engram.settings.chat_tools = "on"
        session = engram.sessions.get_or_create("table", "U")
        for n in range(5):
            engram.files.write(session.folder, f"note-{n}.md", f"# Note {n}\ntext", f"notes about topic {n}")
        engram.preferences.set("U", "tone", "friendly")
        engram.preferences.set("U", "detail", "brief")
        options = engram.memory_options
        turn = TurnContext(session, "Plan my week.", 0, session_scope(session, options.storage_scope),
                           session_scope(session, options.search_scope), lambda text: len(text.split()), EN, True)
        sections, _ = engram.turn_engine._context(turn, engram.chat_model())
        first = assemble(sections, "Plan my week.", recall_prompt(options.recall_prompt, EN))
        return [first[0], {"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi, how can I help?"},
                {"role": "user", "content": "I have a trip on Friday."},
                {"role": "assistant", "content": "Noted: a trip on Friday."}, *first[1:]]


def parsed(reply: str) -> bool:
    from engram.core.conversation.tool_calls import split

    return split(reply)[1] is not None


def row(name: str, messages: list[dict]) -> list[str]:
    from engram.core.models.chat_template import ChatTemplate
    from model_files import FAMILIES, family_vocabulary

    family = FAMILIES[name]
    counted_with = COUNTED_WITH.get(name, family.vocabulary)
    llm = family_vocabulary(name, counted_with)
    try:
        template = ChatTemplate.for_model(llm, "", fallback="gemma")
        rendered = {}
        for thinking in (False, True):
            try:
                rendered[thinking] = template.render(messages, thinking=thinking)
            except Exception as e:          # shown in the table, not hidden
                rendered[thinking] = e
        off = rendered[False]
        tokens = (str(off.stable) if off.stable else "none (system text last)", str(len(off.tokens))) \
            if not isinstance(off, Exception) else ("-", "-")
    finally:
        llm.close()
    fmt = TRAINED_ON[name]
    return [name, "yes" if not isinstance(off, Exception) else f"no: {off}",
            "yes" if not isinstance(rendered[True], Exception) else f"no: {rendered[True]}",
            template.thinking_switch or "none", fmt, "yes" if parsed(TOOL_FORMATS[fmt]) else "no",
            *tokens, VOCABULARY_NAMES[counted_with]]


def main() -> None:
    from model_files import FAMILIES

    messages = third_turn_messages()
    header = ["family", "renders, thinking off", "thinking on", "thinking switch", "tool-call format",
              "Engram reads it", "stable prefix tokens", "prompt tokens", "tokenizer"]
    rows = [header, ["---"] * len(header)] + [row(name, messages) for name in FAMILIES]
    print(f"Engram's third turn: system text {len(messages[0]['content'])} characters (five files, two"
          " preferences, tools on), two earlier turns, the person's message.\n")
    for cells in rows:
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")


if __name__ == "__main__":
    main()
