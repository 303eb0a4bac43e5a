"""Ready-to-paste MCP configurations for common clients, with the real command that starts
``engram mcp`` on this machine (the installed ``engram``, the packaged program itself, or this
Python running ``-m engram``), and the data folder named so the client reaches the same memories."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

# name -> (the key its configuration file keeps servers under, extra fields of a server)
CLIENTS = {
    "Claude Desktop": ("mcpServers", {}),     # claude_desktop_config.json
    "VS Code": ("servers", {"type": "stdio"}),  # .vscode/mcp.json
    "Cursor": ("mcpServers", {}),             # ~/.cursor/mcp.json
}


def engram_command() -> list[str]:
    """The command that runs Engram's command line here."""
    if getattr(sys, "frozen", False):                   # the packaged program: it is the command
        return [sys.executable]
    beside = Path(sys.executable).with_name("engram.exe" if sys.platform == "win32" else "engram")
    if beside.is_file():                                # the virtual environment's own script
        return [str(beside)]
    if found := shutil.which("engram"):
        return [found]
    return [sys.executable, "-m", "engram"]


def snippet(client: str, data_dir: Path | str, *, read_only: bool = False) -> str:
    """The JSON to paste into ``client``'s MCP configuration."""
    key, extra = CLIENTS[client]
    command, *args = engram_command()
    args += ["mcp", "--data-dir", str(data_dir)] + (["--read-only"] if read_only else [])
    return json.dumps({key: {"engram": extra | {"command": command, "args": args}}}, indent=2, ensure_ascii=False)

