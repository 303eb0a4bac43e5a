"""``engram mcp`` (an MCP server on stdio) and ``engram serve`` (the OpenAI-compatible API).

Both open the data folder as every command does, so they work beside the window on the same
database: their writes wait their turn (core/storage/database.py). The protocol code is in engram/integrations/.
"""

from __future__ import annotations

import argparse
import sys

from engram.cli import open_engram
from engram.cli.terminal import whole_number
from engram.integrations import DEFAULT_HOST, DEFAULT_PORT


def register(commands, common: argparse.ArgumentParser) -> None:
    mcp = commands.add_parser("mcp", parents=[common],
                              help="serve your memories and session files to an MCP client on stdin/stdout")
    mcp.add_argument("--user", help="whose memories (default: this desktop's profile)")
    mcp.add_argument("--read-only", action="store_true", help="offer only the tools that read")
    mcp.set_defaults(run=_mcp)

    serve = commands.add_parser("serve", parents=[common], help="an OpenAI-compatible API on this machine")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"the address to listen on (default {DEFAULT_HOST}:"
                                                            " this machine only)")
    serve.add_argument("--port", type=whole_number(0, 65535, "a port"), default=None,
                       help=f"the port (default: the setting api_port, {DEFAULT_PORT})")
    serve.add_argument("--show-key", action="store_true", help="print the API key and exit")
    serve.set_defaults(run=_serve)


def _mcp(args) -> int:
    from engram.integrations.mcp_server import serve

    engram = open_engram(args)
    try:
        serve(engram, args.user or engram.user, read_only=args.read_only)
        return 0
    finally:
        engram.close()


def _serve(args) -> int:
    from engram.integrations.api_key import api_key
    from engram.integrations.api_server import ApiServer, is_loopback

    if args.show_key:
        engram = open_engram(args, meaning=False)
        try:
            print(api_key(engram.data_dir))
        finally:
            engram.close()
        return 0
    engram = open_engram(args)
    try:
        api_key(engram.data_dir)                         # made on first start
        server = ApiServer(lambda: engram, args.host,
                           engram.settings.api_port if args.port is None else args.port)
        engram.outbox.start()                            # archives what is said, as the window does
        if not is_loopback(args.host):
            print(f"warning: listening on {args.host}: other computers can reach this API (the key is still"
                  " required)", file=sys.stderr)
        print(f"Engram's API: {server.url} (model 'engram'; the key: `engram serve --show-key`); Ctrl-C stops it",
              file=sys.stderr)
        server.serve()
        return 0
    finally:
        engram.outbox.stop()
        engram.close()
