"""The English words the profile rules know: languages, conditions, medicines, abilities, foods,
diets, occupations and fields of work. Open-ended verbs ("take", "can't", "hate", "I'm a") only
make a fact with one of these, so a word missing here loses a line but never adds a wrong one."""

from __future__ import annotations

import re

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
CONDITION_SHAPE = re.compile(r"(?:itis|osis|emia|aemia|pathy|disease|disorder|syndrome|deficiency|condition)$")
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
             "drops", "injection", "injections", "beta blockers", "painkillers", "antihistamines", "antihistamine",
             "meds", "medications", "hormones", "hrt", "estrogen", "testosterone", "steroids", "adderall", "ritalin")
DRUG_SHAPE = re.compile(r"(?:mycin|cillin|prazole|statin|sartan|pril|olol|azepam|oxetine|ipine|afil|formin|arin"
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
FIELDS = ("finance", "banking", "tech", "it", "healthcare", "health care", "education", "marketing", "sales", "hr",
          "retail", "construction", "hospitality", "insurance", "law", "publishing", "research", "logistics",
          "software", "government", "real estate", "accounting", "consulting", "advertising", "journalism",
          "academia", "pharma", "manufacturing", "a hospital", "a school", "a lab", "a restaurant", "a bank")
