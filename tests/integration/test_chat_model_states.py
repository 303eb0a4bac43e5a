"""The stable prefix on disk, with the real models: a fresh model instance (as after a restart)
restores the evaluated system text instead of reading it again and replies exactly as the instance
that evaluated it; a damaged, cut or foreign state file is ignored with a warning, never a crash."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import struct

import pytest

from engram.core.models.chat_model import LlamaChatModel, Sampling
from engram.core.models.prompt_states import SUFFIX, PromptStates
from model_files import gemma_path, smollm2_path

pytestmark = pytest.mark.real_model

NOTES = "You are Engram. Notes about the boxes: " + " ".join(f"Item {i} is in box {i * 7 % 13}." for i in range(25))
GREEDY = Sampling(temperature=0.0, repeat_penalty=1.0, seed=7)


def ask(question: str) -> list[dict]:
    return [{"role": "system", "content": NOTES}, {"role": "user", "content": question}]


def open_model(model_file, states) -> LlamaChatModel:
    return LlamaChatModel(model_file(), context_size=1024, sampling=GREEDY, states_dir=states)


def evaluated_once(model_file, states, question: str = "Where is item 3?"):
    """A first instance answers (evaluating everything) and closes, leaving its state file."""
    model = open_model(model_file, states)
    try:
        generation = model.generate(ask(question), max_tokens=6)
        stable = model._template.render(ask(question)).stable
    finally:
        model.close()
    return generation, stable


@pytest.mark.parametrize("model_file", [gemma_path, smollm2_path], ids=["gemma 3", "SmolLM2"])
def test_a_fresh_instance_restores_the_stable_prefix_instead_of_evaluating_it(tmp_path, model_file):
    cold, stable = evaluated_once(model_file, tmp_path)
    assert stable > 200 and [p.suffix for p in tmp_path.iterdir()] == [SUFFIX]
    assert cold.timings["prompt_eval_tokens"] >= stable
    model = open_model(model_file, tmp_path)
    try:
        warm = model.generate(ask("Where is item 3?"), max_tokens=6)
        assert warm.timings["cached_tokens"] >= stable
        assert warm.timings["prompt_eval_tokens"] <= cold.timings["prompt_eval_tokens"] - stable
        assert warm.text == cold.text                  # the restored state is the evaluated one
        print(f"\nfirst token after a fresh start: evaluating {cold.prompt_ms:.0f} ms, restoring {warm.prompt_ms:.0f} ms")
        new_chat = model.generate(ask("Which box holds item 5?"), max_tokens=2)
        assert new_chat.timings["prompt_eval_tokens"] < 30
    finally:
        model.close()
    assert len(list(tmp_path.iterdir())) == 1          # nothing new was written: the prefix was known


def flip_a_byte(data: bytes, foreign: bytes) -> bytes:
    return data[:-1000] + bytes([data[-1000] ^ 0xFF]) + data[-999:]


def another_models_state(data: bytes, foreign: bytes) -> bytes:
    """Header and checksum right, but the state is SmolLM2's: only llama.cpp can tell, and refuses it."""
    header_end = len(data) - json.loads(data[12:12 + struct.unpack("<I", data[8:12])[0]])["payload_bytes"]
    header = data[12:header_end].replace(
        f'"payload_bytes": {len(data) - header_end}'.encode(), f'"payload_bytes": {len(foreign)}'.encode())
    header = re.sub(rb'"payload_sha256": "[0-9a-f]+"',
                    f'"payload_sha256": "{hashlib.sha256(foreign).hexdigest()}"'.encode(), header)
    return data[:8] + struct.pack("<I", len(header)) + header + foreign


DAMAGE = {       # how the file is damaged, and the reason the log gives
    "a flipped byte": (flip_a_byte, "checksum"),
    "cut short": (lambda data, foreign: data[:-4096], "checksum"),
    "not a state file": (lambda data, foreign: b"\x00" * 5000, "not a prompt state file"),
    "an empty file": (lambda data, foreign: b"", "not a prompt state file"),
    "another model's state": (another_models_state, "llama.cpp refused it"),
}


@pytest.fixture(scope="module")
def primed(tmp_path_factory):
    """Gemma's state file for the prefix, the reply it gave, and a state SmolLM2 made."""
    folder = tmp_path_factory.mktemp("primed")
    cold, stable = evaluated_once(gemma_path, folder)
    (state,) = folder.iterdir()
    other = open_model(smollm2_path, None)
    try:
        other.generate(ask("Where is item 3?"), max_tokens=1)
        foreign = PromptStates.capture(other._llm)
    finally:
        other.close()
    return state.name, state.read_bytes(), cold, stable, foreign


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_state_file_is_ignored_and_replaced(tmp_path, caplog, primed, damage):
    name, data, cold, stable, foreign = primed
    state = tmp_path / name
    spoil, reason = DAMAGE[damage]
    state.write_bytes(spoil(data, foreign))
    caplog.set_level(logging.WARNING, logger="engram.core.models.prompt_states")
    model = open_model(gemma_path, tmp_path)
    try:
        again = model.generate(ask("Where is item 3?"), max_tokens=6)
        prefix = model._template.render(ask("Where is item 3?"))
        states = PromptStates(tmp_path, model.path)
    finally:
        model.close()
    assert again.timings["prompt_eval_tokens"] >= stable      # evaluated as if there were no file
    assert again.text == cold.text
    assert any(f"{name} ignored: " in r.getMessage() and reason in r.getMessage() for r in caplog.records)
    assert states._payload(state.read_bytes(), prefix.tokens[:prefix.stable])[1] == ""   # written again, good


def test_an_unwritable_state_folder_costs_only_the_speed_up(tmp_path, caplog):
    blocker = tmp_path / "states"
    blocker.write_text("a file where the folder should be")
    caplog.set_level(logging.WARNING, logger="engram.core.models.prompt_states")
    generation, _ = evaluated_once(gemma_path, blocker)
    assert generation.completion_tokens > 0
    assert any("not kept" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("model_file", [smollm2_path], ids=["SmolLM2"])
def test_a_changed_profile_after_the_stable_text_leaves_the_prefix_on_disk_usable(tmp_path, model_file):
    """The profile follows the stable text in the system message (``stable`` marks where): a new
    profile line in a fresh process reads only the profile and the question, not the notes again."""
    def with_profile(lines: str) -> list[dict]:
        content = f"{NOTES}\n\nWhat you know about the person:\n{lines}"
        return [{"role": "system", "content": content, "stable": len(NOTES)}, {"role": "user", "content": "Hi"}]

    model = open_model(model_file, tmp_path)
    try:
        cold = model.generate(with_profile("- Allergic to peanuts."), max_tokens=2)
        stable = model._template.render(with_profile("- Allergic to peanuts.")).stable
    finally:
        model.close()
    assert stable > 200 and cold.timings["prompt_eval_tokens"] > stable
    model = open_model(model_file, tmp_path)
    try:
        changed = model.generate(with_profile("- Allergic to peanuts.\n- Lives in Lyon."), max_tokens=2)
    finally:
        model.close()
    assert changed.timings["cached_tokens"] >= stable
    assert changed.timings["prompt_eval_tokens"] < 60
