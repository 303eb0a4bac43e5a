"""Reasoning kept apart from the answer (core/models/reasoning.py), streamed piece by piece as a
model writes it, with the tags cut anywhere."""

from __future__ import annotations

import pytest

from engram.core.models.reasoning import ReasoningSplit, opens_thinking

REPLY = "<think>\nThe person asked about trains.\n</think>\n\nThe train leaves at 9."


def split_into(pieces: list[str], **kwargs) -> tuple[ReasoningSplit, list[str], list[str]]:
    answer, reasoning = [], []
    split = ReasoningSplit(answer.append, reasoning.append, **kwargs)
    for piece in pieces:
        split(piece)
    split.flush()
    return split, answer, reasoning


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, len(REPLY)])
def test_the_answer_and_the_reasoning_stream_apart_however_the_tags_are_cut(size):
    split, answer, reasoning = split_into([REPLY[i:i + size] for i in range(0, len(REPLY), size)])
    assert "".join(answer) == split.answer_text == "The train leaves at 9."
    assert "".join(reasoning).rstrip() == split.reasoning_text == "The person asked about trains."
    assert not any("<" in piece for piece in answer + reasoning)


def test_stray_markup_is_held_back_when_no_one_takes_the_reasoning():
    answer = []
    split = ReasoningSplit(answer.append, None)
    for piece in ["Sure. <thi", "nk>secret plan</th", "ink> Here it is."]:
        split(piece)
    split.flush()
    assert "".join(answer) == "Sure. Here it is." and "secret" not in split.answer_text


def test_text_that_only_looked_like_a_tag_is_shown_after_all():
    split, answer, _ = split_into(["a <b> and <thin", "king> and <th"])
    assert "".join(answer) == split.answer_text == "a <b> and <thinking> and <th"


def test_the_answers_own_spaces_are_kept():
    split, _, _ = split_into(["```\n", "    x = 1\n", "```"])
    assert split.answer_text == "```\n    x = 1\n```"


def test_a_block_the_template_opened_is_reasoning_until_it_closes():
    assert opens_thinking("<|im_start|>assistant\n<think>\n")
    assert not opens_thinking("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    split, answer, reasoning = split_into(["let me see", "</think>", "Nine."], inside=True)
    assert split.answer_text == "Nine." and split.reasoning_text == "let me see"
    assert split.reasoning_tokens == 2            # the block's pieces, its closing tag included


def test_a_reply_cut_short_inside_the_block_has_no_answer():
    split, answer, reasoning = split_into(["<think>", "still ", "thinking"])
    assert split.answer_text == "" and answer == [] and split.reasoning_text == "still thinking"
