"""The fast path writes a synthesized receipt straight from its plan entry (fast_read._receipt), not as a
dict encoded by json.dumps: the bytes must be exactly the ones the dict gives, whatever the call id, tool
name, receipt text and timestamp."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from integrity._bulk.fast_read import _receipt, encoded
from integrity.repair.entries import Synthesized
from integrity.repair.messages import receipt_message

TEXTS = st.one_of(st.text(), st.sampled_from(['"', "\\", '\\"', "\u2028", "\x00\x1f\x7f", "é🙂", "</script>"]))


@given(call_id=TEXTS, tool=TEXTS, placeholder=st.one_of(st.none(), TEXTS),
       timestamp=st.integers(min_value=-(10**20), max_value=10**20))
def test_a_receipt_is_written_as_its_dict_would_be(call_id: str, tool: str, placeholder: str | None,
                                                   timestamp: int) -> None:
    entry = Synthesized(call_id, tool, 3, 0)
    assert _receipt(entry, placeholder, timestamp) == encoded(receipt_message(call_id, tool, timestamp, placeholder))


def test_a_timestamp_that_is_not_an_int_is_left_to_the_dict() -> None:
    entry = Synthesized("c", "t", 3, 0)
    assert _receipt(entry, None, 1.5) is None
    assert _receipt(entry, None, True) is None  # json writes a bool as true, not as the int it is


def test_a_lone_surrogate_fails_as_the_dict_does() -> None:
    entry = Synthesized("\ud800", "t", 3, 0)
    with pytest.raises(UnicodeEncodeError):
        encoded(receipt_message("\ud800", "t", 1, None))
    with pytest.raises(UnicodeEncodeError):
        _receipt(entry, None, 1)
