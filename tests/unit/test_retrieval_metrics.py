"""The benchmark's metrics on a hand-made dataset whose recall is known by hand."""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from metrics import (ndcg_any, normalise_dia_ids, percentile, recall_all, recall_any,  # noqa: E402
                     unit_recall)


def test_malformed_locomo_evidence_ids_are_repaired():
    assert normalise_dia_ids(["D8:6; D9:17", "D:11:26", "D30:05", "D1:3", "D1:3"]) == \
        ["D8:6", "D9:17", "D11:26", "D30:5", "D1:3"]
    assert normalise_dia_ids(["", "nonsense"]) == []


def test_locomo_unit_recall_on_a_tiny_ranking():
    ranking = [["D1:1"], ["D1:2"], ["D2:5"], ["D3:1"]]
    assert unit_recall(ranking, ["D1:2", "D3:1"], 1) == 0.0
    assert unit_recall(ranking, ["D1:2", "D3:1"], 2) == 0.5
    assert unit_recall(ranking, ["D1:2", "D3:1"], 4) == 1.0
    assert unit_recall(ranking, ["D9:9"], 4) == 0.0
    assert unit_recall([], ["D1:1"], 5) == 0.0


def test_a_question_without_evidence_counts_as_found():
    assert unit_recall([["D1:1"]], [], 5) == 1.0


def test_a_unit_may_carry_several_evidence_ids():
    assert unit_recall([["D1:1", "D1:2"], ["D4:4"]], ["D1:2", "D4:4", "D5:5"], 1) == pytest.approx(1 / 3)
    assert unit_recall([["D1:1", "D1:2"], ["D4:4"]], ["D1:2", "D4:4", "D5:5"], 2) == pytest.approx(2 / 3)


def test_longmemeval_recall_any_and_all():
    ranked = ["s3", "s1", "s7", "s2"]
    assert recall_any(ranked, {"s2", "s9"}, 3) == 0.0
    assert recall_any(ranked, {"s2", "s9"}, 4) == 1.0
    assert recall_all(ranked, {"s1", "s3"}, 2) == 1.0
    assert recall_all(ranked, {"s1", "s2"}, 3) == 0.0
    assert recall_all(ranked, {"s1", "s2"}, 4) == 1.0


def test_ndcg_by_hand():
    # one gold key at rank 2: DCG = 1/log2(3); ideal = 1/log2(2) = 1
    assert ndcg_any(["a", "g", "b"], {"g"}, 3) == pytest.approx(1 / math.log2(3))
    # gold at ranks 1 and 3 of two gold keys: (1 + 1/2) / (1 + 1/log2(3))
    assert ndcg_any(["g1", "x", "g2"], {"g1", "g2"}, 3) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert ndcg_any(["g1", "g2"], {"g1", "g2"}, 5) == pytest.approx(1.0)
    assert ndcg_any(["x", "y"], {"g"}, 2) == 0.0


def test_nearest_rank_percentile():
    values = list(range(1, 101))
    assert percentile(values, 0.5) == 50
    assert percentile(values, 0.95) == 95
    assert percentile([7.0], 0.95) == 7.0
