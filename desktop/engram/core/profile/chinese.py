"""Rules that read facts about a subject in a Chinese clause (Traditional is read as Simplified).

As in English, a clause reaches these rules as its predicate, the subject taken off: 我对花生过敏
is read as 对花生过敏, 我女儿对鸡蛋过敏 as the same predicate about 女儿. Chinese drops a
subject the clause before named (我叫小林，住在南京): the learner hands such a clause over with
that subject. Words that are common in other senses need their context: 我叫 is a name only
when a name follows and ends the clause (not 我叫了外卖), 我怕 a fear only of a thing (not
我怕来不及了), 我不会 a limit only for an ability (开车, not 写这个函数).
"""

from __future__ import annotations

import re

from engram.core.profile.rules import Rule, chinese_rule
from engram.core.profile.said import Said

_ADVERBS = r"(?:现在|目前|一直|已经|平时|平常|从小|本身|也|都|还|就|真的|特别|非常|很|有点|比较|严重|本来|其实|天生)*"
_WHEN = r"(?:去年|今年|前年|上个月|上周|最近|前段时间|前几天|\d{4}年)?"
_NUMBER = r"(?:\d{1,2}|[一二两三四五六七八九十]{1,3})"
DATE = (rf"(?:(?:农历|阴历)?{_NUMBER}月{_NUMBER}[日号]?|{_NUMBER}月(?:底|初|中旬|中|末)|(?:下下?|这|本)?(?:周|星期|礼拜)[一二三四五六日天]|下下?(?:周|星期|礼拜)"
        rf"|下个?月(?:{_NUMBER}[日号])?|(?:这个?|本|下个?)?月(?:底|末|初)|(?:今|明)?年底|明天|后天|今晚|{_NUMBER}[日号])")
# By a day: 下周五之前, 这个月底前.
_BY = rf"(?:{DATE})(?:前|之前|以前)?"
# A time said before the subject (下周五之前我要考驾照) is read as said after it (我下周五之前要考驾照).
TIME_FIRST = re.compile(rf"(?P<when>{_BY})(?P<who>我)(?!们|的)(?P<rest>.+)$")
CALENDAR_DAY = rf"(?:(?:农历|阴历)?{_NUMBER}月{_NUMBER}[日号]?)"
_FREQUENCY = (r"(?:每(?:个)?(?:周|星期|礼拜)[一二三四五六日天]?|每天|每日|每晚|每早|天天|每个?周末|每个?月|每个?工作日|每隔一天)"
              r"(?:早上|晚上|下午|中午|上午|睡前|饭后|饭前)?(?:\d{1,2}点半?|[一二三四五六七八九十]{1,2}点半?)?")
_NOT_A_THING = re.compile(r"[不没你他她我这那了吗呢吧哪啥谁么]|什么|任何|东西$|^东西")
_NOT_A_NAME = re.compile(r"^[了着过他她你我它的个一们]|外卖|车|人来|什么|名字")

ALLERGENS = {"花生": "peanuts", "海鲜": "seafood", "青霉素": "penicillin", "芒果": "mango", "酒精": "alcohol",
             "猫毛": "cats", "猫": "cats", "狗毛": "dogs", "鸡蛋": "eggs", "牛奶": "milk", "花粉": "pollen",
             "坚果": "nuts", "虾": "shrimp", "螃蟹": "crab", "小麦": "wheat", "大豆": "soy", "尘螨": "dust mites",
             "阿司匹林": "aspirin", "磺胺": "sulfa drugs", "头孢": "cephalosporins", "蜂蜜": "honey", "桃子": "peaches"}
CONDITIONS = {"糖尿病": "diabetes", "二型糖尿病": "diabetes", "高血压": "high blood pressure", "哮喘": "asthma",
              "偏头痛": "migraines", "痛风": "gout", "抑郁症": "depression", "忧郁症": "depression", "抑郁": "depression",
              "焦虑症": "anxiety", "癫痫": "epilepsy", "甲减": "hypothyroidism", "甲亢": "hyperthyroidism",
              "贫血": "anemia", "失眠": "insomnia", "高血脂": "high cholesterol", "心脏病": "heart disease",
              "关节炎": "arthritis", "湿疹": "eczema", "鼻炎": "rhinitis", "胃病": "stomach", "胃炎": "gastritis",
              "老年痴呆": "dementia", "阿尔茨海默症": "alzheimer's", "帕金森": "parkinson's", "乳腺癌": "breast cancer",
              "多动症": "adhd", "自闭症": "autism", "肾病": "kidney disease", "肝炎": "hepatitis", "腰椎间盘突出": "back"}
_CONDITION_SHAPE = re.compile(r"(?:病|症|炎|癌|瘤|哮喘|痛风|偏头痛|抑郁|焦虑|失眠|癫痫|贫血|甲减|甲亢|高血压|高血脂|三高|突出)$")
MEDICINES = {"降压药": "blood pressure medicine", "胰岛素": "insulin", "二甲双胍": "metformin", "优甲乐": "levothyroxine",
             "阿司匹林": "aspirin", "维生素": "vitamins", "钙片": "calcium", "鱼油": "fish oil", "降糖药": "diabetes medicine",
             "安眠药": "sleeping pills", "避孕药": "birth control", "叶酸": "folic acid", "他汀": "statins"}
_MEDICINE_SHAPE = re.compile(r"(?:药|片|丸|胶囊|素|针|剂|喷雾|二甲双胍|优甲乐|阿司匹林|叶酸|鱼油|他汀)$")
FOODS = {"猪肉": "pork", "牛肉": "beef", "羊肉": "lamb", "辣": "spicy food", "辣的": "spicy food", "香菜": "cilantro",
         "海鲜": "seafood", "酒": "alcohol", "咖啡": "coffee", "鱼": "fish", "肉": "meat", "鸡蛋": "eggs", "牛奶": "milk",
         "糖": "sugar", "葱": "onions", "蒜": "garlic", "内脏": "offal", "生的东西": "raw food", "生的": "raw food",
         "甜食": "sweets", "奶制品": "dairy", "茶": "tea", "碳水": "carbs"}
FEARS = {"狗": "dogs", "蛇": "snakes", "高": "heights", "坐飞机": "flying", "飞机": "flying", "黑": "the dark",
         "蜘蛛": "spiders", "水": "water", "打针": "needles", "针头": "needles", "虫子": "insects", "虫": "insects",
         "老鼠": "mice", "猫": "cats", "蟑螂": "cockroaches", "鬼": "ghosts", "血": "blood", "打雷": "thunder",
         "雷": "thunder", "人多": "crowds", "人群": "crowds", "深水": "deep water", "电梯": "lifts", "小丑": "clowns",
         "鸟": "birds", "蜜蜂": "bees", "看牙医": "the dentist", "牙医": "the dentist", "冷": "cold", "热": "heat",
         "开车": "driving", "坐船": "boats", "狭小的空间": "enclosed spaces", "黑暗": "the dark", "医院": "hospitals"}
ABILITIES = {"开车": "drive", "驾驶": "drive", "游泳": "swim", "骑自行车": "ride a bike", "骑车": "ride a bike",
             "骑摩托车": "ride a motorbike", "骑电动车": "ride a scooter", "做饭": "cook", "爬山": "climb",
             "爬楼梯": "climb stairs", "走远路": "walk", "长时间走路": "walk", "走路": "walk", "久站": "stand",
             "跑步": "run", "弯腰": "bend", "坐飞机": "fly", "用电脑": "use a computer", "打字": "type"}
ACTIVITIES = {"跑步": "running", "游泳": "swimming", "钢琴": "piano", "瑜伽": "yoga", "健身": "gym", "打球": "ball games",
              "爬山": "hiking", "练琴": "piano", "学英语": "english", "上课": "class"}
DEADLINES = {"论文": "thesis", "报告": "report", "作业": "homework", "项目": "project", "毕业论文": "thesis",
             "申请": "application", "税": "tax return", "方案": "proposal"}
OCCUPATIONS = re.compile(r"(?:老师|教师|护士|医生|大夫|工程师|程序员|设计师|会计师?|律师|记者|司机|警察|厨师|作家|画家|编辑|销售|经理"
                         r"|主管|总监|农民|军人|学生|研究生|博士生?|本科生|大学生|高中生|初中生|小学生|研究员|公务员|店主"
                         r"|主播|模特|演员|歌手|翻译|导游|保安|保姆|快递员|外卖员|售货员|服务员|营业员|分析师|咨询师|架构师"
                         r"|药剂师|心理咨询师|社工|自由职业者|创业者|家庭主妇|全职妈妈|全职太太|退休人员|教授|讲师|科学家"
                         r"|产品经理|运营|前端|后端|测试|实习生|志愿者|电工|木匠|理发师|美甲师|健身教练|教练|飞行员|空姐"
                         r"|乘务员|医师|牙医|兽医|建筑师|律师助理|文员|秘书|助理|老板|CEO|HR)$")
LANGUAGE = re.compile(r"[\u4e00-\u9fff]{1,4}[语话文]|英文|中文|日文|法文|德文|手语")
_NOT_A_PLACE = re.compile(r"酒店|宾馆|这里|那里|这儿|那儿|家里|朋友家|附近|你家|他家|她家|心里|隔壁|楼上|楼下|宿舍$|医院$")

def _tidy(text: str) -> str:
    return text.strip("，,。.！!~ 了啦呢啊哦")


def _plain(text: str, longest: int) -> str:
    """``text`` when a line can name it: not empty, at most ``longest`` characters, and with no
    pronoun, negation or question word in it (我怕来不及了 names no thing); else ""."""
    return text if text and len(text) <= longest and not _NOT_A_THING.search(text) else ""


def _object(m: re.Match, longest: int) -> str:
    """What the clause is about (the rule's ``x``), tidied, when a line can name it; else ""."""
    return _plain(_tidy(m.group("x")), longest)


def _place(m: re.Match, longest: int) -> str:
    """The place the clause names, or "" for one no line stands on (酒店, 这里, 朋友家)."""
    place = _object(m, longest)
    return "" if _NOT_A_PLACE.search(place) else place


def _allergy(m: re.Match) -> list[Said]:
    """One line for each thing: 虾和螃蟹 are two allergies, each superseded alone."""
    found = []
    for thing in re.split(r"和|、|跟|以及|还有|或者|,|，", _tidy(m.group("x"))):
        if not _plain(thing, 8):
            return []
        found.append(Said("health", "allergy", ALLERGENS.get(thing, thing), f"对{thing}过敏", 5))
    return found


def _intolerance(m: re.Match) -> Said:
    thing = m.group("x")
    return Said("health", "intolerance", {"乳糖": "lactose", "麸质": "gluten"}[thing], f"{thing}不耐受", 5)


def _condition(m: re.Match) -> Said | None:
    thing = re.sub(r"^(?:轻微的|严重的|轻度|重度|轻微|一点|点|慢性|)", "", _tidy(m.group("x")))
    thing = re.sub(r"的?(?:老毛病|毛病|问题)$", "", thing)
    if not _plain(thing, 8) or "恐" in thing or not (thing in CONDITIONS or _CONDITION_SHAPE.search(thing)):
        return None
    return Said("health", "condition", CONDITIONS.get(thing, thing), f"有{thing}", 5)


def _pregnant(m: re.Match) -> Said:
    return Said("health", "condition", "pregnancy", _tidy(m.group()), 5)


def _medicine(m: re.Match) -> Said | None:
    thing = _tidy(m.group("x"))
    how, dose = m.group("how") or "", m.group("dose") or ""
    name = thing.replace("的药", "药")
    known = any(name.startswith(medicine) for medicine in MEDICINES)
    if not _plain(name, 8) or not (_MEDICINE_SHAPE.search(name) or known or dose):
        return None
    if not (how or dose or name.endswith("药")):
        return None
    return Said("health", "medicine", MEDICINES.get(name, name), _tidy(m.group()).replace("要", "", 1), 5)


def _home(m: re.Match) -> Said | None:
    place = _place(m, 12)
    return Said("identity", "home", "", f"住在{place}", 3) if place else None


def _work(m: re.Match) -> Said | None:
    place = _object(m, 12)
    return Said("identity", "work", "", f"在{place}{m.group('v')}", 3) if place else None


def _job(m: re.Match) -> Said | None:
    job = _object(m, 10)
    if not OCCUPATIONS.search(job):
        return None
    return Said("identity", "job", "", f"是{job}", 3, line=f"职业：{job}。")


def _studies(m: re.Match) -> Said | None:
    school = _tidy(m.group("x"))
    if _NOT_A_THING.search(school):
        return None
    return Said("identity", "job", "", f"在{school}{m.group('v')}{m.group('y')}", 3)


def _job_doing(m: re.Match) -> Said | None:
    job = _object(m, 6)
    return Said("identity", "job", "", f"做{job}", 3, line=f"职业：{job}。") if job else None


def _retired(m: re.Match) -> Said:
    return Said("identity", "job", "", "已退休", 3, line="已退休。")


def _languages(m: re.Match) -> Said | None:
    text = _tidy(m.group("x"))
    parts = [p for p in re.split(r"和|、|跟|以及|还有|一点|一些|流利的|一点点|，|,|及", text) if p]
    if not parts or not all(LANGUAGE.fullmatch(p) for p in parts):
        return None
    return Said("identity", "languages", "", f"会说{text}", 3)


def _mother_tongue(m: re.Match) -> Said | None:
    language = _tidy(m.group("x"))
    if not LANGUAGE.fullmatch(language):
        return None
    return Said("identity", "languages", "", f"母语是{language}", 3)


def _origin(m: re.Match) -> Said | None:
    place = _place(m, 8)
    return Said("identity", "origin", "", f"老家是{place}", 2) if place else None


def _native_of(m: re.Match) -> Said | None:
    place = m.group("x")
    if re.search(r"[个好坏一明白老实普通正常成年年轻有聪明外本男女大小文化读书穷富]", place):
        return None
    return Said("identity", "origin", "", f"是{place}人", 2)


def _age(m: re.Match) -> Said:
    return Said("identity", "age", "", f"{m.group('x')}岁", 2, line=f"年龄：{m.group('x')}岁。")


def _vegetarian(m: re.Match) -> Said:
    return Said("diet", "diet", "", _tidy(m.group()), 4)


def _diet_only(m: re.Match) -> Said | None:
    thing = _object(m, 8)
    return Said("diet", "diet", "", f"只吃{thing}", 4) if thing else None


def _eats_again(m: re.Match) -> Said | None:
    thing = _object(m, 4)
    return Said("diet", "diet", "", f"又开始吃{thing}", 4) if thing else None


def _avoids(m: re.Match) -> Said | None:
    thing = re.sub(r"[的]?东西$", "", _tidy(m.group("x"))) or _tidy(m.group("x"))
    if not thing or len(thing) > 5 or "药" in thing or _NOT_A_THING.search(thing.replace("生的", "")):
        return None
    verb = m.group("v")
    return Said("diet", "avoid", FOODS.get(thing, FOODS.get(_tidy(m.group("x")), thing)),
                f"{m.group('neg')}{verb}{_tidy(m.group('x'))}", 4)


def _gave_up(m: re.Match) -> Said:
    thing = m.group("x")
    return Said("diet", "avoid", FOODS.get(thing, thing), f"戒{thing}", 4)


def _dislikes(m: re.Match) -> Said | None:
    thing = _tidy(m.group("x"))
    return _avoids(m) if thing in FOODS else None


def _fear(m: re.Match) -> Said | None:
    thing = _tidy(m.group("x"))
    if thing not in FEARS:              # 我怕来不及了, 我怕你误会, 我害怕失业: a worry, not a fear to plan around
        return None
    return Said("limits", "fear", FEARS.get(thing, thing), f"怕{thing}", 4)


def _acrophobia(m: re.Match) -> Said:
    return Said("limits", "fear", "heights", "恐高", 4)


def _phobia(m: re.Match) -> Said:
    thing = m.group("x")
    return Said("limits", "fear", {"幽闭": "enclosed spaces", "高": "heights", "社交": "social situations"}.get(thing, thing),
                _tidy(m.group()).lstrip("有"), 4)


def _cannot(m: re.Match) -> Said:
    ability = m.group("x")
    return Said("limits", "cannot", ABILITIES[ability], f"{m.group('neg')}{ability}", 4)


def _motion_sick(m: re.Match) -> Said:
    kind = m.group("x")
    return Said("limits", "limit", {"车": "carsick", "船": "seasick", "机": "airsick"}[kind], f"晕{kind}", 3)


def _routine(m: re.Match) -> Said | None:
    doing = _tidy(m.group("x"))
    if re.fullmatch(rf"{_NUMBER}[片粒颗次支针杯]", doing):
        return None
    if (not doing or len(doing) > 12 or _NOT_A_THING.search(doing.replace("我", "")) or "药" in doing
            or re.match(r"很|太|挺|好|特别|非常|比较|有点|都|在想|是", doing)
            or re.search(r"(?:吃|服用|打|注射)", doing) and any(medicine in doing for medicine in MEDICINES)):
        return None
    activity = re.sub(r"^(?:去|练)|一个小时|半个小时|\d+分钟|[一两三]个?小时", "", doing)
    key = next((v for k, v in ACTIVITIES.items() if k in doing), activity or doing)
    return Said("commitments", "routine", key, _tidy(m.group()).replace("要", "", 1), 2)


def _appointment(m: re.Match) -> Said:
    who = m.group("x")
    key = {"牙医": "dentist", "医生": "doctor", "眼科": "eye doctor", "中医": "doctor", "心理医生": "therapist"}.get(who, who)
    return Said("commitments", "appointment", key, f"{m.group('when')}去看{who}", 3)


def _exam(m: re.Match) -> Said | None:
    exam = _object(m, 6)
    if not exam:
        return None
    return Said("commitments", "exam", {"雅思": "ielts", "托福": "toefl", "驾照": "driving test"}.get(exam, exam),
                f"{m.group('when')}考{exam}", 3)


def _event(m: re.Match) -> Said:
    return Said("commitments", "event", m.group("x"), f"{m.group('when')}有{m.group('x')}", 3)


def _wedding(m: re.Match) -> Said:
    return Said("commitments", "event", "wedding", f"{m.group('when')}结婚", 3)


def _deadline(m: re.Match) -> Said | None:
    thing = _object(m, 8)
    if not thing:
        return None
    text = _tidy(m.group()).lstrip("我的们")
    return Said("commitments", "deadline", DEADLINES.get(thing, thing), text, 3, line=f"{text}。")


def _format(m: re.Match) -> Said:
    return Said("style", "format", "", f"回答时{m.group('x')}", 2)


def _pet(m: re.Match) -> Said | None:
    said = _name(m)
    if not said:
        return None
    pet = m.group("pet")
    key = {"狗": "dog", "猫": "cat", "兔子": "rabbit", "鹦鹉": "parrot", "仓鼠": "hamster"}[pet]
    return Said("people", "name", key, "", 3, line=f"{pet}{said.predicate}。")


def _name(m: re.Match) -> Said | None:
    name = _tidy(m.group("x"))
    name = re.sub(r"(?:就好|就行|就可以|吧|好了)$", "", name)
    if not re.fullmatch(r"[\u4e00-\u9fff]{1,4}|[A-Za-z][\w'-]{0,20}", name) or _NOT_A_NAME.search(name):
        return None
    return Said("identity", "name", "", f"叫{name}", 4, line=f"名字：{name}。")


# Predicates, read after the subject: 对花生过敏, 有高血压, 每天晚上要吃降压药.
PREDICATES: list[Rule] = [
    chinese_rule(rf"{_ADVERBS}对(?P<x>[^，,。]{{1,10}}?)(?:很|非常|特别|严重|有点|轻微|也)?过敏", _allergy),
    chinese_rule(rf"{_ADVERBS}(?:有)?(?P<x>[^对，,。]{{1,6}}?)过敏(?:史)?", _allergy),
    chinese_rule(rf"{_ADVERBS}(?P<x>乳糖|麸质)不耐受?.*", _intolerance),
    chinese_rule(r"(?:有)?(?:点|一点|严重的|轻微的)?(?P<x>幽闭|社交|高)恐惧症", _phobia),
    chinese_rule(r"(?:有)?(?:点|一点|严重的|轻微的)?恐(?P<x>高)症", _phobia),
    chinese_rule(rf"{_ADVERBS}{_WHEN}(?:有|患有|得了|查出了?|查出来|确诊了?|被诊断出?了?|被诊断为)(?P<x>[^，,。]{{1,12}})", _condition),
    chinese_rule(rf"{_ADVERBS}(?:在|正在)?怀孕(?:{_NUMBER}个?[月周])?", _pregnant),
    chinese_rule(rf"{_ADVERBS}(?P<how>(?:{_FREQUENCY}|长期|一直在?|平时|晚上|早上|睡前|饭后|饭前|早晚)+)?(?:都|要|得|必须|会|在|各)*"
                 rf"(?:吃|服用|服|打|注射|喷)(?P<dose>[一两二三四五半\d]+[片粒颗支针次])?(?P<x>[^，,。]{{1,10}})", _medicine),
    chinese_rule(rf"{_ADVERBS}(?:住在|定居在|定居于|住于)(?P<x>[^，,。]{{1,12}})", _home),
    chinese_rule(r"(?:去年|今年|上个月|上周|最近|前几天|前段时间|刚|刚刚|已经|终于|\d{4}年)*(?:从[^，,。]{1,8}?)?搬(?:到|去|来)了?"
                 r"(?P<x>[^，,。]{1,12})", _home),
    chinese_rule(rf"{_ADVERBS}在(?P<x>[^，,。]{{1,12}}?)(?P<v>工作|上班|实习|任职)", _work),
    chinese_rule(rf"{_ADVERBS}在[^，,。]{{1,12}}?(?:当|做)(?P<x>[^，,。]{{1,8}})", _job),
    chinese_rule(rf"{_ADVERBS}在(?P<x>[^，,。]{{2,12}}?)(?P<v>读|念|上)(?P<y>博士|硕士|研究生|本科|大学|高中|初中|小学|大一|大二|大三|大四|研一|研二|研三)",
                 _studies),
    chinese_rule(rf"{_ADVERBS}是(?:一名|一位|一个|个|名|位)?(?P<x>[^，,。]{{1,10}})", _job),
    chinese_rule(rf"{_ADVERBS}是做(?P<x>[^，,。]{{1,6}})的", _job_doing),
    chinese_rule(rf"{_ADVERBS}(?:已经)?退休", _retired),
    chinese_rule(rf"{_ADVERBS}(?:会说|会讲|能说|说|讲|会|懂)(?:一点|一些|一点点)?(?P<x>[^，,。]{{1,16}})", _languages),
    chinese_rule(r"(?:的)?母语是(?P<x>[^，,。]{1,6})", _mother_tongue),
    chinese_rule(rf"{_ADVERBS}(?:老家|家乡)(?:是|在)(?P<x>[^，,。]{{1,8}}?)(?:人)?", _origin),
    chinese_rule(r"是(?P<x>[\u4e00-\u9fff]{2,4})人", _native_of),
    chinese_rule(rf"{_ADVERBS}(?:出生在|在)(?P<x>[^，,。]{{1,8}}?)(?:长大|出生)", _origin),
    chinese_rule(r"(?:今年)?(?P<x>\d{1,2}|[一二两三四五六七八九十]{1,3})岁", _age),
    chinese_rule(r"今年(?P<x>\d{1,2}|[一二两三四五六七八九十]{1,3})(?:岁)?", _age),
    chinese_rule(rf"{_ADVERBS}(?:只)?吃(?:全素|纯素|素|斋)(?:[^，,。]{{0,6}}年多?)?", _vegetarian),
    chinese_rule(rf"{_ADVERBS}(?:在)?(?:坚持)?(?:生酮饮食|轻断食|间歇性断食|低碳饮食|低碳水饮食|地中海饮食)", _vegetarian),
    chinese_rule(rf"{_ADVERBS}(?:已经)?戒(?P<x>酒|糖|咖啡|奶茶|肉)(?:了)?", _gave_up),
    chinese_rule(rf"{_ADVERBS}是(?:一个|一名|个)?(?:严格的)?(?:素食主义者|素食者|纯素食者|纯素主义者|吃素的)", _vegetarian),
    chinese_rule(rf"{_ADVERBS}(?:最近)?只吃(?P<x>[^，,。]{{1,10}})", _diet_only),
    chinese_rule(rf"{_ADVERBS}又(?:开始)?吃(?P<x>[^，,。]{{1,4}})", _eats_again),
    chinese_rule(rf"{_ADVERBS}(?:从来|一直|也)?(?P<neg>不|不能|不敢|从不|很少|不太)(?P<v>吃|喝|碰)(?P<x>[^，,。]{{1,8}})", _avoids),
    chinese_rule(rf"{_ADVERBS}(?P<neg>不喜欢|讨厌)(?P<v>吃|喝)(?P<x>[^，,。]{{1,5}})", _dislikes),
    chinese_rule(rf"{_ADVERBS}(?:很|特别|非常|有点|超级|最)?(?:怕|害怕|恐惧)(?P<x>[^，,。]{{1,6}})", _fear),
    chinese_rule(rf"{_ADVERBS}恐高", _acrophobia),
    chinese_rule(rf"{_ADVERBS}(?P<neg>不会|不能|没法|无法|不敢)(?P<x>{'|'.join(sorted(ABILITIES, key=len, reverse=True))})"
                 r"(?:[，,].*)?", _cannot),
    chinese_rule(rf"{_ADVERBS}(?:很|特别|非常|容易)?晕(?P<x>车|船|机)(?:很厉害|得厉害|很严重|严重)?(?:[，,].*)?", _motion_sick),
    chinese_rule(rf"(?P<how>{_FREQUENCY})(?:都|会|要|得|必须)*(?P<x>[^，,。]{{1,14}})", _routine),
    chinese_rule(rf"(?P<when>{_BY})(?:要|得)?考(?P<x>[^，,。]{{1,6}})", _exam),
    chinese_rule(rf"(?P<when>{_BY})(?:就|都)?(?:要|必须|得|需要)?(?:交|提交|上交|完成)(?P<x>[^，,。]{{1,8}})", _deadline),
    chinese_rule(rf"(?P<when>{DATE})(?:要)?结婚", _wedding),
    chinese_rule(rf"(?P<when>{DATE})(?:要|还)?有(?:个|一个|一场|场|次|一次)?(?P<x>面试|考试|手术|答辩|演讲|比赛|体检|汇报|约会)", _event),
    chinese_rule(rf"(?P<when>{DATE})(?:要|得)?去看(?P<x>牙医|医生|眼科|中医|心理医生)", _appointment),
]

# Whole clauses about the person whose subject is not 我: 叫我小李, 我的论文6月3日要交, 下周五我要去看牙医.
CLAUSES: list[Rule] = [
    chinese_rule(r"(?:我的名字|我名字)(?:是|叫)(?P<x>[^，,。]{1,20})", _name),
    chinese_rule(rf"我的?生日(?:是|在)(?P<x>{CALENDAR_DAY})", lambda m: Said(
        "identity", "birthday", "", f"生日是{m.group('x')}", 3, line=f"生日：{m.group('x')}。")),
    chinese_rule(r"(?:你|大家|别人|朋友们)?(?:都|可以|就)?叫我(?P<x>[^，,。]{1,20})", _name),
    chinese_rule(r"我叫(?P<x>[^，,。]{1,20})", _name),
    chinese_rule(rf"(?:我的|我们的|我们|我)?(?P<x>[^，,。我]{{1,8}}?)(?P<when>{DATE})(?:前|之前|以前)?(?:就|都)?(?:要|必须|得|需要)?"
                 rf"(?:交|提交|上交|上线|完成|截止|交稿|答辩|发布|到期)", _deadline),
    chinese_rule(r"(?:以后)?(?:请)?(?:回答|回复)?(?:的时候|时)?(?:尽量|最好|请|都)?(?P<x>列要点|分点|分条|用列表|列出要点|多举例子?|举例子"
                 r"|用公制单位|附上代码)(?:回答|说)?.*", _format),
    chinese_rule(r"(?:我)?(?:家)?养了?(?:一只|一条|一个|只|条)?(?P<pet>狗|猫|兔子|鹦鹉|仓鼠)(?:，|,)?(?:叫|名字叫)(?P<x>[^，,。]{1,6})", _pet),
]

RELATIONS = {
    "爸妈": "parents", "父母": "parents", "妈妈": "mother", "母亲": "mother", "老妈": "mother", "妈": "mother",
    "爸爸": "father", "父亲": "father", "老爸": "father", "爸": "father", "老婆": "wife", "妻子": "wife", "太太": "wife",
    "媳妇": "wife", "爱人": "partner", "老公": "husband", "丈夫": "husband", "儿子": "son", "女儿": "daughter",
    "孩子": "child", "宝宝": "baby", "哥哥": "older brother", "姐姐": "older sister", "弟弟": "younger brother",
    "妹妹": "younger sister", "爷爷": "grandfather", "奶奶": "grandmother", "外公": "grandfather", "外婆": "grandmother",
    "姥姥": "grandmother", "姥爷": "grandfather", "男朋友": "boyfriend", "女朋友": "girlfriend", "对象": "partner",
    "狗狗": "dog", "狗": "dog", "猫咪": "cat", "猫": "cat", "公公": "father-in-law", "婆婆": "mother-in-law",
    "岳父": "father-in-law", "岳母": "mother-in-law", "老板": "boss", "上司": "boss", "领导": "boss",
}
SHOWN = {"妈": "妈妈", "爸": "爸爸"}
RELATION = re.compile(rf"我(?:的|家|家的|家里的)?(?P<rel>{'|'.join(sorted(RELATIONS, key=len, reverse=True))})(?:的)?(?P<rest>.*)$")
_NEEDS = r"(?:坐轮椅|要坐轮椅|需要坐轮椅|行动不便|腿脚不好|耳朵不好|耳背|听力不好|眼睛不好|看不见|失明|瘫痪|卧床|听不清|走不了路)"
PERSON_FACTS: list[Rule] = [
    chinese_rule(rf"(?:的)?生日是(?P<x>{CALENDAR_DAY})", lambda m: Said("people", "birthday", "", f"的生日是{m.group('x')}", 3)),
    chinese_rule(r"(?:叫|名叫|的名字是|的名字叫|名字叫|名字是)(?P<x>[^，,。]{1,8})",
                 lambda m: (lambda said: Said("people", "name", "", said.predicate, 3) if said else None)(_name(m))),
    chinese_rule(rf"(?:今年)?(?P<x>{_NUMBER})岁(?:了)?|今年(?P<y>{_NUMBER})",
                 lambda m: Said("people", "age", "", f"今年{m.group('x') or m.group('y')}岁", 3)),
    chinese_rule(rf"(?P<x>[^，,。]{{0,6}}{_NEEDS}[^，,。]{{0,6}})", lambda m: Said("people", "need", "", _tidy(m.group("x")), 4)),
]
