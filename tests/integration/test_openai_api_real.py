"""``engram serve`` as a program, with the real small models, called by the official ``openai``
client: a streamed reply that used a recalled memory (as its turn record shows), and a stream
closed half-way that stops the turn."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import openai
import pytest

from engram.cli import main
from engram.core.app import Engram
from engram.integrations.api_key import api_key

pytestmark = pytest.mark.real_model

DESKTOP = str(Path(__file__).resolve().parents[2] / "desktop")


@pytest.fixture
def served(isolated_dirs):
    """(client, data folder) of a running ``engram serve`` on a free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = os.environ | {"PYTHONPATH": os.pathsep.join([DESKTOP, os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "engram", "serve", "--port", str(port)], env=env,
                               stderr=subprocess.PIPE, text=True)
    data = isolated_dirs / "data"
    try:
        end = time.time() + 120
        while True:
            assert process.poll() is None, process.stderr.read()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.time() < end, "engram serve did not start"
                time.sleep(0.2)
        yield openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=api_key(data), max_retries=0,
                            timeout=120), data
    finally:
        process.terminate()
        process.wait(30)
    assert "engram-" not in process.stderr.read()              # the key never reaches the log


def test_show_key_prints_the_key_the_server_checks(capsys, isolated_dirs):
    assert main(["serve", "--show-key"]) == 0
    shown = capsys.readouterr().out.strip()
    assert shown.startswith("engram-") and shown == api_key(isolated_dirs / "data")
    assert main(["serve", "--show-key"]) == 0 and capsys.readouterr().out.strip() == shown     # made once


def test_the_openai_client_streams_a_reply_that_used_a_recalled_memory(served, capsys):
    client, data = served
    assert main(["memory", "add", "--user", "U", "--session", "one", "--kind", "message",
                 "I am allergic to peanuts"]) == 0
    capsys.readouterr()
    chunks = list(client.chat.completions.create(
        model="engram", stream=True, user="U", max_tokens=24, extra_headers={"X-Engram-Session": "two"},
        messages=[{"role": "user", "content": "Recommend me a snack"}]))
    reply = "".join(c.choices[0].delta.content or "" for c in chunks)
    told = chunks[-1].model_extra["engram"]
    assert reply.strip() and told["session"] == "two" and told["status"] == "complete"
    assert "I am allergic to peanuts" in [m["text"] for m in told["recalled"]]

    engram = Engram(data, meaning=False)
    try:
        record = engram.turns.for_reply(told["reply_message_id"])
        assert "I am allergic to peanuts" in [m["text"] for m in record.recalled]
        assert "I am allergic to peanuts" in record.messages[-1]["content"]     # what the model saw
        assert engram.sessions.messages("two")[-1].content == reply.strip()
    finally:
        engram.close()


def test_closing_the_stream_stops_the_real_models_reply(served):
    client, data = served
    stream = client.chat.completions.create(
        model="engram", stream=True, max_tokens=400, extra_headers={"X-Engram-Session": "story"},
        messages=[{"role": "user", "content": "Write a very long story about a dragon who learns to bake bread."}])
    received = ""
    for chunk in stream:
        received += chunk.choices[0].delta.content or ""
        if len(received.split()) >= 3:
            break
    stream.close()
    engram = Engram(data, meaning=False)
    try:
        end = time.time() + 60
        while len(engram.sessions.messages("story")) < 2:
            assert time.time() < end
            time.sleep(0.1)
        reply = engram.sessions.messages("story")[-1]
        assert reply.status == "stopped" and reply.content.startswith(received.strip())
    finally:
        engram.close()


def test_json_from_the_real_model_and_its_embedding_usage(served):
    client, data = served
    schema = {"type": "object", "properties": {"snack": {"type": "string", "maxLength": 20}}, "required": ["snack"]}
    answer = client.chat.completions.create(
        model="engram", max_tokens=64, extra_headers={"X-Engram-Session": "json"},
        messages=[{"role": "user", "content": "Name one snack, as JSON."}],
        response_format={"type": "json_schema", "json_schema": {"name": "snack", "schema": schema}})
    assert isinstance(json.loads(answer.choices[0].message.content)["snack"], str)
    embedded = client.embeddings.create(model="engram", input=["I am allergic to peanuts", "我对花生过敏"])
    assert embedded.usage.prompt_tokens >= 8 and embedded.usage.total_tokens == embedded.usage.prompt_tokens
