"""Engram for other programs: an MCP server (mcp_server.py) and an OpenAI-compatible HTTP API
(openai_api.py, run by api_server.py). They pull in protocol libraries (the MCP SDK, Starlette,
uvicorn), so they live outside ``engram.core``, which never imports them (an import-linter contract).
"""

DEFAULT_HOST = "127.0.0.1"      # this machine only, unless told otherwise
DEFAULT_PORT = 8765


def json_problem(message: str) -> str:
    """What pydantic says of JSON it cannot parse, with the cause spelled out when it is text that
    is not Unicode (it calls a lone surrogate "unexpected end of hex escape")."""
    problem = message.removeprefix("Invalid JSON: ")
    if any(word in problem for word in ("escape", "surrogate", "unicode")):
        problem += " (text must be Unicode: a lone surrogate, \\ud800 to \\udfff, or bytes that are not UTF-8 are not)"
    return problem
