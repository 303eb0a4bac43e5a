"""Engram for other programs: an MCP server (mcp_server.py) and an OpenAI-compatible HTTP API
(openai_api.py, run by api_server.py). They pull in protocol libraries (the MCP SDK, Starlette,
uvicorn), so they live outside ``engram.core``, which never imports them (an import-linter contract).
"""

DEFAULT_HOST = "127.0.0.1"      # this machine only, unless told otherwise
DEFAULT_PORT = 8765
