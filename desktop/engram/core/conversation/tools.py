"""Tools the model may call during a turn (memory search, session files, ...).

A tool is a name, a description for the model, a JSON schema for its arguments and a function.
Whatever goes wrong inside a tool comes back to the model as a result text that says so; it never
ends the turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from engram.core.errors import EngramError
from engram.core.models.structured import schema_errors


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict                      # JSON schema of the arguments object
    run: Callable[..., str]               # called with the arguments as keyword arguments

    def spec(self) -> dict:
        """The OpenAI-style description that prompts and llama-cpp-python understand."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}

    def call(self, arguments: dict | str) -> str:
        """Run the tool; errors become a result text the model can read and act on. The arguments
        are checked against the whole schema first (types, lengths, ranges, no unknown names), as
        the model wrote them: ``arguments.name is missing``."""
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
            problems = schema_errors(args, {"type": "object", "additionalProperties": False} | self.parameters,
                                     "arguments")
            if problems:
                return f"error: bad arguments for {self.name}: {'; '.join(problems[:5])}"
            return self.run(**args)
        except EngramError as e:
            return f"error: {e}"
        except (ValueError, TypeError) as e:
            return f"error: bad arguments for {self.name}: {e}"
