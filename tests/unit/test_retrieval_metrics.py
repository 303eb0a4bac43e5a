"""The benchmark's metrics and Chinese sets on hand-made data whose answers are known by hand."""

import json
import math
import sys
from datetime import datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bigram_bm25 import BigramBM25, bigrams  # noqa: E402
from chinese import haystacks, memdaily, memdaily_time, shared_words, stratified, zero_overlap  # noqa: E402
from metrics import (ndcg_any, newest_first, normalise_dia_ids, percentile, recall_all, recall_any,  # noqa: E402
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


def test_character_bigrams_of_every_run():
    assert bigrams("我对花生过敏。") == ["我对", "对花", "花生", "生过", "过敏"]
    assert bigrams("I'm 3, 花") == ["i", "m", "3", "花"]
    assert bigrams("用Python") == ["用p", "py", "yt", "th", "ho", "on"]


def test_bigram_bm25_by_hand():
    bm25 = BigramBM25(["我对花生过敏", "今天吃了花生", "天气很好"])
    # "花生" is in 2 of 3 documents; document 1 has 5 bigrams, the average is 13/3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert bm25.score("花生", 1) == pytest.approx(idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 5 / (13 / 3))))
    assert bm25.ranking("花生过敏", 5) == [0, 1]
    assert bm25.ranking("花生", 1) == [0]          # a tie goes to the earlier document
    assert bm25.ranking("零食", 5) == []


def test_shared_words_are_bigrams_and_latin_words():
    assert shared_words("我用Python写代码", "python怎么写") == {"python"}
    assert shared_words("我对花生过敏", "给我推荐点零食吧") == set()
    assert shared_words("我對貓毛過敏", "我对猫毛过敏") == set()     # Traditional and Simplified
    assert shared_words("住在88号3号楼", "3号楼在哪") == {"3号", "号楼", "3"}


def test_every_zero_overlap_question_shares_no_word_with_its_fact():
    people = zero_overlap()
    assert len(people) == 24
    assert len({p.name for p in people}) == 24
    for person in people:
        (question,) = person.questions
        fact = next(m for m in person.messages if m.key == "fact")
        assert question.gold == ("fact",)
        assert shared_words(fact.text, question.text) == set(), person.name
        assert len(person.messages) >= 31 and len({m.session for m in person.messages}) >= 8


def test_stratified_takes_from_each_list_in_turn():
    assert stratified([[1, 2, 3], [4], [5, 6]], 5) == [1, 4, 5, 2, 6]
    assert stratified([[1], [2]], 9) == [1, 2]


def test_a_haystack_never_holds_two_trajectories_of_one_simulated_user():
    items = [("a", 0, {}), ("b", 0, {}), ("c", 1, {}), ("d", 2, {}), ("e", 3, {})]
    assert [[name for name, _, _ in group] for group in haystacks(items, 2)] == [["a", "c"], ["b", "d"], ["e"]]


def test_memdaily_time():
    assert memdaily_time("2024年04月01日 周一 08:39") == datetime(2024, 4, 1, 8, 39)


def test_memdaily_people_from_a_hand_made_file(tmp_path):
    def trajectory(tid, question, texts, gold):   # two messages a day
        messages = [{"mid": i, "message": text, "time": f"2024年04月0{1 + i // 2}日 周一 08:3{i}", "place": "上海"}
                    for i, text in enumerate(texts)]
        return {"tid": tid, "message_list": messages,
                "question_list": [{"qid": 0, "question": question, "answer": "x", "target_step_id": gold}]}
    (tmp_path / "01_simple_roles.json").write_text(json.dumps([
        trajectory(0, "我上司叫什么？", ["我的上司叫王磊。", "今天好热。", "我表妹是老师。"], [0]),
        trajectory(1, "[ERRORQ]", ["坏的"], [0]),
        trajectory(2, "我表弟多大？", ["我表弟三十岁。"], [0])]), encoding="utf-8")
    (tmp_path / "notes.json").write_text("{}")
    people = memdaily(tmp_path, 10, haystack=5)
    assert len(people) == 1
    (person,) = people
    assert sorted(q.text for q in person.questions) == ["我上司叫什么？", "我表弟多大？"]
    assert {q.kind for q in person.questions} == {"simple"}
    boss = next(q for q in person.questions if q.text == "我上司叫什么？")
    assert [m.text for m in person.messages if m.key in boss.gold] == ["我的上司叫王磊。"]
    assert {m.session for m in person.messages} == {"01_simple_roles/0@2024-04-01", "01_simple_roles/0@2024-04-02",
                                                    "01_simple_roles/2@2024-04-01"}
    assert len(memdaily(tmp_path, 1)) == 1 and len(memdaily(tmp_path, 1)[0].questions) == 1
    with pytest.raises(FileNotFoundError):
        memdaily(tmp_path / "missing", 10)


def test_newest_first_is_whether_the_value_now_true_comes_before_the_older_ones():
    said = {"old": "2023-05-01T00:00:00.000Z", "new": "2023-06-01T00:00:00.000Z"}
    assert newest_first(["x", "new", "old"], {"old", "new"}, said) == 1.0
    assert newest_first(["old", "x", "new"], {"old", "new"}, said) == 0.0
    assert newest_first(["x", "y"], {"old", "new"}, said) == 0.0
