from engram.core.words import index_text, match_query


def test_chinese_runs_become_bigrams():
    assert index_text("我对花生过敏") == "我对 对花 花生 生过 过敏"


def test_latin_words_are_lowercased_and_kept():
    assert index_text("Peanut Butter, please!") == "peanut butter please"


def test_mixed_text():
    assert index_text("I like 花生 a lot") == "i like 花生 a lot"


def test_query_drops_question_words_but_keeps_topics():
    assert match_query("which foods should I avoid?") == '"foods" OR "avoid"'


def test_query_of_only_stopwords_keeps_them():
    assert match_query("what is it") == '"what" OR "is" OR "it"'


def test_query_quotes_fts_syntax_away():
    assert match_query('NEAR("x") AND y*') == '"near" OR "x" OR "y"'


def test_single_chinese_character_is_a_prefix_query():
    assert match_query("花") == '"花"*'


def test_empty_query():
    assert match_query("  ?! ") is None
