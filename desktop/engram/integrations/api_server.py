"""Runs the OpenAI-compatible API (openai_api.py) with uvicorn: in the foreground for
``engram serve``, or on a thread beside the window. The port is bound before uvicorn starts, so a
port in use is a clear error here rather than a log line on another thread.

A client cannot hold the server's connections: a request's headers must arrive within
HEADERS_TIMEOUT_S (openai_api.py bounds its body in time and size), an idle connection closes after
uvicorn's keep-alive timeout, a request on the last connection allowed gets uvicorn's 503, and a
connection past MAX_CONNECTIONS is closed at once."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from collections.abc import Callable

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from engram.core.app import Engram
from engram.core.errors import EngramError
from engram.integrations import DEFAULT_HOST, DEFAULT_PORT
from engram.integrations.openai_api import ChatApi


GRACE_S = 2
HEADERS_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 100           # well under a desktop's usual limit of 1,024 open files


class ApiServerError(EngramError):
    """The API could not start (the port is taken, the address is not this machine's)."""


class HeadersDeadline(H11Protocol):
    """uvicorn's HTTP protocol with a deadline for a request's headers, from the moment the
    connection opens or its last answer ends; a connection that misses it is closed. uvicorn has
    no such timeout (its issue #157), and its keep-alive timer restarts with every byte, so a
    client sending a byte now and then would hold a connection, and a file descriptor, for ever.
    uvicorn also accepts every connection (its limit only answers requests with 503): one past
    MAX_CONNECTIONS is closed here at once."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:        # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.close()
        else:
            self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._between_requests():
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        self._disarm()
        if self._between_requests() and not self.transport.is_closing():
            self._deadline = self.loop.call_later(HEADERS_TIMEOUT_S, self.transport.close)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise ApiServerError(f"the API cannot listen on {host}:{port}: {e.strerror}",
                             hint="choose another port (--port, or Settings › Integrations)") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


class ApiServer:
    def __init__(self, engram: Callable[[], Engram | None], host: str = DEFAULT_HOST, port: int = DEFAULT_PORT):
        """``engram`` gives the data open now (None while the window reopens it); the key is its folder's."""
        self.host, self.port = host, port
        self.app = ChatApi(engram).app()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    def _prepare(self) -> socket.socket:
        sock = bind(self.host, self.port)
        self.port = sock.getsockname()[1]            # port 0: the one the system chose
        # No access log: the API's callers and paths are theirs; the key never reaches a log anyway.
        # Stopping waits this long for replies being streamed, then ends them (kept, marked stopped).
        self._server = uvicorn.Server(uvicorn.Config(
            self.app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=GRACE_S,
            http=HeadersDeadline, timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=MAX_CONNECTIONS))
        return sock

    def serve(self) -> None:
        """Answer until Ctrl-C (``engram serve``)."""
        sock = self._prepare()
        self._server.run(sockets=[sock])

    def start(self) -> "ApiServer":
        """Answer on a thread; returns once the server accepts connections."""
        sock = self._prepare()
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name="engram-api", daemon=True)
        self._thread.start()
        while not self._server.started and self._thread.is_alive():
            threading.Event().wait(0.02)
        if not self._server.started:
            raise ApiServerError("the API did not start", hint="see the log for why")
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop answering; a reply being streamed ends as if its client had gone (it is kept, stopped)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
