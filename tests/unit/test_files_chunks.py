"""Front matter, descriptions and chunking of markdown files."""

from engram.core.files import chunks, document


def test_front_matter_description_and_body():
    doc = document.parse("---\ndescription: Flights and hotels\nextra: 1\n---\n# Trip\nDay one.\n")
    assert doc.description == "Flights and hotels"
    assert doc.body == "# Trip\nDay one.\n"
    assert doc.body_line == 5 and doc.problem == ""


def test_without_front_matter_the_first_heading_or_line_stands_in():
    assert document.parse("\n\nJust a line\n# Later heading\n").description == "Later heading"
    assert document.parse("\n\nJust a line\nmore\n").description == "Just a line"
    assert document.parse("---\n---\n## Plan B\n").description == "Plan B"


def test_broken_front_matter_is_reported_and_the_file_still_usable():
    doc = document.parse("---\ndescription: [unclosed\n---\n# Notes\ntext\n")
    assert "not valid YAML" in doc.problem
    assert doc.description == "Notes" and doc.body.startswith("# Notes")
    unclosed = document.parse("---\ndescription: x\n# Notes\n")
    assert "not closed" in unclosed.problem
    listed = document.parse("---\n- a\n- b\n---\nbody\n")
    assert "key: value" in listed.problem and listed.description == "body"


def test_render_round_trips_descriptions_with_odd_characters():
    for description in ("plain", "colon: inside", "---", "引号 \"quoted\" 'single'", "# hash"):
        text = document.render(description, "body")
        assert document.parse(text).description == description
        assert document.parse(text).body == "body\n"
    assert document.render(None, "body") == "body\n"


def test_chunks_follow_headings_with_their_path():
    body = "intro line\n# Trip\nabout\n## Day 1\nmuseum\n```\n# not a heading\n```\n## Day 2\nbeach\n# Budget\n500\n"
    found = chunks.split(body)
    assert [(c.headings, c.text.strip().splitlines()[0]) for c in found] == [
        ((), "intro line"), (("Trip",), "about"), (("Trip", "Day 1"), "museum"),
        (("Trip", "Day 2"), "beach"), (("Budget",), "500")]
    assert "# not a heading" in found[2].text
    assert [c.line for c in found] == [1, 3, 5, 10, 12]


def test_long_sections_are_cut_below_the_cap():
    paragraphs = "\n\n".join(f"paragraph {n} " + "word " * 60 for n in range(20))
    found = chunks.split("# Long\n" + paragraphs + "\n" + "x" * 5000, max_chars=500)
    assert len(found) > 10
    assert all(len(c.text) <= 500 and c.headings == ("Long",) for c in found)
    assert "".join(c.text for c in found).replace("\n", "").replace(" ", "") == \
        (paragraphs + "x" * 5000).replace("\n", "").replace(" ", "")
    assert found[1].line > found[0].line
