"""Structured output from a small model: grammar-constrained JSON, checked, with a bounded retry.

The grammar makes the output JSON shaped like the schema, but a small model can still run out of
tokens mid-object or leave a required field empty; so every answer is parsed and checked against
the schema, and a bad one is retried with the reason spelled out, a fixed number of times.
"""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator, ValidationError

from engram.core.models.chat_model import ChatModel
from engram.core.errors import ModelError


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
    """What is wrong with value under a JSON schema, in words a model (or a person) can act on,
    each starting with where it is (``$.memories[2].text``); an empty list when it matches.
    jsonschema (the reference validator) does the checking, every keyword included; the words are
    ours, so that a value that is too long is measured, not repeated back."""
    errors = sorted(Draft202012Validator(schema).iter_errors(value),
                    key=lambda e: [(isinstance(part, str), part) for part in e.absolute_path])   # outer first
    problems: list[str] = []
    for error in errors:
        for problem in _problems(error, _where(where, error.absolute_path)):
            if problem not in problems:
                problems.append(problem)
    return problems


def _where(root: str, path) -> str:
    where = root
    for part in path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where


def _problems(error: ValidationError, where: str) -> list[str]:
    value, limit, rule = error.instance, error.validator_value, error.schema
    match error.validator:
        case "type":
            names = limit if isinstance(limit, list) else [limit]
            return [f"{where} should be {' or '.join(names)}, not {_json_type(value)}"]
        case "enum":
            return [f"{where} should be one of {limit}"]
        case "required":
            return [_where(where, [key]) + " is missing" for key in limit if key not in value]
        case "additionalProperties":
            unknown = [key for key in value if key not in rule.get("properties", {})]
            return [f"{where} does not take {', '.join(unknown)}"]
        case "maxLength" | "minLength":
            return [f"{where} is {len(value)} characters long; {_bounds(rule, 'minLength', 'maxLength')}"]
        case "maxItems" | "minItems":
            return [f"{where} has {len(value)} items; {_bounds(rule, 'minItems', 'maxItems')}"]
        case "minimum" | "maximum":
            return [f"{where} is {value}; {_bounds(rule, 'minimum', 'maximum')}"]
    return [f"{where}: {_shortened(error.message)}"]


def _bounds(rule: dict, low: str, high: str) -> str:
    if low in rule and high in rule:
        return f"it should be from {rule[low]} to {rule[high]}"
    return f"the limit is {rule[high]}" if high in rule else f"it should be at least {rule[low]}"


def _json_type(value) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _shortened(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
