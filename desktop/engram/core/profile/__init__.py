"""The person's profile (core memory): the few durable lines about them that go into every prompt
(health, name, family, diet, limits, how to answer, near deadlines), learned from what they say
and edited by hand."""
