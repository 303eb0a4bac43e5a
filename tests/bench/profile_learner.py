"""The rule-based profile learner on a dev set of what people say, run by hand (seconds).

    .venv/bin/python tests/bench/profile_learner.py                    # the dev split
    .venv/bin/python tests/bench/profile_learner.py --split held_out   # once, at the end
    .venv/bin/python tests/bench/profile_learner.py --split all --quiet

Cases are in profile_dev_set.json: ``says`` holds self-disclosures, each with the lines it should
give (category, slot, words the line must contain) or the preference it changes; ``not`` holds
sentences that must give nothing (questions, hypotheticals, other people's facts, negations,
quotes and pasted text, chatter, past states, requests about someone else). A line is right when
it matches an expected one by category, slot family ("allergy" of "allergy:peanuts") and words;
the exact slot is counted apart ("slot exact"), since a key may be spelt differently from what the
set guessed. An expected entry may be marked ``"optional": true``: a true line the message also
gives, neither needed nor wrong. Precision: right lines and changes among all given; recall:
expected ones found.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "desktop"))

from engram.core.memory.search.words.tokens import simplified  # noqa: E402
from engram.core.profile.learner import Learned, PreferenceChange, learn  # noqa: E402

SET = Path(__file__).with_name("profile_dev_set.json")


def matches(expected: dict, given: Learned | PreferenceChange) -> bool:
    if "preference" in expected:
        return isinstance(given, PreferenceChange) and (given.key, given.value) == (expected["preference"], expected["value"])
    if not isinstance(given, Learned) or given.category != expected["category"]:
        return False
    if given.slot.split(":")[0] != expected["slot"].split(":")[0]:
        return False
    text = simplified(given.text).lower()
    return all(simplified(word).lower() in text for word in expected["contains"])


def slot_exact(expected: dict, given: Learned | PreferenceChange) -> bool:
    return "preference" in expected or expected["slot"].endswith(":*") or getattr(given, "slot", "") == expected["slot"]


def label(expected: dict) -> str:
    return "preference" if "preference" in expected else expected["category"]


def show(given: Learned | PreferenceChange) -> str:
    if isinstance(given, Learned):
        return f"{given.category}/{given.slot}: {given.text}"
    return f"preference {given.key}={given.value}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "held_out", "all"), default="dev")
    parser.add_argument("--quiet", action="store_true", help="figures only, no list of misses")
    args = parser.parse_args()
    cases = json.loads(SET.read_text(encoding="utf-8"))
    chosen = lambda group: [c for c in cases[group] if args.split == "all" or c["split"] == args.split]  # noqa: E731

    given_n: Counter = Counter()       # by language: lines and changes given
    right_n: Counter = Counter()
    expected_n: Counter = Counter()    # by language and by category
    found_n: Counter = Counter()
    exact_n = Counter()
    wrong_by_kind: Counter = Counter()
    misses: list[str] = []
    wrongs: list[str] = []
    for case in chosen("says"):
        lines, changes = learn(case["text"])
        given = [*lines, *changes]
        lang = case["lang"]
        for item in given:
            given_n[lang] += 1
            if any(matches(e, item) for e in case["expect"]):
                right_n[lang] += 1
            else:
                wrongs.append(f"  [{lang}] {case['text']!r} → {show(item)}")
        for expected in case["expect"]:
            if expected.get("optional"):
                continue
            hit = next((g for g in given if matches(expected, g)), None)
            for key in (lang, label(expected), "all"):
                expected_n[key] += 1
                found_n[key] += hit is not None
            if hit is not None:
                exact_n["exact"] += slot_exact(expected, hit)
            else:
                want = (f"preference {expected['preference']}={expected['value']}" if "preference" in expected
                        else f"{expected['category']}/{expected['slot']} {expected['contains']}")
                got = "; ".join(map(show, given)) or "nothing"
                misses.append(f"  [{lang}] {case['text']!r}: wanted {want}, got {got}")
    for case in chosen("not"):
        lines, changes = learn(case["text"])
        for item in [*lines, *changes]:
            given_n[case["lang"]] += 1
            wrong_by_kind[case["kind"]] += 1
            wrongs.append(f"  [{case['lang']}] ({case['kind']}) {case['text']!r} → {show(item)}")

    def ratio(a: int, b: int) -> str:
        return f"{a / b:.3f} ({a}/{b})" if b else "n/a"

    print(f"split: {args.split}; {len(chosen('says'))} disclosures, {len(chosen('not'))} must-not sentences")
    all_given, all_right = sum(given_n.values()), sum(right_n.values())
    print(f"overall   precision {ratio(all_right, all_given)}   recall {ratio(found_n['all'], expected_n['all'])}"
          f"   slot exact {ratio(exact_n['exact'], found_n['all'])}")
    for lang in ("en", "zh"):
        print(f"  {lang}      precision {ratio(right_n[lang], given_n[lang])}   recall {ratio(found_n[lang], expected_n[lang])}")
    print("recall by category:")
    for category in ("health", "identity", "people", "diet", "limits", "style", "commitments", "preference"):
        if expected_n[category]:
            print(f"  {category:<12} {ratio(found_n[category], expected_n[category])}")
    print("wrong lines from must-not sentences, by kind: "
          + (", ".join(f"{k} {n}" for k, n in sorted(wrong_by_kind.items())) or "none"))
    if not args.quiet:
        print(f"wrong ({len(wrongs)}):", *wrongs, sep="\n")
        print(f"missed ({len(misses)}):", *misses, sep="\n")


if __name__ == "__main__":
    main()
