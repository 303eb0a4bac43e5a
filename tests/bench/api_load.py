"""``engram serve`` under load and hostile input, by hand (issue 33's API check):

    .venv/bin/python tests/bench/api_load.py [--requests 200] [--in-flight 20]

Starts the real program on a free loopback port (a temporary data folder, the demo chat model,
the bundled embedding model) and sends --requests requests, --in-flight at a time, in a fixed mix:
chats with max_tokens 4 (each its own text), model lists, wrong keys, malformed bodies (not JSON,
a lone surrogate, 100,000 levels of nesting, "stream": "yes"), oversized ones (a 5 MB body, a
message of 200,001 characters), and slow partial requests (headers that never end, a body that
stops). Prints the count of each answer by kind and status, p50/p95 latency by kind, the server's
resident memory at the start (after one warm-up chat), just after the load and 10 s later, and
checks that every accepted turn was archived exactly once. Exits 1 on any 5xx, a request with no
answer, or an archive count that is wrong. It stops by itself: every request has a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "desktop"))

from engram.core.app import Engram  # noqa: E402
from engram.integrations.api_key import api_key  # noqa: E402

MIX = {"chat": 60, "models": 40, "bad_key": 30, "malformed": 30, "oversized": 24, "slow": 16}
REQUEST_TIMEOUT_S = 300          # chats wait their turn for the one model: 20 in flight wait 20 replies


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def slow(port: int, n: int, key: str) -> str:
    """Half a request, then nothing: the server must close it (headers) or answer 408 (body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
    writer.write((head if n % 2 else head + "Content-Length: 500\r\n\r\n{\"model\": ").encode())
    await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(65536), REQUEST_TIMEOUT_S)
    finally:
        writer.close()
    return answer.split(b" ", 2)[1].decode() if answer else "closed"


async def one(client: httpx.AsyncClient, port: int, kind: str, n: int, key: str) -> str:
    auth = {"Authorization": f"Bearer {key}"}
    chat = "/v1/chat/completions"
    if kind == "slow":
        return await slow(port, n, key)
    if kind == "models":
        answer = await client.get("/v1/models", headers=auth)
    elif kind == "bad_key":
        answer = await client.get("/v1/models", headers={"Authorization": "Bearer engram-wrong"})
    elif kind == "chat":
        answer = await client.post(chat, headers=auth | {"X-Engram-Session": f"load-{n % 6}"}, json={
            "model": "engram", "max_tokens": 4, "messages": [{"role": "user", "content": f"Say a word, number {n}"}]})
    elif kind == "malformed":
        body = [b"{not json", json.dumps({"model": "e", "messages": [{"role": "user", "content": "a \ud800"}]}).encode(),
                b'{"model": "e", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                b'{"model": "e", "stream": "yes", "messages": [{"role": "user", "content": "hi"}]}'][n % 4]
        answer = await client.post(chat, headers=auth, content=body)
    else:
        body = (b'{"model": "e", "messages": [{"role": "user", "content": "' + b"x" * (5 * 2**20) + b'"}]}'
                if n % 2 else json.dumps({"model": "e", "messages": [{"role": "user", "content": "x" * 200_001}]}).encode())
        answer = await client.post(chat, headers=auth, content=body)
    if kind == "chat" and answer.status_code == 200:
        turns.append(answer.json()["engram"])
    return str(answer.status_code)


turns: list[dict] = []


async def load(port: int, key: str, requests: int, in_flight: int) -> tuple[Counter, dict]:
    plan = [kind for kind, count in MIX.items() for _ in range(count)]
    plan = (plan * (requests // len(plan) + 1))[:requests]
    random.Random(33).shuffle(plan)
    gate = asyncio.Semaphore(in_flight)
    outcomes: Counter = Counter()
    latency: dict[str, list[float]] = defaultdict(list)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=REQUEST_TIMEOUT_S,
                                 limits=httpx.Limits(max_connections=in_flight)) as client:
        async def run(n: int, kind: str) -> None:
            async with gate:
                started = time.perf_counter()
                try:
                    status = await one(client, port, kind, n, key)
                except (httpx.HTTPError, OSError, asyncio.TimeoutError) as e:
                    status = f"no answer ({type(e).__name__})"
                latency[kind].append(time.perf_counter() - started)
                outcomes[(kind, status)] += 1
        await asyncio.gather(*(run(n, kind) for n, kind in enumerate(plan)))
    return outcomes, latency


def archived_once(data: Path) -> tuple[str, list[str]]:
    """(what was found, problems): once the server's background work is done, each accepted turn's message
    is archived exactly once, and no reply more than once (a reply is not archived again when its
    session holds the same text already, nor when it only repeats what the model was told)."""
    engram = Engram(data, meaning=False)
    try:
        end = time.time() + 300
        while engram.db.query_one("SELECT count(*) FROM outbox WHERE state = 'pending'")[0]:
            if time.time() > end:
                return "", ["the archive did not finish within 300 s"]
            time.sleep(1)
        counts = Counter(row[0] for row in engram.db.query(
            "SELECT json_extract(source, '$.message_id') FROM memories WHERE kind = 'message'"))
        # Every text sent is different, so each is stored once, retried or not; a turn whose client
        # gave up waiting is kept too (its message was accepted), and archived like the others.
        asked = dict(engram.db.query("SELECT id, content FROM messages WHERE role = 'user'"))
        replies = [turn["reply_message_id"] for turn in turns]
        problems = [f"message {i} archived {counts[i]} times" for i in asked if counts[i] != 1]
        problems += [f"reply {i} archived {counts[i]} times" for i in replies if counts[i] > 1]
        problems += [f"an accepted turn's message {turn['user_message_id']} is not stored"
                     for turn in turns if turn["user_message_id"] not in asked]
        if len(set(asked.values())) != len(asked):
            problems.append("a message was stored twice")
        found = (f"{len(asked)} user messages stored ({len(turns)} answered, the warm-up, the rest stopped when"
                 f" their client gave up), each archived once; {sum(counts[i] for i in replies)} of {len(replies)}"
                 " replies archived (the others repeat a reply of their session, or what the model was told)")
        return found, problems
    finally:
        engram.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--in-flight", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-api-load-") as folder:
        data = Path(folder) / "data"
        env = os.environ | {"ENGRAM_DATA_DIR": str(data), "ENGRAM_CONFIG_DIR": str(Path(folder) / "config"),
                            "PYTHONPATH": str(REPO / "desktop")}
        port = free_port()
        # The log goes to a file, not a pipe: a full pipe would stall the server.
        with (Path(folder) / "serve.log").open("w+") as log_out:
            server = subprocess.Popen([sys.executable, "-m", "engram", "serve", "--port", str(port)], env=env,
                                      stderr=log_out)
            try:
                key = ""
                end = time.time() + 120
                while not key:
                    try:
                        key = api_key(data)
                        httpx.get(f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": f"Bearer {key}"},
                                  timeout=5).raise_for_status()
                    except (OSError, httpx.HTTPError):
                        key = ""
                        if time.time() > end or server.poll() is not None:
                            print("engram serve did not start", file=sys.stderr)
                            return 1
                        time.sleep(0.5)
                httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", timeout=REQUEST_TIMEOUT_S,
                           headers={"Authorization": f"Bearer {key}"},
                           json={"model": "engram", "max_tokens": 4, "messages": [{"role": "user", "content": "warm up"}]})
                before = rss_mb(server.pid)
                started = time.perf_counter()
                outcomes, latency = asyncio.run(load(port, key, args.requests, args.in_flight))
                took = time.perf_counter() - started
                after = rss_mb(server.pid)
                time.sleep(10)
                settled = rss_mb(server.pid)
                found, problems = archived_once(data)         # while the server's background work finishes it
            finally:
                server.terminate()
                server.wait(60)
                log_out.seek(0)
                log = log_out.read()

    print(f"{args.requests} requests, {args.in_flight} in flight, {took:.1f} s")
    for (kind, status), count in sorted(outcomes.items()):
        print(f"  {kind:10} {status:24} {count:4}")
    every = [s for times in latency.values() for s in times]
    for kind, times in sorted(latency.items()) + [("all", every)]:
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
        print(f"  latency {kind:10} p50 {statistics.median(times) * 1000:8.0f} ms   p95 {p95 * 1000:8.0f} ms")
    print(f"resident memory: {before:.0f} MB before, {after:.0f} MB after the load, {settled:.0f} MB 10 s later"
          f" ({(settled - before) / before:+.0%})")
    print(f"archive: {found}" + ("; PROBLEMS: " + "; ".join(problems) if problems else ""))
    failed = [f"{kind} {status}" for (kind, status), _ in outcomes.items()
              if status.startswith(("5", "no answer"))]
    traceback = "Traceback" in log
    if traceback:
        print(log[-3000:], file=sys.stderr)
    print("5xx or no answer: " + (", ".join(failed) or "none") + "; tracebacks in the log: " + ("yes" if traceback else "none"))
    return 1 if failed or problems or traceback else 0


if __name__ == "__main__":
    sys.exit(main())
