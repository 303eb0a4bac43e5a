"""Rules that read facts about a subject in an English clause.

A clause reaches these rules as its predicate, the subject taken off ("I'm allergic to peanuts" is
read as "am allergic to peanuts"; "my dad has asthma" as "have asthma"), so one rule serves the
person and the people in their life. Objects are kept tight: a clause's trailing reason or
question ("..., so what snack") never reaches a line. Open-ended verbs ("take", "can't", "hate")
only count with words from short lists (medicines, abilities, foods): "I take the bus every day"
and "I can't find my keys" are not facts about the person.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engram.core.profile.said import Said

LANGUAGES = ("english", "french", "spanish", "german", "italian", "portuguese", "dutch", "chinese", "mandarin",
             "cantonese", "japanese", "korean", "arabic", "hindi", "urdu", "bengali", "russian", "polish", "turkish",
             "greek", "swedish", "norwegian", "danish", "finnish", "hebrew", "persian", "farsi", "vietnamese", "thai",
             "indonesian", "malay", "tagalog", "swahili", "ukrainian", "czech", "hungarian", "romanian", "catalan",
             "sign language", "asl", "bsl", "irish", "welsh")
CONDITIONS = {
    "diabetes": "diabetes", "type 1 diabetes": "diabetes", "type 2 diabetes": "diabetes", "asthma": "asthma",
    "epilepsy": "epilepsy", "adhd": "adhd", "autism": "autism", "anxiety": "anxiety", "depression": "depression",
    "bipolar disorder": "bipolar disorder", "ptsd": "ptsd", "ocd": "ocd", "high blood pressure": "high blood pressure",
    "hypertension": "high blood pressure", "low blood pressure": "low blood pressure",
    "high cholesterol": "high cholesterol", "arthritis": "arthritis", "migraines": "migraines", "migraine": "migraines",
    "celiac disease": "celiac disease", "coeliac disease": "celiac disease", "celiac": "celiac disease",
    "coeliac": "celiac disease", "ibs": "ibs", "crohn's": "crohn's disease", "crohn's disease": "crohn's disease",
    "gout": "gout", "lupus": "lupus", "ms": "multiple sclerosis", "multiple sclerosis": "multiple sclerosis",
    "parkinson's": "parkinson's", "alzheimer's": "alzheimer's", "dementia": "dementia", "insomnia": "insomnia",
    "sleep apnea": "sleep apnea", "eczema": "eczema", "psoriasis": "psoriasis", "anemia": "anemia",
    "anaemia": "anemia", "glaucoma": "glaucoma", "tinnitus": "tinnitus", "fibromyalgia": "fibromyalgia",
    "pcos": "pcos", "endometriosis": "endometriosis", "hiv": "hiv", "dyslexia": "dyslexia", "cancer": "cancer",
    "a heart condition": "heart condition", "heart disease": "heart disease", "kidney disease": "kidney disease",
    "chronic fatigue": "chronic fatigue", "long covid": "long covid", "scoliosis": "scoliosis",
    "a bad back": "back", "chronic back pain": "back", "back pain": "back", "hypothyroidism": "hypothyroidism",
    "hyperthyroidism": "hyperthyroidism", "a pacemaker": "pacemaker", "cystic fibrosis": "cystic fibrosis",
    "an iron deficiency": "iron deficiency", "iron deficiency": "iron deficiency",
}
_CONDITION_SHAPE = re.compile(r"(?:itis|osis|emia|aemia|pathy|disease|disorder|syndrome|deficiency|condition)$")
CONDITION_ADJECTIVES = {
    "diabetic": "diabetes", "epileptic": "epilepsy", "asthmatic": "asthma", "anemic": "anemia", "anaemic": "anemia",
    "autistic": "autism", "pregnant": "pregnancy", "colorblind": "colorblind", "colourblind": "colorblind",
    "color blind": "colorblind", "colour blind": "colorblind", "deaf": "deaf", "blind": "blind",
    "hard of hearing": "hearing", "celiac": "celiac disease", "coeliac": "celiac disease", "dyslexic": "dyslexia",
    "hypertensive": "high blood pressure", "bipolar": "bipolar disorder", "immunocompromised": "immunocompromised",
    "visually impaired": "blind", "hearing impaired": "hearing",
}
MEDICINES = ("vitamin", "vitamins", "supplement", "supplements", "pill", "pills", "medication", "medicine", "insulin",
             "aspirin", "ibuprofen", "iron", "magnesium", "melatonin", "fish oil", "omega-3", "birth control",
             "antidepressants", "antidepressant", "blood thinners", "blood thinner", "statins", "statin", "inhaler",
             "thyroxine", "levothyroxine", "lithium", "prednisone", "warfarin", "metformin", "tablets", "tablet",
             "drops", "injection", "injections", "beta blockers", "painkillers", "antihistamines", "antihistamine")
_DRUG_SHAPE = re.compile(r"(?:mycin|cillin|prazole|statin|sartan|pril|olol|azepam|oxetine|ipine|afil|formin|arin"
                         r"|amine|tropin|thyroxine|done|zole|mab|tide|dronate|ine|ol|ide|in)$")
ABILITIES = ("drive", "swim", "ride a bike", "ride a bicycle", "ride a motorbike", "ride", "cook", "walk", "lift",
             "climb stairs", "climb", "run", "kneel", "bend", "stand for long", "see well", "hear well",
             "read small print", "type", "fly", "travel by plane", "sit for long", "carry")
FOODS = ("meat", "red meat", "pork", "beef", "lamb", "chicken", "fish", "seafood", "shellfish", "dairy", "milk",
         "cheese", "eggs", "gluten", "wheat", "sugar", "alcohol", "coffee", "caffeine", "tea", "spicy food",
         "spicy", "cilantro", "coriander", "mushrooms", "onions", "garlic", "olives", "tomatoes", "nuts", "peanuts",
         "soy", "tofu", "carbs", "bread", "rice", "fried food", "raw fish", "sushi", "offal", "liver", "mayo",
         "mayonnaise", "broccoli", "bananas", "avocado", "meat or fish", "animal products", "processed food",
         "junk food", "fast food", "beer", "wine", "soda", "juice", "sweets", "chocolate", "pasta")
DIETS = ("vegetarian", "vegan", "pescatarian", "pescetarian", "gluten-free", "gluten free", "dairy-free",
         "dairy free", "keto", "paleo", "halal", "kosher", "plant-based", "plant based", "flexitarian", "raw vegan",
         "lacto-ovo vegetarian", "lacto vegetarian", "strict vegetarian", "strict vegan", "sugar-free")
OCCUPATIONS = ("teacher", "nurse", "doctor", "physician", "surgeon", "engineer", "developer", "programmer", "designer",
               "student", "lawyer", "attorney", "accountant", "pilot", "chef", "cook", "writer", "journalist",
               "scientist", "researcher", "professor", "lecturer", "manager", "consultant", "pharmacist", "dentist",
               "architect", "electrician", "plumber", "carpenter", "farmer", "driver", "mechanic", "therapist",
               "psychologist", "psychiatrist", "artist", "musician", "photographer", "analyst", "librarian",
               "paramedic", "firefighter", "officer", "vet", "veterinarian", "midwife", "carer", "caregiver",
               "freelancer", "translator", "entrepreneur", "cashier", "barista", "waiter", "waitress", "postdoc",
               "intern", "secretary", "assistant", "editor", "economist", "banker", "trader", "salesman",
               "recruiter", "technician", "scientist", "coder", "physiotherapist", "social worker", "soldier",
               "police officer", "tutor", "coach", "baker", "butcher", "cleaner", "janitor", "receptionist",
               "clerk", "administrator", "sysadmin", "statistician", "mathematician", "physicist", "chemist",
               "biologist", "dietitian", "nutritionist", "optician", "paralegal", "consultant", "founder", "ceo",
               "cto", "homemaker", "housewife", "stay-at-home dad", "stay-at-home mom", "retiree", "pensioner")

_ADVERBS = (r"(?:(?:really|very|so|super|quite|severely|seriously|extremely|deathly|terribly|pretty|a bit|a little"
            r"|mildly|slightly|also|actually|still|now|just|highly|deadly|badly|incredibly|insanely|absolutely)\s+)*")
# Where an object ends: a reason, a consequence, a time, a question after it.
_OBJECT_END = re.compile(r"\s+(?:so|but|because|since|which|that|when|while|if|though|and i|and my|as well|too|here"
                         r"|btw|by the way|lol|right now|at the moment|these days|anymore|any more|nowadays"
                         r"|after|ever since|for (?:religious|health|ethical) reasons|for years|for now"
                         r"|(?:last|this|next) (?:year|month|week)|in \d{4}|\d+ years ago|years ago|recently|again"
                         r"|if that matters|just saying|already|in (?:spring|summer|winter|autumn|fall)"
                         r"|(?:all|every|each|most) [a-z]+|who|looking|trying|hoping|working on)\b.*$", re.IGNORECASE)
_NOT_A_THING = {"anything", "nothing", "everything", "it", "that", "this", "them", "you", "him", "her", "much",
                "a lot", "any", "some", "those", "there", "out", "much of anything", "mondays", "work", "people",
                "school", "life", "me", "myself", "the deadline", "missing out"}
_FREQUENCY = (r"(?:every|each)\s+(?:other\s+)?(?:day|morning|evening|night|week|weekend|month|monday|tuesday|wednesday"
              r"|thursday|friday|saturday|sunday|weekday|[a-z]+ (?:morning|evening|night|afternoon))|daily|nightly"
              r"|weekly|twice a (?:day|week)|once a (?:day|week)|three times a (?:day|week)|at night|before bed"
              r"|in the (?:morning|evening)s?|with (?:meals|breakfast|dinner)|on (?:mondays|tuesdays|wednesdays"
              r"|thursdays|fridays|saturdays|sundays|weekends|weekdays)")
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
DATE = (rf"(?:(?:on\s+)?(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
        rf"|(?:next|this)\s+(?:{_WEEKDAY}|week|month)|(?:on\s+)?{_WEEKDAY}|tomorrow|tonight|the end of (?:the )?"
        rf"(?:week|month|year)|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|in\s+{_MONTH}"
        rf"|{_MONTH})")
_CAPITALISED = r"(?:[A-Z][\w'.-]*(?:\s+(?:(?:de|del|la|le|am|upon|on|of|du|des|y)\b|[A-Z][\w'.-]*))*)"
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12}
_NOT_A_NAME = {"Sorry", "Fine", "Good", "Great", "Done", "Ready", "Sure", "Tired", "Hungry", "Bored", "Lost", "Back",
               "Home", "Here", "Ok", "Okay", "Not", "Also", "Just", "Still", "So", "In", "On", "At", "Out", "Off",
               "Muslim", "Christian", "Catholic", "Jewish", "Hindu", "Buddhist", "Atheist", "Vegan", "Vegetarian",
               "Thai", "Swiss", "Dutch", "French", "Greek", "Welsh", "Irish", "Scottish", "British", "American",
               "Mexican", "German", "Korean", "Italian", "Canadian", "Australian", "Indian", "Russian", "Brazilian",
               "Gay", "Straight", "Single", "Married", "Divorced", "Retired", "Busy", "Free", "Happy", "Sad", "Alive",
               "Dead", "Crazy", "Late", "Early", "Right", "Wrong", "Yes", "No", "Batman", "Human", "Serious"}


def tidy(text: str) -> str:
    """An object as a line holds it: its trailing reason or time cut off, "my" dropped."""
    text = _OBJECT_END.sub("", text.strip())
    text = re.sub(r"\bmy\s+", "", text, flags=re.IGNORECASE)
    return text.strip(" ,.;:!?-–—\"'")


def _key(text: str) -> str:
    text = re.sub(r"^(?:a|an|the|some|any|all)\s+", "", text.lower())
    return re.sub(r"\s+", " ", text).strip()


def _thing(text: str, most_words: int = 4) -> str:
    """A noun phrase for a line, or "" when it is not one (too long, a pronoun, "anything")."""
    text = tidy(text)
    if not text or len(text.split()) > most_words or _key(text) in _NOT_A_THING:
        return ""
    if re.match(r"(?:after|before|until|at|in|on|during|out|late|much|more|less|enough|anymore|with|without|for)\b",
                text, re.IGNORECASE):
        return ""
    if re.search(rf"\b(?:you|it|this|that|these|those|{_WEEKDAY}s?)\b", text, re.IGNORECASE):
        return ""
    return text


_PLURALS = {"nut": "nuts", "peanut": "peanuts", "cat": "cats", "dog": "dogs", "egg": "eggs", "tree nut": "tree nuts"}


def _allergy(m: re.Match) -> list[Said]:
    """One line for each thing: "tree nuts and sesame" are two allergies, each superseded alone."""
    found = []
    for part in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+or\s+", tidy(m.group("x"))):
        thing = _thing(part)
        if not thing:
            return []
        key = _PLURALS.get(_key(thing), _key(thing))
        shown = key if _key(thing) in _PLURALS else thing         # "a peanut allergy": allergic to peanuts
        found.append(Said("health", "allergy", key, f"allergic to {shown}", 5, copula=True))
    return found


def _allergy_noun(m: re.Match) -> list[Said]:
    return _allergy(m) if m.group("x").lower() not in ("mild", "severe", "bad", "serious", "an", "a") else []


def _intolerance(m: re.Match) -> Said:
    x = m.group("x").lower()
    return Said("health", "intolerance", x, f"{x} intolerant", 5, copula=True)


def _condition(m: re.Match) -> Said | None:
    thing = tidy(m.group("x"))
    known = CONDITIONS.get(thing.lower()) or CONDITIONS.get(re.sub(r"^(?:a|an|mild|severe|chronic)\s+", "", thing.lower()))
    if not known and not (len(thing.split()) <= 4 and _CONDITION_SHAPE.search(thing.lower())):
        return None
    return Said("health", "condition", known or _key(thing), f"has {thing}", 5)


def _condition_adjective(m: re.Match) -> Said:
    adjective = m.group("x").lower()
    rest = tidy(m.group("rest") or "")
    rest = re.sub(r"^in\s+", "in the ", rest) if rest.lower().startswith("in ") else ""
    return Said("health", "condition", CONDITION_ADJECTIVES[adjective], f"{m.group('x')} {rest}".strip(), 5, copula=True)


def _medicine(thing: str, how: str) -> Said | None:
    thing = tidy(thing)
    words = re.sub(r"^(?:an?|some|one|two|\d+\s*(?:mg|mcg|g|ml|units?|iu)?)\s+(?:of\s+)?", "", thing.lower())
    words = re.sub(r"^(?:\d+\s*(?:mg|mcg|g|ml|units?|iu)|a|an)\s+(?:of\s+)?", "", words)
    if (not words or len(words.split()) > 3 or words.startswith(("the ", "a ", "my ")) and words != "the pill"
            or not (any(re.search(rf"\b{re.escape(m)}\b", words) for m in MEDICINES)
                    or _DRUG_SHAPE.search(words.split()[-1]) and len(words.split()) == 1)):
        return None
    return Said("health", "medicine", words, f"takes {thing} {how}".strip(), 5)


def _take(m: re.Match) -> Said | None:
    return _medicine(m.group("x"), m.group("how"))


def _on_medicine(m: re.Match) -> Said | None:
    said = _medicine(m.group("x"), "")
    return Said("health", "medicine", said.key, f"on {tidy(m.group('x'))}", 5, copula=True) if said else None


def _device(m: re.Match) -> Said:
    device = m.group("x").lower()
    family = "medicine" if device in ("inhaler", "insulin pump", "cpap", "cpap machine") else "aid"
    return Said("health", family, device, f"uses {m.group('a')} {device} {tidy(m.group('how') or '')}".strip(), 5)


def _place(text: str) -> str:
    """The place a clause names: its first run of capitalised words ("a small flat in Leeds" → Leeds)."""
    text = tidy(text)
    found = re.match(_CAPITALISED, text) or re.search(rf"\b(?:in|near|outside|to|of)\s+({_CAPITALISED})", text)
    if not found:
        return ""
    place = (found.group(1) if found.re.groups else found.group()).strip()
    place = re.sub(rf"\s+(?:in|on)\s+{_MONTH}.*$", "", place, flags=re.IGNORECASE)
    if re.fullmatch(rf"{_MONTH}|{_WEEKDAY}|I|My", place, re.IGNORECASE):
        return ""
    return place


def _home(m: re.Match) -> Said | None:
    place = _place(m.group("x"))
    return Said("identity", "home", "", f"lives in {place}", 3) if place else None


def _origin(m: re.Match) -> Said | None:
    place = _place(m.group("x"))
    verb = {"grew up": "grew up in", "was born": "born in"}.get(m.group("v").lower(), "from")
    return Said("identity", "origin", "", f"{verb} {place}", 2, copula=verb != "grew up in") if place else None


def _organisation(text: str) -> str:
    text = tidy(re.split(r"\s+as\s+", text)[0])
    if re.fullmatch(_CAPITALISED, text) or re.fullmatch(
            r"(?:an?|the)\s+(?:[\w-]+\s+){0,3}(?:startup|start-up|company|firm|bank|hospital|school|university"
            r"|agency|restaurant|nonprofit|non-profit|charity|shop|store|factory|lab|clinic|bakery|cafe|hotel"
            r"|newspaper|studio|consultancy|airline|council|ministry)", text, re.IGNORECASE):
        return text
    return ""


def _work(m: re.Match) -> list[Said]:
    found = []
    organisation = _organisation(m.group("x"))
    if organisation:
        found.append(Said("identity", "work", "", f"works {m.group('p').lower()} {organisation}", 3))
    job = re.search(r"\s+as\s+(?:an?\s+)?(.+)$", m.group("x"))
    if job:
        found += _job_named(job.group(1))
    return found


FIELDS = ("finance", "banking", "tech", "it", "healthcare", "health care", "education", "marketing", "sales", "hr",
          "retail", "construction", "hospitality", "insurance", "law", "publishing", "research", "logistics",
          "software", "government", "real estate", "accounting", "consulting", "advertising", "journalism",
          "academia", "pharma", "manufacturing", "a hospital", "a school", "a lab", "a restaurant", "a bank")


def _work_in(m: re.Match) -> Said | None:
    field = tidy(m.group("x"))
    if field.lower() not in FIELDS and not _place(field):
        return None
    return Said("identity", "work", "", f"works in {field if field.lower() in FIELDS else _place(field)}", 3)


def _job_named(text: str) -> list[Said]:
    text = tidy(re.sub(r"^(?:an?)\s+", "", text, flags=re.IGNORECASE))
    words = text.lower().split()
    for n, word in enumerate(words[:5]):
        if word in OCCUPATIONS or (n + 1 < len(words) and f"{word} {words[n + 1]}" in OCCUPATIONS):
            return [Said("identity", "job", "", f"a {text}", 3, copula=True, line=f"Job: {text}.")]
    return []


def _job(m: re.Match) -> list[Said]:
    return _job_named(m.group("x"))


def _retired(m: re.Match) -> Said:
    return Said("identity", "job", "", "retired", 3, copula=True)


def _languages(m: re.Match) -> Said | None:
    text = tidy(m.group("x"))
    words = [w for w in re.split(r"\s*(?:,|\band\b|\bor\b|\bsome\b|\ba bit of\b|\ba little\b|\bfluent\b|\bbasic\b"
                                 r"|\bfluently\b|\bnative\b|\bconversational\b|\bokay\b|\bgood\b)\s*", text.lower()) if w]
    if not words or any(w not in LANGUAGES for w in words):
        return None
    return Said("identity", "languages", "", f"speaks {text}", 3)


def _native_speaker(m: re.Match) -> Said | None:
    language = m.group("x")
    if language.lower() not in LANGUAGES:
        return None
    return Said("identity", "languages", "", f"a native {language} speaker", 3, copula=True)


def _age(m: re.Match) -> Said | None:
    age = m.group("x")
    age = str(_NUMBER_WORDS.get(age.lower(), age))
    if not age.isdigit() or not 0 < int(age) < 120:
        return None
    return Said("identity", "age", "", age, 2, copula=True, line=f"Age: {age}.")


def _ages(m: re.Match) -> Said:
    return Said("identity", "age", "", f"{m.group('x')} and {m.group('y')}", 2, copula=False)


def _diet(m: re.Match) -> Said:
    since = m.group("since") or ""
    return Said("diet", "diet", "", f"{m.group('x').lower()} {since}".strip(), 4, copula=True)


def _diet_regime(m: re.Match) -> Said | None:
    thing = tidy(m.group("x"))
    if not thing or len(thing.split()) > 4:
        return None
    return Said("diet", "diet", "", f"{m.group('v').lower()} {thing}".strip(), 4, copula=m.group("v").lower() == "on")


def _eats_again(m: re.Match) -> Said | None:
    thing = _thing(m.group("x"), 3)
    return Said("diet", "diet", "", f"eats {thing} again", 4) if thing else None


def _avoids(m: re.Match) -> Said | None:
    verb = m.group("v").lower()
    thing = _thing(m.group("x") or "alcohol", 3)
    if not thing:
        return None
    key = _key(thing)
    if (m.group("do") or "").lower() == "have" and key not in FOODS:
        return None
    if verb in ("hate", "can't stand", "dislike") and key not in FOODS:
        return None
    key = {"drink": "alcohol", "booze": "alcohol", "spicy": "spicy food", "coriander": "cilantro"}.get(key, key)
    phrase = {"don't": "doesn't", "do not": "doesn't", "never": "never", "can't": "can't", "cannot": "can't",
              "hate": "doesn't like", "can't stand": "doesn't like", "dislike": "doesn't like"}[m.group("neg").lower()
                                                                                           if m.group("neg") else verb]
    action = m.group("do").lower() if m.group("do") else "eat"
    if phrase == "never":
        action += "s"
    text = f"{phrase} {action} {thing}" if phrase != "doesn't like" else f"doesn't like {thing}"
    return Said("diet", "avoid", key, text, 4)


def _gave_up(m: re.Match) -> Said | None:
    thing = _thing(m.group("x"), 3)
    if not thing or _key(thing) not in FOODS:
        return None
    action = "eat" if m.group("do").lower() == "eating" else "drink"
    return Said("diet", "avoid", _key(thing), f"doesn't {action} {thing}", 4)


def _avoid(m: re.Match) -> Said | None:
    thing = _thing(m.group("x"), 3)
    if not thing or _key(thing) not in FOODS:
        return None
    return Said("diet", "avoid", _key(thing), f"avoids {thing}", 4)


def _fear(m: re.Match) -> Said | None:
    thing = _thing(m.group("x"), 3)
    if not thing or re.match(r"\w+ing\s+\w+", thing) and thing.lower() != "public speaking":
        return None
    key = _key(thing)
    return Said("limits", "fear", key, f"afraid of {thing}", 4, copula=True)


_PHOBIAS = {"claustrophobic": "enclosed spaces", "agoraphobic": "open spaces", "arachnophobic": "spiders",
            "acrophobic": "heights"}


def _phobic(m: re.Match) -> Said:
    word = m.group("x").lower()
    return Said("limits", "fear", _PHOBIAS[word], word, 4, copula=True)


def _cannot(m: re.Match) -> Said | None:
    ability = m.group("x").lower()
    rest = tidy(m.group("rest") or "")
    if re.search(r"\b(?:this|that|it|these|those|the|today|tonight|now|yet|right now|at the moment)\b", rest, re.IGNORECASE):
        return None                 # "I can't run this code", "I can't cook tonight": not a limit of the person
    if len(rest.split()) > 4:
        rest = ""
    key = ability.split()[0] if ability not in ("ride a bike", "ride a bicycle", "ride a motorbike") else ability
    return Said("limits", "cannot", key, f"can't {ability} {rest}".strip(), 4)


def _motion_sick(m: re.Match) -> Said:
    kind = m.group("x").lower()
    return Said("limits", "limit", kind.replace(" ", ""), f"gets {kind}", 3)


def _routine(m: re.Match) -> Said | None:
    doing, when = m.group("x").strip(), m.group("how").strip()
    first = doing.split()[0].lower()
    if first in ("am", "was", "have", "had", "do", "did", "feel", "think", "get", "want", "need", "hate", "love",
                 "like", "wish", "miss", "take", "eat", "drink", "work", "live", "can't", "cannot", "don't", "never",
                 "am", "see", "check", "use", "try", "go", "went") and not doing.lower().startswith(("go to ", "go ")):
        return None
    if len(doing.split()) > 9:
        return None
    verb, _, rest = tidy(doing).partition(" ")
    key = _key(re.sub(r"^(?:to|for|at)\s+", "", rest)) if verb.lower() in ("go", "play", "teach", "attend") and rest \
        else verb.lower()
    return Said("commitments", "routine", key, f"{third_person(verb)} {rest} {when}".replace("  ", " ").strip(), 2)


def third_person(verb: str) -> str:
    verb = verb.lower()
    if verb in ("have",):
        return "has"
    if verb in ("go", "do"):
        return verb + "es"
    if re.search(r"(?:s|sh|ch|x|z)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _appointment(m: re.Match) -> Said:
    what = m.group("x").lower().replace("doctor's", "doctor").strip()
    return Said("commitments", "appointment", what or "appointment",
                f"{what} appointment {tidy(m.group('when'))}".strip(), 3, copula=False,
                line=f"{(what + ' appointment').capitalize()} {tidy(m.group('when'))}.")


def _event(m: re.Match) -> Said:
    what = m.group("x").lower()
    adjective = m.group("adj") or ""
    article = "an" if (adjective or what)[0] in "aeiou" else "a"
    return Said("commitments", "event", what, f"has {article} {adjective}{what} {tidy(m.group('when'))}", 3)


def _married(m: re.Match) -> Said:
    return Said("commitments", "event", "wedding", f"getting married {tidy(m.group('when'))}", 3, copula=True)


def _deadline_to(m: re.Match) -> Said | None:
    thing = _thing(m.group("x"), 4)
    if not thing:
        return None
    return Said("commitments", "deadline", _key(thing), f"{thing} due by {tidy(m.group('when'))}", 3,
                line=f"{thing[0].upper() + thing[1:]} due by {tidy(m.group('when'))}.")


_I = r"(?:i|we)\s+"
Rule = tuple[re.Pattern, Callable[[re.Match], "Said | list[Said] | None"]]


def _rule(pattern: str, read) -> Rule:
    return re.compile(pattern + r"\s*$", re.IGNORECASE), read


# Predicates, read after the subject: "am allergic to X", "have asthma", "take X every evening".
PREDICATES: list[Rule] = [
    _rule(rf"am\s+{_ADVERBS}allergic\s+to\s+(?P<x>.+)", _allergy),
    _rule(rf"have\s+(?:got\s+)?(?:an?\s+)?{_ADVERBS}(?:mild\s+|severe\s+|bad\s+|serious\s+)?allerg(?:y|ies)\s+to\s+(?P<x>.+)",
          _allergy),
    _rule(rf"have\s+(?:got\s+)?(?:an?\s+)?{_ADVERBS}(?:mild\s+|severe\s+|bad\s+|serious\s+)?(?P<x>[\w -]+?)\s+allergy(?:\s.*)?",
          _allergy_noun),
    _rule(r"am\s+(?:also\s+|very\s+|a bit\s+)?(?P<x>lactose|gluten|fructose|histamine)[ -]intolerant(?:\s.*)?", _intolerance),
    _rule(r"have\s+(?:an?\s+)?(?P<x>lactose|gluten|fructose|histamine)\s+intolerance(?:\s.*)?", _intolerance),
    _rule(r"(?:have|have got|have had|live with|was diagnosed with|have been diagnosed with|got diagnosed with|suffer from"
          r"|am diagnosed with)\s+(?P<x>.+)", _condition),
    _rule(rf"am\s+{_ADVERBS}(?P<x>{'|'.join(CONDITION_ADJECTIVES)})(?P<rest>\s+in\s+.+|\s.*)?", _condition_adjective),
    _rule(rf"(?:take|have to take|need to take|inject)\s+(?P<x>.+?)\s+(?P<how>(?:{_FREQUENCY}).*)", _take),
    _rule(r"am\s+(?:currently\s+|now\s+|still\s+)?on\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)(?:\s.*)?", _on_medicine),
    _rule(r"(?:use|need)\s+(?P<a>an?)\s+(?P<x>inhaler|cpap machine|cpap|insulin pump|hearing aid|wheelchair|cane|walker"
          r"|walking stick)(?:\s+(?P<how>.*))?", _device),
    _rule(r"(?:now\s+)?(?:live|am living|am based|reside|have lived|have been living|am settled)\s+in\s+(?P<x>.+)", _home),
    _rule(r"(?:have\s+)?(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+to\s+(?P<x>.+)", _home),
    _rule(r"(?P<v>am|am originally|come)\s+(?:originally\s+)?from\s+(?P<x>.+)", _origin),
    _rule(r"(?P<v>grew up|was born)\s+in\s+(?P<x>.+)", _origin),
    _rule(r"work\s+(?P<p>at|for)\s+(?P<x>.+)", _work),
    _rule(r"work\s+as\s+(?:an?\s+)?(?P<x>.+)", _job),
    _rule(r"work\s+in\s+(?P<x>.+)", _work_in),
    _rule(r"am\s+(?:now\s+)?an?\s+(?P<x>.+)", _job),
    _rule(r"am\s+(?:now\s+|happily\s+)?retired(?:\s.*)?", _retired),
    _rule(r"(?:speak|can speak|am fluent in|also speak)\s+(?P<x>.+)", _languages),
    _rule(r"am\s+an?\s+native\s+(?P<x>\w+)\s+speaker(?:\s.*)?", _native_speaker),
    _rule(r"am\s+(?P<x>\d{1,3})(?:\s+years?\s+old|\s*yo|\s*y/o)?", _age),
    _rule(r"(?:just\s+)?turned\s+(?P<x>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s.*)?",
          _age),
    _rule(r"are\s+(?P<x>\d{1,2})\s+and\s+(?P<y>\d{1,2})(?:\s+years\s+old)?", _ages),
    _rule(rf"(?:am|have been|have been a|am a|have gone|went|became|turned)\s+(?:now\s+|also\s+|fully\s+|mostly\s+)?(?:an?\s+)?"
          rf"(?P<x>{'|'.join(DIETS)})(?:\s+(?P<since>since\s+\S+|for\s+\S+\s+years?))?(?:\s.*)?", _diet),
    _rule(r"(?P<v>keep|eat only|only eat|eat)\s+(?P<x>kosher|halal)(?:\s+only)?(?:\s.*)?", _diet_regime),
    _rule(r"am\s+(?P<v>on)\s+(?P<x>an?\s+[\w -]+?\s+diet)(?:\s.*)?", _diet_regime),
    _rule(r"am\s+(?P<v>doing)\s+(?P<x>intermittent fasting|keto|paleo|whole30|a juice cleanse)(?:\s.*)?", _diet_regime),
    _rule(r"(?:stopped|quit|gave up)\s+(?P<v>)(?P<neg>)(?P<do>eating|drinking)\s+(?P<x>.+)", _gave_up),
    _rule(r"(?:eat|have started eating|started eating|am eating)\s+(?P<x>[\w ]+?)\s+again(?:\s.*)?", _eats_again),
    _rule(r"(?P<neg>don't|do not|never|can't|cannot)\s+(?P<v>)(?P<do>eat|drink|have)(?:\s+(?P<x>.+))?", _avoids),
    _rule(r"(?P<neg>)(?P<v>hate|can't stand|dislike)(?P<do>)\s+(?P<x>.+)", _avoids),
    _rule(r"(?:avoid|stay away from|stay off)\s+(?P<x>.+)", _avoid),
    _rule(rf"am\s+{_ADVERBS}(?:afraid|scared|terrified|frightened)\s+of\s+(?P<x>.+)", _fear),
    _rule(r"have\s+(?:an?\s+)?(?:real\s+|serious\s+|huge\s+|big\s+)?(?:fear|phobia)\s+of\s+(?P<x>.+)", _fear),
    _rule(rf"am\s+{_ADVERBS}(?P<x>claustrophobic|agoraphobic|arachnophobic|acrophobic)(?:\s.*)?", _phobic),
    _rule(rf"(?:can't|cannot|can not|am unable to|don't know how to|never learned to|never learned how to)\s+"
          rf"(?P<x>{'|'.join(ABILITIES)})\b(?P<rest>.*)", _cannot),
    _rule(r"get\s+(?P<x>seasick|carsick|airsick|motion sick|motion sickness)(?:\s.*)?", _motion_sick),
    _rule(rf"(?P<x>[a-z][\w' :.-]*?)\s+(?P<how>(?:{_FREQUENCY}|every\s+\w+(?:\s+\w+)?|on\s+\w+days)(?:\s.*)?)", _routine),
    _rule(r"have\s+(?:an?|my)\s+(?P<x>(?:dentist|doctor's|doctor|hospital|eye|gp|dental|vet|physio|therapy|hair)?)\s*"
          r"appointment\s+(?P<when>(?:on\s+|at\s+|next\s+|this\s+|tomorrow|in\s+).*)", _appointment),
    _rule(r"have\s+(?:an?|my)\s+(?P<adj>(?:big|important|final|job)\s+)?(?P<x>presentation|exam|interview|surgery"
          r"|operation|test|recital|marathon|race|defen[cs]e|viva)\s+(?P<when>(?:on|next|this|tomorrow|in)\b.*)", _event),
    _rule(r"am\s+getting\s+married\s+(?P<when>(?:on|in|next|this)\b.*)", _married),
    _rule(rf"(?:have|need|must)\s+to\s+(?:submit|finish|hand in|turn in|send|deliver|file)\s+(?P<x>.+?)\s+by\s+"
          rf"(?P<when>{DATE}.*)", _deadline_to),
]


def _name(m: re.Match) -> Said | None:
    name = m.group("x").strip()
    if not re.fullmatch(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}", name) or name.split()[0] in _NOT_A_NAME:
        return None
    if name.lower() in LANGUAGES or re.search(r"(?:ese|ish|ian|ean|ic)$", name):     # "I'm Chinese", "I'm Polish"
        return None
    return Said("identity", "name", "", name, 4, line=f"Name: {name}.")


def _pronouns(m: re.Match) -> Said:
    return Said("identity", "pronouns", "", m.group("x"), 3, line=f"Pronouns: {m.group('x')}.")


def _native_language(m: re.Match) -> Said | None:
    language = m.group("x")
    if language.lower() not in LANGUAGES:
        return None
    return Said("identity", "languages", "", f"native language {language}", 3, line=f"Native language: {language}.")


def _deadline(m: re.Match) -> Said | None:
    thing = _thing(m.group("x"), 4)
    if not thing:
        return None
    line = f"{thing[0].upper() + thing[1:]} due {tidy(m.group('when'))}."
    return Said("commitments", "deadline", _key(thing), line, 3, line=line)


def _freaks_out(m: re.Match) -> Said | None:
    thing = m.group("x")
    if thing.lower() in ("it", "this", "that", "he", "she", "they", "you", "everything", "people"):
        return None
    return Said("limits", "fear", _key(thing), f"afraid of {thing.lower()}", 4, copula=True)


def _no_food(m: re.Match) -> Said | None:
    thing = m.group("x")
    if _key(thing) not in FOODS:
        return None
    return Said("diet", "avoid", _key(thing), f"doesn't eat {thing.lower()}", 4)


def _pet(m: re.Match) -> Said | None:
    name, pet = m.group("x"), m.group("pet").lower()
    if not re.fullmatch(r"[A-Z][\w'-]*", name):
        return None
    return Said("people", "name", pet, f"{pet} is called {name}", 3, line=f"{pet.capitalize()} is called {name}.")


def _prefers_format(m: re.Match) -> Said:
    return Said("style", "format", "", f"prefers {tidy(m.group('x'))}", 2)


def _units(m: re.Match) -> Said:
    return Said("style", "units", "", f"wants {m.group('x').lower()} units", 2)


# Whole clauses about the person that are not "I ...": "My name is Wei", "Call me Sam".
CLAUSES: list[Rule] = [
    _rule(r"my\s+(?:first\s+|full\s+)?name(?:'s|\s+is)\s+(?P<x>.+?)(?:\s+by the way|\s+btw)?", _name),
    _rule(r"(?:please\s+|you can\s+|just\s+)?call\s+me\s+(?P<x>\S+(?:\s+[A-Z]\S*)?)(?:\s+(?:please|everyone does|from now on))?",
          _name),
    _rule(r"i(?:'m|\s+am)\s+(?P<x>[A-Z][a-z]+)(?:\s+by the way|\s+btw|\s+here)?", _name),
    _rule(r"my\s+pronouns\s+are\s+(?P<x>\w+/\w+(?:/\w+)?)", _pronouns),
    _rule(r"(?P<x>\w+)\s+is\s+my\s+(?:native|first|mother)\s+(?:language|tongue)(?:\s.*)?", _native_language),
    _rule(r"my\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+(?P<x>\w+)", _native_language),
    _rule(rf"(?:my|our|the)\s+(?P<x>[\w' -]+?)\s+(?:is|are)\s+due\s+(?:on\s+|by\s+)?(?P<when>{DATE}.*)", _deadline),
    _rule(rf"(?:my|our|the)\s+(?P<x>[\w' -]+?)\s+(?:has|have)\s+to\s+be\s+(?:in|submitted|done|finished|handed in|sent)\s+"
          rf"(?:by|before)\s+(?P<when>{DATE}.*)", _deadline),
    _rule(r"(?:my\s+)?deadline\s+for\s+(?P<x>[\w' -]+?)\s+is\s+(?P<when>.+)", _deadline),
    _rule(r"(?P<x>spiders|snakes|heights|dogs|needles|clowns|birds|bees|wasps|crowds|the dark|deep water|rats|mice)\s+"
          r"(?:really\s+)?(?:freak|scare|terrify|frighten)\s+me(?:\s+out)?(?:\s.*)?", _freaks_out),
    _rule(r"no\s+(?P<x>[\w -]+?)\s+for\s+me(?:\s.*)?", _no_food),
    _rule(r"(?:i|we)\s+(?:have|have got|got)\s+an?\s+(?:\w+\s+)?(?P<pet>dog|cat|puppy|kitten|rabbit|parrot|hamster)\s+"
          r"(?:named|called)\s+(?P<x>\S+)(?:\s.*)?", _pet),
    _rule(r"i\s+(?:much\s+|really\s+|always\s+)?prefer\s+(?P<x>(?:bullet points|bullets|lists|tables|numbered steps"
          r"|short paragraphs|code examples|examples|step-by-step)(?:\s.*)?)", _prefers_format),
    _rule(r"(?:please\s+)?(?:always\s+)?use\s+(?P<x>metric|imperial)(?:\s+units)?(?:\s.*)?", _units),
]

# "My mother ...", "my husband Tom ...": the person's people, by what they are to them.
RELATIONS = {
    "mother": "mother", "mom": "mother", "mum": "mother", "mommy": "mother", "mam": "mother", "father": "father",
    "dad": "father", "daddy": "father", "wife": "wife", "husband": "husband", "partner": "partner",
    "spouse": "partner", "son": "son", "daughter": "daughter", "kids": "children", "children": "children",
    "child": "child", "sister": "sister", "brother": "brother", "grandmother": "grandmother", "grandma": "grandmother",
    "granny": "grandmother", "nan": "grandmother", "grandfather": "grandfather", "grandpa": "grandfather",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "fiance": "fiance", "fiancé": "fiance",
    "fiancée": "fiance", "baby": "baby", "dog": "dog", "cat": "cat", "boss": "boss", "stepmother": "stepmother",
    "stepfather": "stepfather", "stepson": "stepson", "stepdaughter": "stepdaughter", "twins": "twins",
}
RELATION = re.compile(
    rf"my\s+(?P<adj>(?:older|younger|little|big|elder|baby|twin)\s+)?(?P<rel>{'|'.join(RELATIONS)})\b"
    rf"(?:\s*,?\s+(?P<name>(?-i:[A-Z][a-z]+))\b,?)?(?P<rest>.*)$", re.IGNORECASE)
PERSON_FACTS: list[Rule] = [
    _rule(rf"'s\s+birthday\s+is\s+(?:on\s+)?(?P<x>{DATE})(?:\s.*)?", lambda m: Said(
        "people", "birthday", "", f"birthday is {m.group('x')}", 3)),
    _rule(r"(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+goes\s+by)\s+(?P<x>[A-Z][\w'-]*)(?:\s.*)?", lambda m: Said(
        "people", "name", "", f"is called {m.group('x')}", 3)),
    _rule(r"(?:\s+|'s\s+)(?:uses|is\s+in|needs)\s+(?P<x>an?\s+(?:wheelchair|walker|cane|hearing aid|walking stick))(?:\s.*)?",
          lambda m: Said("people", "need", "", f"uses {m.group('x')}", 4)),
    _rule(r"(?:\s+is|'s)\s+(?P<x>blind|deaf|hard of hearing|partially sighted|bedridden|housebound|disabled"
          r"|in a wheelchair)(?:\s.*)?", lambda m: Said("people", "need", "", f"is {m.group('x')}", 4)),
    _rule(r"\s+can't\s+(?P<x>walk|see|hear|climb stairs|drive)(?P<rest>.*)", lambda m: Said(
        "people", "need", "", f"can't {m.group('x')}{tidy(m.group('rest')) and ' ' + tidy(m.group('rest'))}", 4)),
]


def read(predicate: str, rules: list[Rule] = PREDICATES) -> list[Said]:
    """What ``predicate`` says, by the first rule that reads it."""
    for pattern, reader in rules:
        m = pattern.match(predicate)
        if m:
            found = reader(m)
            if found:
                return found if isinstance(found, list) else [found]
    return []
