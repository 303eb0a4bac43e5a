"""A loopback HTTP server that serves real GGUF files the way a model hub does (Range, ETag,
X-Linked-Etag on a redirect), and misbehaves on request: drops the connection mid-file, ignores
Range, answers 404. Only 127.0.0.1; it stops with the test."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class ServedFile:
    path: Path
    sha256: str = ""

    def __post_init__(self):
        if not self.sha256:
            digest = hashlib.sha256()
            with self.path.open("rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
            self.sha256 = digest.hexdigest()

    @property
    def size(self) -> int:
        return self.path.stat().st_size


@dataclass
class ModelServer:
    files: dict[str, ServedFile] = field(default_factory=dict)   # "org/repo/resolve/main/x.gguf" -> file
    announce_sha256: bool = True        # X-Linked-Etag on the redirect, as the hub sends
    ignore_range: bool = False          # answer every request with the whole file
    drop_after: list[int] = field(default_factory=list)   # per GET, in order: close after this many body bytes
    pace_s: float = 0.0                 # a pause after each 64 KiB sent: a slow line, to watch progress
    requests: list[dict] = field(default_factory=list)    # what was asked: method, path, range
    url: str = ""

    def serve(self, relative: str, path: Path) -> ServedFile:
        self.files[relative] = ServedFile(path)
        return self.files[relative]

    def start(self) -> "ModelServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle(self):
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass                                 # the client paused or gave up: as a real server would

            def do_HEAD(self):
                self.answer(body=False)

            def do_GET(self):
                self.answer(body=True)

            def answer(self, body: bool):
                server.requests.append({"method": self.command, "path": self.path,
                                        "range": self.headers.get("Range"), "if_range": self.headers.get("If-Range")})
                path = self.path.lstrip("/")
                if path.startswith("cdn/"):
                    return self.send_file(path.removeprefix("cdn/"), body)
                if path not in server.files:
                    return self.reply(404, b"Entry not found")
                self.send_response(302)                  # the hub redirects to its storage
                self.send_header("Location", f"/cdn/{path}")
                if server.announce_sha256:
                    self.send_header("X-Linked-Etag", f'"{server.files[path].sha256}"')
                    self.send_header("X-Linked-Size", str(server.files[path].size))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def send_file(self, path: str, body: bool):
                served = server.files.get(path)
                if served is None:
                    return self.reply(404, b"Entry not found")
                size, start = served.size, 0
                etag = f'"{served.sha256[:16]}"'
                wanted = self.headers.get("Range")
                if_range = self.headers.get("If-Range")
                if wanted and not server.ignore_range and (if_range is None or if_range == etag):
                    start = int(wanted.removeprefix("bytes=").split("-")[0])
                    if start >= size:
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{size}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(size - start))
                self.send_header("ETag", etag)
                self.send_header("Accept-Ranges", "none" if server.ignore_range else "bytes")
                self.end_headers()
                if not body:
                    return
                limit = server.drop_after.pop(0) if server.drop_after else None
                sent = 0
                with served.path.open("rb") as f:
                    f.seek(start)
                    while block := f.read(1 << 16):
                        if limit is not None and sent + len(block) > limit:
                            self.wfile.write(block[:limit - sent])
                            self.wfile.flush()
                            self.close_connection = True     # the connection drops mid-file
                            return
                        self.wfile.write(block)
                        sent += len(block)
                        if server.pace_s:
                            time.sleep(server.pace_s)

            def reply(self, status: int, text: bytes):
                self.send_response(status)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def ranges(self) -> list[str | None]:
        """The Range header of every GET for the file itself (after the redirect)."""
        return [r["range"] for r in self.requests if r["method"] == "GET" and r["path"].startswith("/cdn/")]


def write_catalog(folder: Path, mirror: str, entries: list[dict], sources: dict | None = None) -> Path:
    """A catalog file of the tests' own (ENGRAM_MODEL_CATALOG points at it); each entry needs
    name, kind and url or bundled; the rest gets plain defaults. ``sources``: bases for the named
    download sources (hf-mirror, modelscope)."""
    import json

    defaults = {"title": "", "family": "test", "parameters_b": 0.1, "quantisation": "Q8_0", "licence": "Apache-2.0",
                "languages": ["en"], "context_length": 2048, "ram_gb": 0.5, "tools": False, "sha256": None}
    path = folder / "catalog.json"
    path.write_text(json.dumps({"format": 1, "mirror": mirror, "sources": sources or {},
                                "models": [{**defaults, **entry} for entry in entries]}), encoding="utf-8")
    return path
