"""The OpenAI-compatible API with the official ``openai`` client on a loopback port, over fake
models (the real small models: tests/integration/test_openai_api_real.py)."""

from __future__ import annotations

import base64
import socket
import threading
import time

import httpx
import numpy as np
import openai
import pytest

from engram.core.errors import EngramError
from engram.integrations.api_key import api_key, regenerate
from engram.integrations.api_server import ApiServer, ApiServerError
from fakes import FakeChatModel

LONG_REPLY = " ".join(f"word{i}" for i in range(120))


class SlowChatModel(FakeChatModel):
    """Streams a word every 20 ms, so a test can act while a reply is on its way."""

    def generate(self, messages, *, on_token=None, **kwargs):
        def slowly(piece):
            time.sleep(0.02)
            on_token(piece)
        return super().generate(messages, on_token=slowly if on_token else None, **kwargs)


@pytest.fixture
def api(make_engram):
    """(engram, server, client) for a fresh data folder; ``api.slow()`` swaps in the slow model."""
    engram = make_engram(replies=("Hello there, friend.",))
    server = ApiServer(lambda: engram, port=0).start()
    client = openai.OpenAI(base_url=server.url, api_key=api_key(engram.data_dir), max_retries=0, timeout=30)
    yield engram, server, client
    server.stop()


def slow(engram, reply=LONG_REPLY):
    engram._chat_model = SlowChatModel((reply,))


def wait_for(condition, seconds=10.0):
    end = time.time() + seconds
    while not condition():
        assert time.time() < end, "timed out"
        time.sleep(0.02)


def test_a_reply_goes_through_the_turn_engine_and_is_stored(api):
    engram, server, client = api
    assert [m.id for m in client.models.list().data] == ["engram", "fake-embedder"]
    answer = client.chat.completions.create(model="engram", messages=[
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "Say hello"}])
    assert answer.choices[0].message.content == "Hello there, friend."
    assert answer.choices[0].finish_reason == "stop" and answer.usage.completion_tokens == 3
    extra = answer.model_extra["engram"]
    messages = engram.sessions.messages(extra["session"])
    assert [(m.role, m.content) for m in messages] == [("user", "Say hello"), ("assistant", "Hello there, friend.")]
    assert engram.turns.for_reply(extra["reply_message_id"]).user_message_id == messages[0].id


def test_the_conversation_or_the_header_picks_the_session_and_user_picks_the_person(api):
    engram, server, client = api
    first = client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "Plan a trip"}])
    session = first.model_extra["engram"]["session"]
    go_on = client.chat.completions.create(model="engram", messages=[
        {"role": "user", "content": "Plan a trip"}, {"role": "assistant", "content": "Hello there, friend."},
        {"role": "user", "content": "To Vienna"}])
    assert go_on.model_extra["engram"]["session"] == session
    # Engram keeps the history itself: of the client's messages, only the last is stored.
    assert [m.content for m in engram.sessions.messages(session, roles=["user"])] == ["Plan a trip", "To Vienna"]

    named = client.chat.completions.with_raw_response.create(
        model="engram", messages=[{"role": "user", "content": "Plan a trip"}], user="alice",
        extra_headers={"X-Engram-Session": "alice-trip"})
    assert named.headers["X-Engram-Session"] == "alice-trip"
    assert engram.sessions.get("alice-trip").user == "alice"
    in_body = client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "hi"}],
                                             user="alice", extra_body={"session": "alice-trip"})
    assert in_body.model_extra["engram"]["session"] == "alice-trip"


def test_another_users_session_reads_exactly_like_one_that_does_not_exist(api):
    engram, server, client = api
    client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "my secret plan"}],
                                   user="alice", extra_headers={"X-Engram-Session": "same1"})

    def as_bob(session: str):
        return client.chat.completions.with_raw_response.create(
            model="engram", messages=[{"role": "user", "content": "hi"}], user="bob",
            extra_headers={"X-Engram-Session": session})

    taken, free = as_bob("same1"), as_bob("never-used")
    for answer, name in ((taken, "same1"), (free, "never-used")):
        assert answer.status_code == 200 and answer.headers["X-Engram-Session"] == name
        assert answer.parse().model_extra["engram"]["session"] == name
    again = as_bob("same1").parse()                    # bob goes on in his own session of that name
    bobs = {s.id: [m.content for m in engram.sessions.messages(s.id)] for s in engram.sessions.list("bob")}
    assert sorted(bobs.values()) == [["hi", "Hello there, friend."], ["hi", "Hello there, friend."] * 2]
    assert again.model_extra["engram"]["user_message_id"] in [m.id for m in engram.sessions.messages(
        next(i for i, said in bobs.items() if len(said) == 4))]
    assert engram.sessions.get("same1").user == "alice"
    assert [m.content for m in engram.sessions.messages("same1")] == ["my secret plan", "Hello there, friend."]


def test_a_stream_brings_the_reply_piece_by_piece(api):
    engram, server, client = api
    chunks = list(client.chat.completions.create(model="engram", stream=True,
                                                 messages=[{"role": "user", "content": "Say hello"}]))
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "Hello there, friend." and len([c for c in chunks if c.choices[0].delta.content]) == 3
    assert chunks[-1].choices[0].finish_reason == "stop"
    stored = engram.sessions.messages(chunks[-1].model_extra["engram"]["session"])
    assert stored[-1].content == text and stored[-1].status == "complete"


def test_closing_the_stream_stops_the_turn_and_keeps_what_came(api):
    engram, server, client = api
    slow(engram)
    stream = client.chat.completions.create(model="engram", stream=True, extra_headers={"X-Engram-Session": "s"},
                                            messages=[{"role": "user", "content": "Count for me"}])
    for n, _ in enumerate(stream):
        if n == 5:
            break
    stream.close()
    wait_for(lambda: len(engram.sessions.messages("s")) == 2)
    reply = engram.sessions.messages("s")[-1]
    assert reply.status == "stopped" and reply.content.startswith("word0 word1")
    assert len(reply.content.split()) < 60


def test_a_client_that_gives_up_on_a_whole_reply_stops_the_turn_too(api):
    engram, server, client = api
    slow(engram)
    with pytest.raises(openai.APITimeoutError):
        client.with_options(timeout=0.5).chat.completions.create(
            model="engram", extra_headers={"X-Engram-Session": "s"}, messages=[{"role": "user", "content": "Count"}])
    wait_for(lambda: len(engram.sessions.messages("s")) == 2)
    reply = engram.sessions.messages("s")[-1]
    assert reply.status == "stopped" and 0 < len(reply.content.split()) < 60


def test_stopping_the_server_mid_reply_keeps_what_came(api):
    engram, server, client = api
    slow(engram, " ".join(f"word{i}" for i in range(600)))        # 12 s of reply
    stream = client.chat.completions.create(model="engram", stream=True, extra_headers={"X-Engram-Session": "s"},
                                            messages=[{"role": "user", "content": "Count"}])
    next(iter(stream))
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 8 and not server.running
    wait_for(lambda: len(engram.sessions.messages("s")) == 2)
    reply = engram.sessions.messages("s")[-1]
    assert reply.status == "stopped" and len(reply.content.split()) < 400


def test_a_second_request_for_a_session_waits_for_the_first(api):
    engram, server, client = api
    slow(engram, "one two three four five six seven eight nine ten eleven twelve")
    stream = client.chat.completions.create(model="engram", stream=True, extra_headers={"X-Engram-Session": "s"},
                                            messages=[{"role": "user", "content": "first"}])
    pieces = iter(stream)
    next(pieces), next(pieces)                         # the first turn is under way
    second = {}
    worker = threading.Thread(target=lambda: second.update(answer=client.chat.completions.create(
        model="engram", messages=[{"role": "user", "content": "second"}], extra_headers={"X-Engram-Session": "s"})))
    worker.start()
    time.sleep(0.15)
    assert "answer" not in second                      # it waits its turn ...
    rest = "".join(c.choices[0].delta.content or "" for c in pieces)
    worker.join(30)
    assert second["answer"].choices[0].message.content.startswith("one two")      # ... and is answered after
    assert "twelve" in rest
    assert [(m.role, m.content.split()[0], m.status) for m in engram.sessions.messages("s")] == [
        ("user", "first", "complete"), ("assistant", "one", "complete"),
        ("user", "second", "complete"), ("assistant", "one", "complete")]


def test_a_wrong_or_missing_key_is_refused_with_401(api):
    engram, server, client = api
    for key in ("engram-wrong", ""):
        with pytest.raises(openai.AuthenticationError, match="wrong or missing API key"):
            openai.OpenAI(base_url=server.url, api_key=key or "x", max_retries=0,
                          default_headers={} if key else {"Authorization": ""}).models.list()
    old = api_key(engram.data_dir)
    new = regenerate(engram.data_dir)
    assert new != old and api_key(engram.data_dir) == new
    with pytest.raises(openai.AuthenticationError):
        client.models.list()                           # the old key stops working at once
    assert openai.OpenAI(base_url=server.url, api_key=new, max_retries=0).models.list().data
    assert engram.sessions.list(engram.user) == []     # nothing ran for a refused caller


def test_malformed_bodies_are_400_with_a_clear_message(api):
    engram, server, client = api
    headers = {"Authorization": f"Bearer {api_key(engram.data_dir)}", "Content-Type": "application/json"}
    raw = httpx.post(f"{server.url}/chat/completions", content=b"{not json", headers=headers)
    assert raw.status_code == 400 and raw.json()["error"]["message"].startswith("the request body is not JSON: ")
    for body, said in (({"model": "engram"}, "messages: Field required"),
                       ({"model": "engram", "messages": []}, "messages: List should have at least 1 item"),
                       ({"model": "engram", "messages": [{"role": "wizard", "content": "hi"}]}, "messages.0.role"),
                       ({"model": "engram", "messages": [{"role": "user", "content": "hi"},
                                                         {"role": "assistant", "content": "yo"}]},
                        "the last message must be the person's"),
                       ({"model": "engram", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 0},
                        "max_tokens: Input should be greater than or equal to 1")):
        answer = httpx.post(f"{server.url}/chat/completions", json=body, headers=headers)
        assert answer.status_code == 400 and said in answer.json()["error"]["message"], answer.text
        assert answer.json()["error"]["type"] == "invalid_request_error"
    with pytest.raises(openai.BadRequestError, match="input must be 1 to 256 texts"):
        client.embeddings.create(model="engram", input=["fine", "  "])
    assert engram.sessions.list(engram.user) == []


def test_embeddings_as_floats_and_as_base64_are_the_models_vectors(api):
    engram, server, client = api
    texts = ["I am allergic to peanuts", "我对花生过敏"]
    expected = engram.embedder.embed(texts)
    as_base64 = client.embeddings.create(model="engram", input=texts)       # the client asks for base64
    assert np.allclose([d.embedding for d in as_base64.data], expected, atol=1e-6)
    headers = {"Authorization": f"Bearer {api_key(engram.data_dir)}"}
    floats = httpx.post(f"{server.url}/embeddings", json={"input": texts[0], "encoding_format": "float"},
                        headers=headers).json()
    assert np.allclose(floats["data"][0]["embedding"], expected[0], atol=1e-6)
    packed = httpx.post(f"{server.url}/embeddings", json={"input": texts[1], "encoding_format": "base64"},
                        headers=headers).json()["data"][0]["embedding"]
    assert np.allclose(np.frombuffer(base64.b64decode(packed), "<f4"), expected[1], atol=1e-6)


def test_a_port_in_use_is_a_clear_error(make_engram):
    engram = make_engram()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ApiServerError, match=r"cannot listen on 127\.0\.0\.1:\d+") as caught:
            ApiServer(lambda: engram, port=taken.getsockname()[1]).start()
    assert isinstance(caught.value, EngramError) and "another port" in caught.value.hint


def test_while_the_data_is_closed_the_api_says_so(make_engram):
    engram = make_engram()
    key = api_key(engram.data_dir)
    server = ApiServer(lambda: None, port=0).start()
    try:
        answer = httpx.get(f"{server.url}/models", headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 503 and "not open right now" in answer.json()["error"]["message"]
    finally:
        server.stop()


def test_a_chat_model_that_cannot_load_is_a_clear_error_and_the_message_is_kept(api, tmp_path):
    engram, server, client = api
    engram._chat_model = None
    engram.settings.chat_model = str(tmp_path / "gone.gguf")
    with pytest.raises(openai.InternalServerError, match="does not exist") as caught:
        client.chat.completions.create(model="engram", extra_headers={"X-Engram-Session": "s"},
                                       messages=[{"role": "user", "content": "still there?"}])
    assert caught.value.status_code == 503
    with pytest.raises(openai.APIError, match="does not exist"):
        list(client.chat.completions.create(model="engram", stream=True, extra_headers={"X-Engram-Session": "s"},
                                            messages=[{"role": "user", "content": "and now?"}]))
    assert [m.content for m in engram.sessions.messages("s")] == ["still there?", "and now?"]
