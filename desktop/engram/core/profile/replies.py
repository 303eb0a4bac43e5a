"""How the person asks to be answered from now on: language, tone, detail, emoji (the keys of
engram.core.conversation.preferences), as seed 002's AnalyzePreferences reads 用中文 and 正式.

A request counts, a remark does not: "answer in Chinese" and "以后请用中文回答我" change the
language, "I speak Chinese" and "我会说英语" do not; "more formal" is about the replies, not
when it is about a text the person is writing ("make this email more formal", 这封邮件正式一点).
"""

from __future__ import annotations

import re

from engram.core.memory.search.words.tokens import simplified
from engram.core.profile.lines import PreferenceChange

LANGUAGES = {"chinese": "Chinese", "mandarin": "Chinese", "english": "English", "french": "French",
             "german": "German", "spanish": "Spanish", "italian": "Italian", "portuguese": "Portuguese",
             "japanese": "Japanese", "korean": "Korean", "russian": "Russian", "arabic": "Arabic", "dutch": "Dutch",
             "cantonese": "Cantonese", "hindi": "Hindi", "turkish": "Turkish", "polish": "Polish",
             "vietnamese": "Vietnamese", "thai": "Thai", "indonesian": "Indonesian", "swedish": "Swedish",
             "中文": "Chinese", "汉语": "Chinese", "普通话": "Chinese", "简体中文": "Chinese", "英文": "English",
             "英语": "English", "日语": "Japanese", "日文": "Japanese", "法语": "French", "法文": "French",
             "德语": "German", "韩语": "Korean", "粤语": "Cantonese", "西班牙语": "Spanish", "俄语": "Russian",
             "繁体中文": "Traditional Chinese"}

_ASKING = (r"^(?:(?:please|pls|kindly|and|just|always|also|now|ok|okay|from now on|going forward|in future|in the future"
           r"|i'd like you to|i want you to|i would like you to|(?:can|could|would|will)\s+you(?:\s+please)?)[\s,]+)*")
_NOT_ABOUT_REPLIES = re.compile(r"\b(?:this|that|the|my)\s+(?:email|letter|text|message|essay|post|paragraph|draft"
                                r"|story|cover letter|speech|toast)\b|\b(?:why|how|what|did|does|do)\b.*\?|\bif\b",
                                re.IGNORECASE)
# "Could you answer in Spanish?" may ask for one reply; "... from now on?" asks for all of them.
_STANDING = re.compile(r"\b(?:from now on|always|going forward|in future|in the future|by default|every time"
                       r"|all the time|only)\b", re.IGNORECASE)
_EN_LANGUAGE = re.compile(
    _ASKING + r"(?:answer|reply|respond|talk|speak|write|chat|communicate)(?:\s+(?:to\s+me|me|back))?\s+(?:only\s+"
    r"|always\s+)?in\s+(?P<x>[A-Za-z]+)\b|\b(?:switch|change)\s+(?:to|into)\s+(?P<y>[A-Za-z]+)\b", re.IGNORECASE)
_EN_TONE = re.compile(
    _ASKING + r"(?:be|sound|talk|write|speak|answer|reply|respond|keep it)(?:\s+to\s+me)?(?:\s+(?:a bit|a little|much"
    r"|way|even|somewhat))?(?:\s+(?P<more>more|less))?\s+(?P<x>formal(?:ly)?|casual(?:ly)?|friendly|professional(?:ly)?"
    r"|playful|relaxed|polite(?:ly)?|funny)\b|(?:don't|do not)\s+be\s+(?:so\s+)?(?P<stiff>formal|stiff)",
    re.IGNORECASE)
_EN_BRIEF = re.compile(
    r"\b(?:keep|make)\s+(?:your\s+)?(?:answers|replies|responses|them)\s+(?:nice and\s+)?(?:short|brief|concise)"
    r"|\b(?:keep|make)\s+it\s+(?:short|brief|concise)\b.*\b(?:from now on|always|going forward|in future)\b"
    r"|\b(?:shorter|brief|concise|short)\s+(?:answers|replies|responses)\b|^(?:please\s+)?less\s+detail\b"
    r"|\bbe\s+(?:more\s+)?(?:brief|concise)\b|\bjust\s+the\s+answer\b|\b(?:your\s+)?(?:answers|replies)\s+are\s+too\s+long",
    re.IGNORECASE)
_EN_DETAILED = re.compile(
    r"\b(?:more\s+detailed|longer|fuller|more\s+thorough|in-depth|detailed)\s+(?:answers|replies|explanations|responses)"
    r"|\bmore\s+detail\b.*\b(?:from now on|always|going forward|in future)\b", re.IGNORECASE)
_EN_NO_EMOJI = re.compile(r"\b(?:no|stop using|stop with|don't use|do not use|without|fewer|less|drop the|skip the"
                          r"|quit using|lose the|cut the|no more)\s+(?:the\s+)?emojis?\b|\bemojis?,?\s+(?:please\s+)?off\b",
                          re.IGNORECASE)
_EN_EMOJI = re.compile(r"\b(?:use|using|feel free to use|more|add|include|love)\s+(?:some\s+|more\s+)?emojis?\b",
                       re.IGNORECASE)

_ZH_NOT_ABOUT_REPLIES = re.compile(r"为什么|怎么|是不是|什么|这封|这段|这篇|这句|邮件|文章|信里|帮我写|帮我改|翻译|如果|假如|我会|我能|我不会")
_ZH_LANGUAGE = re.compile(rf"(?:用|改用|换成|换)(?P<x>{'|'.join(k for k in LANGUAGES if not k.isascii())})"
                          r"(?:来|跟我|和我|给我)?(?:回答|回复|交流|聊天?|说话?|沟通|回|讲)"
                          rf"|(?:请|以后|麻烦你?|就)(?:都)?(?:说|讲)(?P<y>{'|'.join(k for k in LANGUAGES if not k.isascii())})")
_ZH_STANDING = re.compile(r"以后|之后|从现在起|从现在开始|一直|都|每次|总是|默认")
_ZH_TONES = (
    ("casual", re.compile(r"(?:别|不要|不用|不必)(?:太|那么|这么)?(?:正式|正经|严肃)|(?:轻松|随意|口语化|随便|活泼)(?:一点|一些|些|点)")),
    ("formal", re.compile(r"正式(?:一点|一些|些|点|的语气|的口吻)|(?:语气|口吻|说话|回答)(?:要|请)?(?:更)?正式|用正式的|严肃(?:一点|一些|些)")),
    ("playful", re.compile(r"(?:请|说话|回答|语气|可以)(?:更)?(?:幽默|俏皮|风趣)|(?:幽默|俏皮|风趣)(?:一点|一些|些|点)")),
    ("friendly", re.compile(r"(?:亲切|友好|温柔|热情)(?:一点|一些|些|点)")),
)
_ZH_BRIEF = re.compile(r"(?:回答|回复|说话|解释|答案)[^，。]{0,4}(?:简短|简洁|短|简单)|(?:简短|简洁)(?:一点|一些|些|点)?地?(?:回答|回复)"
                       r"|少说(?:点|一点)|(?:回答|回复|说)得?太长|别(?:那么|太)?啰嗦|不要(?:太)?啰嗦")
_ZH_DETAILED = re.compile(r"(?:回答|回复|解释)[^，。]{0,4}详细|详细(?:一点|一些|些|点)?地?(?:回答|解释|说明)|以后.{0,6}详细")
_ZH_NO_EMOJI = re.compile(r"(?:别|不要|不用|少|不准|停止)(?:再)?(?:用|加|发|使用)?(?:表情符号|表情|emoji|颜文字)", re.IGNORECASE)
_ZH_EMOJI = re.compile(r"(?:多|可以|加点|多用|多加)(?:用|加|使用)?(?:点|一些)?(?:表情符号|表情|emoji)", re.IGNORECASE)

_TONES = {"formally": "formal", "casually": "casual", "relaxed": "casual", "professionally": "professional",
          "politely": "polite", "funny": "playful"}


def changes(sentence: str) -> list[PreferenceChange]:
    """The preferences ``sentence`` asks to change, each once."""
    found: dict[str, PreferenceChange] = {}
    evidence = sentence.strip()

    def change(key: str, value: str | bool) -> None:
        found.setdefault(key, PreferenceChange(key, value, evidence))

    zh = simplified(sentence)
    if zh != sentence or re.search(r"[\u4e00-\u9fff]", sentence):
        if _ZH_NOT_ABOUT_REPLIES.search(zh):
            return []
        language = _ZH_LANGUAGE.search(zh)
        if language and (not re.search(r"[?？吗]", zh) or _ZH_STANDING.search(zh)):
            change("language", LANGUAGES[language.group("x") or language.group("y")])
        for name, pattern in _ZH_TONES:
            if pattern.search(zh):
                change("tone", name)
        if _ZH_BRIEF.search(zh):
            change("detail", "brief")
        elif _ZH_DETAILED.search(zh):
            change("detail", "detailed")
        if _ZH_NO_EMOJI.search(zh):
            change("emoji", False)
        elif _ZH_EMOJI.search(zh):
            change("emoji", True)
        return list(found.values())
    if _NOT_ABOUT_REPLIES.search(sentence):
        return []
    language = _EN_LANGUAGE.search(sentence)
    if language and ("?" not in sentence or _STANDING.search(sentence)) and (language.group("x") or language.group("y")).lower() in LANGUAGES:
        change("language", LANGUAGES[(language.group("x") or language.group("y")).lower()])
    tone = _EN_TONE.search(sentence)
    if tone:
        if tone.group("stiff") or (tone.group("more") or "").lower() == "less" and tone.group("x").lower() == "formal":
            change("tone", "casual")
        elif (tone.group("more") or "").lower() != "less":
            word = tone.group("x").lower()
            change("tone", _TONES.get(word, word))
    if _EN_BRIEF.search(sentence):
        change("detail", "brief")
    elif _EN_DETAILED.search(sentence):
        change("detail", "detailed")
    if _EN_NO_EMOJI.search(sentence):
        change("emoji", False)
    elif _EN_EMOJI.search(sentence):
        change("emoji", True)
    return list(found.values())
