"""What of a Markdown text a renderer reads as Markdown: everything outside its code spans.

A code span (CommonMark: a run of n backticks up to the next run of exactly n)
renders its content literally, so hostile text inside one cannot become a link,
an image or HTML.  Tests strip the spans and look at what is left.
"""

from __future__ import annotations

import re

_RUN = re.compile(r"`+")


def _spans(text: str) -> list[tuple[int, int, int, int]]:
    """Every code span as (start of its opening run, start of its content, end of its content, end of its
    closing run); a run of backticks with no closing run of the same length is literal text."""
    found_spans: list[tuple[int, int, int, int]] = []
    position = 0
    while True:
        opening = _RUN.search(text, position)
        if opening is None:
            return found_spans
        closing = _RUN.search(text, opening.end())
        while closing is not None and closing.group() != opening.group():
            closing = _RUN.search(text, closing.end())
        if closing is None:  # no closing run: the backticks are literal text
            position = opening.end()
            continue
        found_spans.append((opening.start(), opening.end(), closing.start(), closing.end()))
        position = closing.end()


def outside_code_spans(text: str) -> str:
    """The text with every code span's content removed (unclosed backticks are kept as text)."""
    out: list[str] = []
    position = 0
    for start, _, _, end in _spans(text):
        out.append(text[position:start] + "`…`")
        position = end
    out.append(text[position:])
    return "".join(out)


def code_spans(text: str) -> list[str]:
    """The contents of every code span, in order (a space on both sides is stripped, as CommonMark does)."""
    spans: list[str] = []
    for _, begin, finish, _ in _spans(text):
        content = text[begin:finish]
        if len(content) > 1 and content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        spans.append(content)
    return spans
