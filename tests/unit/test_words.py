import itertools

import pytest

from engram.core.memory.search.words import index as word_index, tokens as words
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.memory.search.words.tokens import index_terms, match_queries, phrase, query_terms

ALICE = Scope(user="alice")


def counter(counts: dict[str, int], calls: list | None = None):
    """documents_with over made-up counts, honouring at_most like SQL's LIMIT."""
    def documents_with(quoted: str, at_most: int) -> int:
        if calls is not None:
            calls.append((quoted, at_most))
        found = counts.get(quoted.strip('"'), 0)
        return found if at_most < 0 else min(found, at_most)
    return documents_with


def test_chinese_runs_become_bigrams():
    assert index_terms("我对花生过敏") == "我对 对花 花生 生过 过敏"


def test_latin_words_are_lowercased_and_kept():
    assert index_terms("Peanut Butter, please!") == "peanut butter please"


def test_mixed_text():
    assert index_terms("I like 花生 a lot") == "i like 花生 a lot"


def test_latin_letters_and_digits_do_not_swallow_the_chinese_after_them():
    assert index_terms("Bart在圣诞节晚会上跳舞") == "bart 在圣 圣诞 诞节 节晚 晚会 会上 上跳 跳舞"
    assert index_terms("我用Python写代码") == "我用 python 写代 代码"
    assert index_terms("88号3号楼502室") == "88 号 3 号楼 502 室"


def test_each_script_is_a_run_of_its_own():
    assert index_terms("東京タワーに行った") == "东京 タワ ワー ーに 行 った"   # Han, then Kana
    assert index_terms("한국어를 배워요") == "한국 국어 어를 배워 워요"
    assert index_terms("Москва2024") == "москва 2024"


def test_full_width_letters_and_digits_are_plain_ones():
    assert index_terms("Ｐｙｔｈｏｎ３") == index_terms("Python3") == "python 3"


@pytest.mark.parametrize("traditional, simplified", [("記憶", "记忆"), ("臺灣", "台湾"), ("台灣", "台湾"),
                                                     ("我對花生過敏", "我对花生过敏"), ("乾燥的頭髮", "干燥的头发")])
def test_traditional_chinese_is_indexed_and_searched_as_simplified(traditional, simplified):
    assert index_terms(traditional) == index_terms(simplified)
    assert query_terms(traditional) == query_terms(simplified)


@pytest.mark.both_backends
def test_traditional_and_simplified_find_each_other(store):
    taiwan = store.add("我們在臺灣的記憶", ALICE)
    memory = store.add("我的记忆力不太好", ALICE)
    assert {i for i, _ in ranked(store, "台湾")} == {taiwan.id}
    assert {i for i, _ in ranked(store, "記憶")} == {taiwan.id, memory.id}


@pytest.mark.both_backends
def test_mixed_script_text_is_found_by_each_part(store):
    bart = store.add("Bart在圣诞节晚会上跳舞", ALICE)
    code = store.add("我用Python写代码", ALICE)
    home = store.add("88号3号楼502室", ALICE)
    assert [i for i, _ in ranked(store, "圣诞节")] == [bart.id]
    assert [i for i, _ in ranked(store, "bart")] == [bart.id]
    assert [i for i, _ in ranked(store, "python")] == [code.id]
    assert [i for i, _ in ranked(store, "写代码")] == [code.id]
    assert [i for i, _ in ranked(store, "3号楼")] == [home.id]


def test_query_drops_question_words_but_keeps_topics():
    assert query_terms("which foods should I avoid?") == ["foods", "avoid"]


def test_query_of_only_stopwords_keeps_them():
    assert query_terms("what is it") == ["what", "is", "it"]


def test_chinese_queries_drop_function_words_and_the_bigrams_across_them():
    assert query_terms("给我推荐点零食吧") == ["点零", "零食"]
    assert query_terms("我想养只宠物，有什么建议？") == ["养只", "只宠", "宠物"]    # not 有什, 么建
    assert query_terms("帮我填一下快递信息吧") == ["快递", "递信", "信息"]


def test_chinese_function_words_stay_in_documents_and_in_queries_of_nothing_else():
    assert index_terms("帮我推荐点零食") == "帮我 我推 推荐 荐点 点零 零食"
    assert query_terms("什么") == ["什么"]
    assert query_terms("帮我一下") == ["帮我", "我一", "一下"]


@pytest.mark.both_backends
def test_a_request_is_not_found_by_its_opening_words_alone(store):
    leave = store.add("帮我写一封请假邮件", ALICE, "message")
    cake = store.add("生日蛋糕要提前一天订", ALICE, "message")
    assert [i for i, _ in ranked(store, "帮我挑个蛋糕")] == [cake.id]
    assert leave.id in {i for i, _ in ranked(store, "帮我写邮件")}


def test_contraction_pieces_are_not_searched():
    assert query_terms("What is Caroline's job? She hadn't said, I'd guess") == [
        "caroline", "job", "she", "hadn", "said", "guess"]


def test_phrases_quote_fts_syntax_away():
    assert [phrase(t) for t in query_terms('NEAR("x") AND y*')] == ['"near"', '"x"', '"y"']


def test_single_chinese_character_is_a_prefix_query():
    assert match_queries("花", counter({}), 10) == ['"花"*']


def test_empty_query():
    assert match_queries("  ?! ", counter({}), 10) == []


def test_a_common_term_only_scores_documents_a_rarer_one_found():
    counts = counter({"go": 9_000, "museum": 12})
    assert match_queries("Did we go to the museum?", counts, 100_000) == ['"museum"', '("museum") AND ("go")']


def test_no_term_is_common_in_a_small_collection():
    assert match_queries("go museum", counter({"go": 900, "museum": 12}), 5_000) == ['"go" OR "museum"']


def test_common_grows_with_the_collection():
    counts = counter({"go": 9_000, "museum": 12})
    assert match_queries("go museum", counts, 1_000_000) == ['"go" OR "museum"']


def test_when_every_term_is_common_the_rarest_finds_the_documents():
    counts = counter({"go": 9_000, "like": 12_000, "make": 10_000})
    assert match_queries("like to go make", counts, 100_000) == ['"go"', '("go") AND ("like" OR "make")']


def test_a_long_query_keeps_its_rarest_terms_wherever_they_are():
    filler = ["".join(letters) for letters in itertools.product("bcdfg", repeat=3)][:100]   # in 500 documents each
    counts = counter({**{w: 500 for w in filler}, "tarantula": 2})
    expressions = match_queries(" ".join(filler + ["tarantula"]), counts, 100_000)
    kept = expressions[0].split(" OR ")
    assert len(kept) == words.MAX_QUERY_TERMS and kept[-1] == '"tarantula"'
    assert kept[:-1] == [f'"{w}"' for w in filler[:words.MAX_QUERY_TERMS - 1]]


def test_a_pasted_page_counts_only_its_longest_terms():
    filler = ["".join(letters) for letters in itertools.product("bcdfghjk", repeat=3)][:300]
    calls = []
    expressions = match_queries(" ".join(filler + ["tarantula"]), counter({"tarantula": 2}, calls), 100_000)
    assert len(calls) == words.MAX_COUNTED_TERMS and ('"tarantula"', 1_001) in calls
    assert expressions == ['"tarantula"']


def test_terms_no_document_holds_are_left_out():
    assert match_queries("museum zebra", counter({"museum": 12}), 100) == ['"museum"']
    assert match_queries("zebra okapi", counter({}), 100) == []


def test_counting_stops_past_the_threshold():
    calls = []
    match_queries("go museum", counter({"go": 9_000, "museum": 12}, calls), 100_000)
    assert calls == [('"go"', 1_001), ('"museum"', 1_001)]



@pytest.fixture
def talk(store, monkeypatch):
    """Alice's messages and bob's, which holds every word; "hiking" is common (here: in more than 3)."""
    monkeypatch.setattr(words, "COMMON_AT_LEAST", 3)
    texts = ["hiking again", "hiking with the kids", "hiking up the hill", "museum trip, no hiking",
             "the museum was closed"]
    ids = {text: store.add(text, Scope(user="alice", session="s1"), "message").id for text in texts}
    store.add("hiking to the museum", Scope(user="bob", session="s1"), "message")
    return ids


def ranked(store, query, scope=ALICE):
    return store.words.ranked(store.db, query, scope, SearchOptions(mode="words"))


def test_common_terms_still_score_what_rare_ones_find(store, talk):
    hits = dict(ranked(store, "museum hiking"))
    assert set(hits) == {talk["museum trip, no hiking"], talk["the museum was closed"]}
    table = word_index.searched(store.db, "alice")
    plain = dict(store.db.query(f"SELECT rowid, -bm25({table}) FROM {table} WHERE {table} MATCH ?",
                                ('"museum" OR "hiking"',)))
    assert hits == pytest.approx({memory_id: plain[memory_id] for memory_id in hits})


@pytest.mark.both_backends
def test_a_query_of_only_common_terms_still_finds_them(store, talk, monkeypatch):
    monkeypatch.setattr(words, "COMMON_AT_LEAST", 2)   # "museum" too
    assert set(dict(ranked(store, "museum hiking"))) == {talk["museum trip, no hiking"], talk["the museum was closed"]}
    assert set(dict(ranked(store, "hiking"))) == {talk[t] for t in talk if "hiking" in t}


@pytest.mark.both_backends
def test_word_matches_stay_inside_the_scope(store, talk):
    bob = {memory_id for memory_id, in store.db.query("SELECT id FROM memories WHERE user = 'bob'")}
    assert not bob & set(dict(ranked(store, "museum hiking")))
    assert set(dict(ranked(store, "museum hiking", Scope(user="bob")))) == bob


@pytest.mark.both_backends
def test_matches_are_found_behind_better_ones_of_other_users(store):
    for n in range(6):   # bob's matches are better, and fill the best few of all
        store.add("tuna " * 3, Scope(user="bob", session=f"s{n}"), "message")
    mine = store.add("tuna salad for lunch, with many other words", ALICE.narrowed(session="s1"), "message")
    assert [i for i, _ in store.words.ranked(store.db, "tuna", ALICE, SearchOptions(mode="words", candidates=1))] == [mine.id]


@pytest.mark.both_backends
def test_a_long_message_finds_a_memory_by_a_rare_word_at_its_end(store):
    for n in range(5):
        store.add(f"some chat about the weather and the garden, day {n}", ALICE)
    spider = store.add("my pet tarantula is called Rosie", ALICE)
    history = ("some chat about the weather and the garden " * 20
               + " ".join("".join(letters) for letters in itertools.product("bcdfg", repeat=3)))
    assert len(query_terms(history + " tarantula")) > words.MAX_QUERY_TERMS
    assert spider.id in {i for i, _ in ranked(store, history + " tarantula")}
