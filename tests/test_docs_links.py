"""Every relative link in README.md and docs/*.md leads somewhere, #anchors included.

Why: the README links into docs/ and the docs into each other by section; moving a
section or renaming a heading silently breaks those links.  Anchors are worked out
from headings as GitHub does (lower case, punctuation dropped, spaces to hyphens,
a repeated heading numbered -1, -2, ...).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text without fenced blocks and code spans, where a `[x](y)` is not a link."""
    return CODE_SPAN.sub("", FENCED.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lower case, without punctuation, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors on its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCED.sub("", page.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    return [target for target in LINK.findall(prose(page.read_text(encoding="utf-8")))
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target)]  # http:, https:, mailto: are not checked here


def broken(page: Path, root: Path = REPO) -> list[str]:
    """Each relative link of `page` whose file or #anchor does not exist, said in one line."""
    problems = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        destination = (page.parent / unquote(path)).resolve() if path else page
        where = f"{page.relative_to(root)}: link {target!r}"
        if not destination.exists():
            problems.append(f"{where}: no such file")
        elif anchor and destination.suffix == ".md" and unquote(anchor) not in anchors(destination):
            problems.append(f"{where}: no heading with that anchor in {destination.relative_to(root)}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken(page) == []


def test_the_checker_sees_a_broken_file_and_a_broken_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## The `--provider` option (Bedrock)\n", encoding="utf-8")
    page.write_text("# Page\n\n[ok](other.md#the---provider-option-bedrock) [self](#page) [gone](missing.md)\n"
                    "[bad](other.md#nothing) `[not a link](nowhere.md)`\n\n```md\n[nor this](nowhere.md)\n```\n",
                    encoding="utf-8")
    problems = broken(page, tmp_path)
    assert len(problems) == 2
    assert "'missing.md'" in problems[0] and "#nothing" in problems[1]


def test_the_pages_link_into_docs() -> None:
    """The README is the front door: every page of docs/ is reachable from it."""
    linked = {(REPO / target.partition("#")[0]).resolve() for target in links(REPO / "README.md")}
    assert [page.name for page in PAGES[1:] if page.resolve() not in linked] == []
