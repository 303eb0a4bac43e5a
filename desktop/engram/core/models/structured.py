"""Structured output from a small model: grammar-constrained JSON, checked, with a bounded retry.

The grammar makes the output JSON shaped like the schema, but a small model can still run out of
tokens mid-object or leave a required field empty; so every answer is parsed and checked against
the schema, and a bad one is retried with the reason spelled out, a fixed number of times.
"""

from __future__ import annotations

import json

from engram.core.models.chat_model import ChatModel
from engram.core.errors import ModelError

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
          "integer": int, "number": (int, float)}


def generate_json(model: ChatModel, messages: list[dict], schema: dict, *, retries: int = 2,
                  max_tokens: int = 512) -> dict | list:
    """The model's answer to messages as JSON matching schema; ModelError after 1 + retries failures."""
    attempt_messages = list(messages)
    problem = ""
    for _ in range(retries + 1):
        generation = model.generate(attempt_messages, max_tokens=max_tokens, json_schema=schema)
        try:
            value = json.loads(generation.text, strict=False)   # the grammar lets raw newlines into strings
        except ValueError as e:
            problem = f"not valid JSON ({e.msg} at character {e.pos})"
        else:
            errors = schema_errors(value, schema)
            if not errors:
                return value
            problem = "; ".join(errors[:5])
        attempt_messages = [*messages, {"role": "assistant", "content": generation.text},
                            {"role": "user", "content": f"That answer was wrong: {problem}. "
                                                        "Answer again with JSON that matches the schema."}]
    raise ModelError(f"the chat model gave no usable JSON in {retries + 1} tries: {problem}",
                     hint="try a larger chat model, or a shorter input")


def schema_errors(value, schema: dict, where: str = "$") -> list[str]:
    """What is wrong with value under the JSON-schema subset we use (type, enum, properties,
    required, items); an empty list when it matches."""
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is(value, name) for name in names):
            return [f"{where} should be {' or '.join(names)}, not {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} should be one of {schema['enum']}"]
    errors: list[str] = []
    if isinstance(value, dict):
        errors += [f"{where}.{key} is missing" for key in schema.get("required", []) if key not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors += schema_errors(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{i}]")
    return errors


def _is(value, type_name: str) -> bool:
    if isinstance(value, bool) and type_name in ("integer", "number"):
        return False                        # JSON true is not a number, though Python says so
    return isinstance(value, _TYPES.get(type_name, object))
