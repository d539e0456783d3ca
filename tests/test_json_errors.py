"""A file that is not JSON gets one line naming the line, the column and what the decoder found, as a sentence:
the decoder's own words end some messages with " at", expecting its position after them, which the line names
before them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_inprocess import run


@pytest.mark.parametrize(("text", "said"), [
    ('[{"role": "user", "content": "hi', "line 1, column 30: invalid JSON in message 0: Unterminated string"),
    ('[{"role": "user", "content": "a\x01"}]', "line 1, column 32: invalid JSON in message 0: Invalid control "
                                               "character"),
])
def test_the_decoders_words_end_where_the_position_is_named(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    result = run("check", path)
    assert result.code == 2
    assert result.stderr.strip() == f"error: {path}: {said}"
