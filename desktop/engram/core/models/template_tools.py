"""Tools given to a model's own chat template, laid out as the model was trained to see them.

Qwen's, Llama 3.x's and Mistral's templates read a ``tools`` variable; Phi-4-mini's reads a system
message's "tools" (a JSON list of functions); Gemma's and SmolLM3's (as llama.cpp keeps it) read
none, and the turn teaches those in the system prompt (conversation/tool_calls.py).
"""

from __future__ import annotations

import json
import re

_SYSTEM_TOOLS = re.compile(r"message\[\s*['\"]tools['\"]\s*\]")     # Phi-4-mini's: message['tools']


def tools_place(template: str) -> str:
    """Where a Jinja chat template takes tools: "template", "system" or "" (nowhere)."""
    import jinja2
    import jinja2.meta
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    environment = ImmutableSandboxedEnvironment(
        extensions=[Jinja2ChatFormatter.IgnoreGenerationTags, jinja2.ext.loopcontrols])
    try:
        if "tools" in jinja2.meta.find_undeclared_variables(environment.parse(template)):
            return "template"
    except jinja2.TemplateError:
        return ""
    return "system" if _SYSTEM_TOOLS.search(template) else ""


def with_tools(messages: list[dict], tools: list[dict] | None, place: str) -> tuple[list[dict], dict]:
    """The messages and the template's extra variables that carry ``tools`` (OpenAI-style specs)."""
    if not tools or not place:
        return messages, {}
    if place == "system" and messages and messages[0]["role"] == "system":
        functions = json.dumps([t["function"] for t in tools], ensure_ascii=False)
        return [{**messages[0], "tools": functions}, *messages[1:]], {}
    # Llama 3.x would put the tools into the first user message, and take whatever comes first (an
    # assistant reply, when the window starts with one) for it; its other trained layout keeps
    # them in the system turn.
    return messages, {"tools": tools, "tools_in_user_message": False}
