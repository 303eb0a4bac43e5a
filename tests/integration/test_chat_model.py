"""The chat runtime on the real demo model (SmolLM2-135M-Instruct): streaming, Stop, limits, JSON,
KV reuse, and two callers at once. The model is tiny; these tests check mechanics. A base model
without a chat template (Gemma 3 270M) checks the fallback format."""

from __future__ import annotations

import json
import threading

import pytest

from engram.core.errors import ModelError
from engram.core.models.structured import generate_json, schema_errors

pytestmark = pytest.mark.real_model

STORY = [{"role": "user", "content": "Write a very long story about a dragon who lives in a mountain."}]
TRIP = {"type": "object", "required": ["city", "days"],
        "properties": {"city": {"type": "string", "maxLength": 20}, "days": {"type": "integer"}}}


def test_streaming_pieces_join_to_the_reply(real_chat_model):
    pieces = []
    generation = real_chat_model.generate(STORY, on_token=pieces.append, max_tokens=24)
    assert len(pieces) >= 3
    assert "".join(pieces) == generation.text
    assert generation.finish_reason in ("stop", "length") and not generation.stopped
    assert 0 < generation.completion_tokens <= 24
    assert generation.prompt_tokens > 10
    assert generation.prompt_ms > 0 and generation.generate_ms > 0 and generation.tokens_per_second > 0


def test_stop_from_another_thread_ends_generation_and_keeps_the_partial_text(real_chat_model):
    stop, third_piece = threading.Event(), threading.Event()
    pieces = []

    def on_token(piece):
        pieces.append(piece)
        if len(pieces) == 3:
            third_piece.set()

    pressing_stop = threading.Thread(target=lambda: third_piece.wait(60) and stop.set())
    pressing_stop.start()
    generation = real_chat_model.generate(STORY, on_token=on_token, stop=stop, max_tokens=300)
    pressing_stop.join()
    assert generation.stopped and generation.finish_reason == "stopped"
    assert generation.text == "".join(pieces) and len(pieces) >= 3
    assert generation.completion_tokens < 20          # far from the 300 it was allowed


def test_stop_during_a_long_prompt_abandons_its_evaluation(real_chat_model):
    notes = " ".join(f"Item {i} is kept in box {i * 7 % 13}." for i in range(170))
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    generation = real_chat_model.generate([{"role": "user", "content": notes}], stop=stop, max_tokens=50)
    assert generation.stopped and generation.finish_reason == "stopped"
    assert generation.text == "" and generation.completion_tokens == 0     # not one token: the prompt was cut
    assert real_chat_model.generate(STORY, max_tokens=2).completion_tokens > 0     # still usable


def test_stop_already_set_generates_nothing(real_chat_model):
    stop = threading.Event()
    stop.set()
    generation = real_chat_model.generate(STORY, stop=stop)
    assert generation.stopped and generation.text == "" and generation.completion_tokens == 0


def test_max_tokens_is_respected(real_chat_model):
    generation = real_chat_model.generate(STORY, max_tokens=5)
    assert generation.completion_tokens <= 5
    assert generation.finish_reason == "stop" or generation.completion_tokens == 5


def test_count_tokens(real_chat_model):
    assert real_chat_model.count_tokens("") == 0
    assert 1 <= real_chat_model.count_tokens("hello world") <= 4
    assert 90 <= real_chat_model.count_tokens("memory " * 100) <= 210
    assert real_chat_model.count_tokens("我对花生过敏") >= 2


def test_the_system_message_reaches_the_model(real_chat_model, base_model_path):
    """llama-cpp-python's gemma format drops system messages; ours folds them into the first turn."""
    from engram.core.models.chat_model import LlamaChatModel

    base = LlamaChatModel(base_model_path, context_size=256)
    try:
        for model in (real_chat_model, base):      # (a chat template may have a default system text)
            short = model.generate([{"role": "system", "content": "Be kind."},
                                    {"role": "user", "content": "Hi"}], max_tokens=1)
            told = model.generate([{"role": "system", "content": "Be kind. The person is allergic to peanuts."},
                                   {"role": "user", "content": "Hi"}], max_tokens=1)
            assert told.prompt_tokens >= short.prompt_tokens + 6
    finally:
        base.close()


def test_json_schema_output_parses_and_matches(real_chat_model):
    messages = [{"role": "user", "content": "Plan a trip. Answer in JSON with the city and the number of days."}]
    generation = real_chat_model.generate(messages, json_schema=TRIP, max_tokens=60)
    assert schema_errors(json.loads(generation.text, strict=False), TRIP) == []
    assert generate_json(real_chat_model, messages, TRIP, max_tokens=60).keys() == {"city", "days"}


def test_a_shared_prompt_prefix_is_not_evaluated_again(real_chat_model):
    notes = "Notes about the boxes. " + " ".join(f"Item {i} is in box {i * 7 % 13}." for i in range(60))
    first = real_chat_model.generate([{"role": "system", "content": notes},
                                      {"role": "user", "content": "Where is item 3?"}], max_tokens=2)
    second = real_chat_model.generate([{"role": "system", "content": notes},
                                       {"role": "user", "content": "Which box holds item 5?"}], max_tokens=2)
    prefix = real_chat_model.count_tokens(notes)
    assert first.timings["prompt_eval_tokens"] >= prefix
    assert second.timings["cached_tokens"] >= prefix
    assert second.timings["prompt_eval_tokens"] < 30
    print(f"\nprompt_ms with a {prefix}-token shared prefix: first {first.prompt_ms:.0f}, second {second.prompt_ms:.0f}")


def test_two_threads_at_once_are_served_one_after_the_other(real_chat_model):
    seen: list[str] = []
    results = {}

    def ask(tag):
        results[tag] = real_chat_model.generate(STORY, max_tokens=8, on_token=lambda piece: seen.append(tag))

    threads = [threading.Thread(target=ask, args=(tag,)) for tag in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(results) == {"a", "b"} and all(r.completion_tokens > 0 for r in results.values())
    first = seen[0]
    assert seen == [first] * seen.count(first) + [t for t in seen if t != first]   # no interleaving


def test_a_prompt_longer_than_the_context_is_a_clear_error(real_chat_model):
    too_long = [{"role": "user", "content": "memory " * (real_chat_model.context_tokens + 100)}]
    with pytest.raises(ModelError, match="could not reply") as caught:
        real_chat_model.generate(too_long)
    assert "context size" in caught.value.hint
    assert real_chat_model.generate(STORY, max_tokens=2).completion_tokens > 0    # still usable


def test_the_shortlist_grammar_mask_picks_what_the_whole_vocabulary_grammar_picks(real_chat_model):
    from engram.core.models.chat_model import Sampling
    from engram.core.models.grammar import schema_grammar

    schema = {"type": "object", "required": ["kind", "importance"],
              "properties": {"kind": {"enum": ["fact", "preference", "task"]}, "importance": {"type": "integer"}}}
    ask = [{"role": "user", "content": "I am allergic to peanuts. Classify this memory as JSON."}]
    kept, real_chat_model.sampling = real_chat_model.sampling, Sampling(temperature=0.0, repeat_penalty=1.0)
    llm, worker = real_chat_model._llm, real_chat_model._worker
    try:
        worker.submit(llm.reset).result()       # both runs evaluate the whole prompt the same way
        ours = real_chat_model.generate(ask, json_schema=schema, max_tokens=12).text
        worker.submit(llm.reset).result()
        tokens = real_chat_model._template.render(ask).tokens        # the same prompt, token for token
        whole = worker.submit(lambda: llm.create_completion(
            tokens, temperature=0.0, repeat_penalty=1.0, max_tokens=12, grammar=schema_grammar(schema))).result()
    finally:
        real_chat_model.sampling = kept
    assert ours == whole["choices"][0]["text"]
    assert ours.startswith('{ "kind": "')           # may be cut at 12 tokens; the same cut for both


def test_a_model_without_a_template_gets_the_gemma_format(real_chat_model, base_model_path):
    from engram.core.models.chat_model import LlamaChatModel

    assert real_chat_model.chat_format != "gemma"            # the demo model's own template
    base = LlamaChatModel(base_model_path, context_size=256)
    assert base.chat_format == "gemma"
    base.close()


def test_an_unknown_chat_format_is_a_clear_error(real_chat_model):
    from engram.core.models.chat_model import LlamaChatModel

    with pytest.raises(ModelError, match="unknown chat format 'gemmma'") as caught:
        LlamaChatModel(real_chat_model.path, context_size=256, chat_format="gemmma")
    assert "leave the chat format empty" in caught.value.hint


def test_a_model_with_its_own_template_streams_ends_its_turn_and_follows_a_schema():
    """SmolLM2 (an instruct model with a ChatML template): its own template, rendered to tokens by
    Engram, ends the reply at the model's end-of-turn token, and grammar-constrained JSON still works."""
    from engram.core.models.chat_model import LlamaChatModel, Sampling
    from model_files import smollm2_path

    model = LlamaChatModel(smollm2_path(), context_size=1024, sampling=Sampling(seed=7, temperature=0.0))
    try:
        assert model.chat_format == "chat_template.default"
        pieces = []
        said = model.generate([{"role": "system", "content": "Answer in one short sentence."},
                               {"role": "user", "content": "What colour is the sky?"}], on_token=pieces.append,
                              max_tokens=60)
        assert said.finish_reason == "stop" and said.completion_tokens < 60      # it ended its turn itself
        assert "".join(pieces) == said.text and "<|im_end|>" not in said.text and said.text.strip()
        messages = [{"role": "user", "content": "Plan a trip. Answer in JSON with the city and the number of days."}]
        assert schema_errors(json.loads(model.generate(messages, json_schema=TRIP, max_tokens=60).text), TRIP) == []
    finally:
        model.close()
