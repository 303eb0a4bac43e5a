"""The OpenAI-compatible API with the official ``openai`` client on a loopback port, over fake
models (the real small models: tests/integration/test_openai_api_real.py)."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time

import httpx
import numpy as np
import openai
import pytest

from engram.core.errors import EngramError, ModelError
from engram.integrations.api_key import api_key, regenerate
from engram.integrations import api_server, openai_api
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


def test_the_profile_is_read_and_proposed_to_and_a_turn_says_what_it_noted(api):
    engram, server, client = api
    answer = client.chat.completions.create(model="engram", messages=[{"role": "user",
                                                                       "content": "I'm allergic to peanuts."}])
    assert [p["text"] for p in answer.model_extra["engram"]["profile"]] == ["Allergic to peanuts."]
    headers = {"Authorization": f"Bearer {api_key(engram.data_dir)}"}
    proposed = httpx.post(f"{server.url}/engram/profile/proposals", headers=headers,
                          json={"text": "Has a daughter, Mia.", "category": "people"})
    assert proposed.status_code == 200 and proposed.json()["proposed"] is True
    bad = httpx.post(f"{server.url}/engram/profile/proposals", headers=headers, json={"text": "x", "category": "?"})
    assert bad.status_code == 400
    profile = httpx.get(f"{server.url}/engram/profile", headers=headers).json()
    assert [line["text"] for line in profile["lines"]] == ["Allergic to peanuts."]
    assert [(p["text"], p["category"]) for p in profile["waiting_for_ok"]] == [("Has a daughter, Mia.", "people")]
    assert httpx.get(f"{server.url}/engram/profile", headers=headers, params={"user": "bob"}).json()["lines"] == []
    assert httpx.get(f"{server.url}/engram/profile").status_code == 401


def headers_of(engram) -> dict:
    return {"Authorization": f"Bearer {api_key(engram.data_dir)}", "Content-Type": "application/json"}


def received(sock: socket.socket, seconds: float = 10) -> str:
    """What the server sends until it closes the connection (or stops sending for ``seconds``)."""
    sock.settimeout(seconds)
    got = b""
    try:
        while piece := sock.recv(65536):
            got += piece
    except TimeoutError:
        pass
    return got.decode()


def test_a_message_longer_than_the_context_is_400_and_stored_once(api):
    """A 5xx made the client retry: three copies. OpenAI's 400 context_length_exceeded is not retried."""
    engram, server, client = api
    retrying = client.with_options(max_retries=2)
    with pytest.raises(openai.BadRequestError) as caught:
        retrying.chat.completions.create(model="engram", extra_headers={"X-Engram-Session": "s"},
                                         messages=[{"role": "user", "content": "word " * 5000}])
    assert caught.value.code == "context_length_exceeded" and caught.value.param == "messages"
    assert "4096 tokens of context" in caught.value.message
    assert [m.role for m in engram.sessions.messages("s")] == ["user"]           # kept, once


class FailingOnceModel(FakeChatModel):
    """Fails its first reply as a model that cannot load would (the API answers 503, clients retry)."""

    def generate(self, messages, **kwargs):
        if not self.calls:
            self.calls.append(messages)
            raise ModelError("the chat model is busy loading")
        return super().generate(messages, **kwargs)


def test_a_retried_request_is_answered_again_not_stored_twice(api):
    engram, server, client = api
    engram._chat_model = FailingOnceModel(("Hello there, friend.",))
    answer = client.with_options(max_retries=2).chat.completions.create(
        model="engram", extra_headers={"X-Engram-Session": "s"}, messages=[{"role": "user", "content": "Say hello"}])
    assert answer.choices[0].message.content == "Hello there, friend."
    assert [(m.role, m.content) for m in engram.sessions.messages("s")] == [
        ("user", "Say hello"), ("assistant", "Hello there, friend.")]

    # A client that does not number its tries: an unanswered message sent again is the same message ...
    engram._chat_model = FailingOnceModel(("Again.",))
    body = {"model": "engram", "messages": [{"role": "user", "content": "Once more"}]}
    headers = headers_of(engram) | {"X-Engram-Session": "t"}
    assert httpx.post(f"{server.url}/chat/completions", json=body, headers=headers).status_code == 503
    assert httpx.post(f"{server.url}/chat/completions", json=body, headers=headers).status_code == 200
    assert [m.content for m in engram.sessions.messages("t")] == ["Once more", "Again."]
    # ... but one that was answered, sent again, is the person saying it again; as is a first try.
    assert httpx.post(f"{server.url}/chat/completions", json=body, headers=headers).status_code == 200
    client.chat.completions.create(extra_headers={"X-Engram-Session": "t"}, **body)
    assert [m.content for m in engram.sessions.messages("t", roles=["user"])] == ["Once more"] * 3


def test_requests_are_bounded_and_a_body_too_large_is_refused_before_it_is_read(api):
    engram, server, client = api
    host, port = server.host, server.port
    with socket.create_connection((host, port)) as sock:       # says 50 MB, sends 10 bytes, waits
        sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer"
                     f" {api_key(engram.data_dir)}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {50 * 2**20}\r\n\r\n{{\"model\":".encode())
        answer = received(sock)
    assert answer.startswith("HTTP/1.1 413") and '"code":"request_too_large"' in answer
    chunked = httpx.post(f"{server.url}/chat/completions", headers=headers_of(engram),
                         content=iter([b'{"model": "engram", "messages": [{"role": "user", "content": "'] +
                                      [b"x" * 2**20] * 5 + [b'"}]}']))        # no length given: counted as it comes
    assert chunked.status_code == 413
    with pytest.raises(openai.BadRequestError, match=r"messages\.0\.content: a text may hold at most 200000 characters, not 200001"):
        client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "x" * 200_001}])
    with pytest.raises(openai.BadRequestError, match="messages: List should have at most 2048 items"):
        client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "hi"}] * 2049)
    with pytest.raises(openai.BadRequestError, match="input: a text may hold at most 200000 characters"):
        client.embeddings.create(model="engram", input=["x" * 200_001])
    deep = httpx.post(f"{server.url}/chat/completions", headers=headers_of(engram),
                      content=b'{"model": "engram", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert deep.status_code == 400 and "recursion limit exceeded" in deep.json()["error"]["message"]
    assert engram.sessions.list(engram.user) == []


def test_lone_surrogates_and_invalid_utf8_are_400_in_openais_shape(api):
    engram, server, client = api
    for path, body in (("chat/completions", {"model": "engram", "messages": [{"role": "user", "content": "hi \ud800"}]}),
                       ("embeddings", {"model": "engram", "input": "hi \ud800"})):
        answer = httpx.post(f"{server.url}/{path}", headers=headers_of(engram), content=json.dumps(body))  # as \ud800
        assert answer.status_code == 400 and "a lone surrogate" in answer.json()["error"]["message"]
        assert answer.json()["error"]["type"] == "invalid_request_error"
    raw = httpx.post(f"{server.url}/chat/completions", headers=headers_of(engram),
                     content=b'{"model": "engram", "messages": [{"role": "user", "content": "\xff\xfe"}]}')
    assert raw.status_code == 400 and raw.json()["error"]["code"] == "invalid_json"
    assert "not UTF-8" in raw.json()["error"]["message"]
    assert engram.sessions.list(engram.user) == []
    unknown = httpx.get(f"{server.url}/nowhere", headers=headers_of(engram))
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"


def test_what_engram_does_not_do_is_refused_not_ignored(api):
    engram, server, client = api
    with pytest.raises(openai.BadRequestError, match="n must be 1"):
        client.chat.completions.create(model="engram", n=2, messages=[{"role": "user", "content": "hi"}])
    for field, value in (("stream", "yes"), ("max_tokens", "8"), ("max_tokens", 8.5)):
        answer = httpx.post(f"{server.url}/chat/completions", headers=headers_of(engram), json={
            "model": "engram", "messages": [{"role": "user", "content": "hi"}], field: value})
        assert answer.status_code == 400 and answer.json()["error"]["param"] == field, answer.text
    assert engram.sessions.list(engram.user) == []
    assert client.models.retrieve("engram").id == "engram"
    assert client.models.retrieve("fake-embedder").owned_by == "engram"
    with pytest.raises(openai.NotFoundError, match="there is no model 'gpt-4o'"):
        client.models.retrieve("gpt-4o")
    assert client.embeddings.create(model="engram", input=["three words here", "two more"]).usage.prompt_tokens == 5


def test_response_format_constrains_the_reply_with_the_grammar(api):
    engram, server, client = api
    engram._chat_model = FakeChatModel(('{"snack": "apple"}',))
    schema = {"type": "object", "properties": {"snack": {"type": "string"}}, "required": ["snack"]}
    answer = client.chat.completions.create(
        model="engram", messages=[{"role": "user", "content": "a snack, as JSON"}],
        response_format={"type": "json_schema", "json_schema": {"name": "snack", "schema": schema}})
    assert answer.choices[0].message.content == '{"snack": "apple"}'
    client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "any JSON"}],
                                   response_format={"type": "json_object"})
    assert engram._chat_model.schemas == [schema, {"type": "object"}]
    with pytest.raises(openai.BadRequestError, match="cannot turn this JSON schema into a grammar"):
        client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "never stored"}],
                                       response_format={"type": "json_schema", "json_schema": {
                                           "name": "bad", "schema": {"type": "object", "$ref": "#/nowhere"}}})
    assert "never stored" not in [m.content for s in engram.sessions.list(engram.user)
                                  for m in engram.sessions.messages(s.id)]


def test_half_sent_requests_time_out_and_connections_are_limited(make_engram, monkeypatch, capfd):
    monkeypatch.setattr(api_server, "HEADERS_TIMEOUT_S", 0.5)
    monkeypatch.setattr(api_server, "MAX_CONNECTIONS", 3)
    monkeypatch.setattr(openai_api, "BODY_TIMEOUT_S", 0.5)
    engram = make_engram()
    server = ApiServer(lambda: engram, port=0).start()
    key = api_key(engram.data_dir)
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n").encode()
    try:
        with socket.create_connection((server.host, server.port)) as trickling:
            started = time.monotonic()
            for byte in head[:20]:                     # a byte every 0.1 s: the headers never end
                try:
                    trickling.sendall(bytes([byte]))
                except OSError:
                    break
                time.sleep(0.1)
            assert received(trickling, 5) == "" and time.monotonic() - started < 3      # closed by the server
        with socket.create_connection((server.host, server.port)) as stalled:
            stalled.sendall(head + b'{"model": "engram"')                               # the body stops here
            answer = received(stalled, 5)
        assert answer.startswith("HTTP/1.1 408") and "did not arrive within" in answer
        with socket.create_connection((server.host, server.port)) as leaving:
            leaving.sendall(head + b'{"model": "engram"')
        idle = [socket.create_connection((server.host, server.port)) for _ in range(2)]
        try:
            refused = httpx.get(f"{server.url}/models", headers={"Authorization": f"Bearer {key}"})
            assert refused.status_code == 503               # uvicorn's answer on the last connection allowed
            idle.append(socket.create_connection((server.host, server.port)))
            with socket.create_connection((server.host, server.port)) as past:
                started = time.monotonic()
                assert received(past, 5) == "" and time.monotonic() - started < 2    # one more is closed at once
        finally:
            for sock in idle:
                sock.close()
        wait_for(lambda: httpx.get(f"{server.url}/models", headers={"Authorization": f"Bearer {key}"}).status_code
                 == 200)
    finally:
        server.stop()
    logged = capfd.readouterr().err
    assert "Traceback" not in logged and "ClientDisconnect" not in logged, logged
    assert engram.sessions.list(engram.user) == []
