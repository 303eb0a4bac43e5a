"""README and docs/ link to each other by relative paths and #anchors: a page renamed or a heading
reworded must not leave a link pointing nowhere. Web addresses are not fetched (Engram is offline)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchors(page: Path) -> set[str]:
    """The #anchors a code host makes of a page's headings: lower case, punctuation dropped,
    spaces as hyphens (GitHub's rule, which other hosts follow)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    made = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        made.add(slug)
    return made


def links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_and_image_resolves(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):            # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(f"{target}: no such file")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(f"{target}: no heading makes #{anchor}")
    assert not broken, f"{page.name}: {broken}"


def test_the_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n[gone](missing.md) [here](#a-page) [there](#nowhere)\n", encoding="utf-8")
    assert links(page) == ["missing.md", "#a-page", "#nowhere"]
    assert anchors(page) == {"a-page"}


def test_every_docs_page_is_linked_from_readme():
    readme = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in readme]
    assert not unlinked


def test_ci_runs_the_test_command_readme_gives():
    """.ci/run promises to run exactly what README tells a newcomer to run for the tests."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "exec make test" in ci
    assert re.search(r"^make test +# ", readme, re.M)
