"""What of a Markdown text a renderer reads as Markdown: everything outside its code spans.

A code span (CommonMark: a run of n backticks up to the next run of exactly n)
renders its content literally, so hostile text inside one cannot become a link,
an image or HTML.  Tests strip the spans and look at what is left.
"""

from __future__ import annotations

import re

_RUN = re.compile(r"`+")


def outside_code_spans(text: str) -> str:
    """The text with every code span's content removed (unclosed backticks are kept as text)."""
    out: list[str] = []
    position = 0
    while True:
        opening = _RUN.search(text, position)
        if opening is None:
            out.append(text[position:])
            return "".join(out)
        fence = opening.group()
        closing = opening.end()
        while True:
            found = _RUN.search(text, closing)
            if found is None or found.group() == fence:
                break
            closing = found.end()
        if found is None:  # no closing run: the backticks are literal text
            out.append(text[position:opening.end()])
            position = opening.end()
            continue
        out.append(text[position:opening.start()] + "`…`")
        position = found.end()


def code_spans(text: str) -> list[str]:
    """The contents of every code span, in order (a space on both sides is stripped, as CommonMark does)."""
    spans: list[str] = []
    position = 0
    while True:
        opening = _RUN.search(text, position)
        if opening is None:
            return spans
        fence = opening.group()
        closing = opening.end()
        while True:
            found = _RUN.search(text, closing)
            if found is None or found.group() == fence:
                break
            closing = found.end()
        if found is None:
            position = opening.end()
            continue
        content = text[opening.end():found.start()]
        if len(content) > 1 and content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        spans.append(content)
        position = found.end()
