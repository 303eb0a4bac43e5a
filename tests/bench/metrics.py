"""Retrieval metrics, as the LoCoMo and LongMemEval papers define them (see bench-data/README.md).

Kept apart from the benchmark so that tests/unit/test_retrieval_metrics.py can check them on
hand-made data with known answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

_DIA_ID = re.compile(r"D:?(\d+):(\d+)")


def normalise_dia_ids(evidence: Iterable[str]) -> list[str]:
    """LoCoMo evidence ids as ``D<session>:<turn>`` with integer parts; malformed ones such as
    ``"D8:6; D9:17"``, ``"D:11:26"`` or ``"D30:05"`` are split and repaired, duplicates dropped."""
    found: list[str] = []
    for item in evidence:
        for part in re.split(r"[;\s]+", item.strip()):
            match = _DIA_ID.fullmatch(part)
            if match:
                found.append(f"D{int(match[1])}:{int(match[2])}")
    return list(dict.fromkeys(found))


def unit_recall(retrieved: Sequence[Iterable[str]], evidence: Iterable[str], k: int) -> float:
    """LoCoMo recall@k: the share of evidence ids carried by the first k retrieved units (each unit
    carries one or more ids). A question without evidence counts 1.0."""
    wanted = set(evidence)
    if not wanted:
        return 1.0
    found = set().union(*[set(ids) for ids in retrieved[:k]]) if retrieved[:k] else set()
    return len(wanted & found) / len(wanted)


def recall_any(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when at least one gold key is in the top k (LongMemEval's recall_any@k)."""
    gold = set(gold)
    return float(any(key in gold for key in ranked[:k]))


def recall_all(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when every gold key is in the top k (LongMemEval's recall_all@k)."""
    gold = set(gold)
    return float(gold <= set(ranked[:k]))


def newest_first(ranked: Sequence[str], gold: Iterable[str], said: dict[str, str]) -> float:
    """1.0 when the first gold key ranked is the newest one by ``said`` (ISO times; LongMemEval's
    knowledge-update: the value now true), 0.0 when an older one comes first or none is ranked."""
    gold = set(gold)
    first = next((key for key in ranked if key in gold), None)
    return float(first is not None and said[first] == max(said[key] for key in gold))


def ndcg_any(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Binary-relevance nDCG@k, as LongMemEval's evaluation computes it: DCG of the gold keys in
    the top k over the DCG of the ideal ranking (all gold keys first, at most k of them)."""
    gold = set(gold)
    if not gold:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, key in enumerate(ranked[:k], start=1) if key in gold)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(gold)) + 1))
    return dcg / ideal


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (share in 0..1) of a non-empty sequence."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")
