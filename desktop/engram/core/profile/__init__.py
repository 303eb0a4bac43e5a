"""The profile: what matters about the person, always in context, learned from what they say.

A markdown file per person in the data folder (document.py, profiles.py) is the truth; rules
(learner.py) and the chat model (distillation, the ``profile_note`` tool) add to it, as the
person chose (learning.py); every turn carries it within its own token budget (provider.py).
"""
