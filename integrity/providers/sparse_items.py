"""A Responses provider's verdict on a transcript the fast path read, judged from its light view.

The Responses rules pair calls and outputs across the whole request (providers.windowed: WHOLE_OR_NOTHING), so
no stretch of it can be judged apart, as providers.sparse judges the other providers.  But a request written
from messages without native hints (formats.skeleton) has no item with an `id`, and then every rule reads the
call and output items alone: their call ids, their order and (DeepSeek's runs) which are next to each other.
The other items only part them.  So the request is read as its calls and outputs, from the light view (each
frame's call ids, each result's id) and from where each message's items fall (fast_bones.ItemShapes, learnt
while reading), with one stand-in item wherever other items part two of them.  The provider's own rule set
judges those columns (one implementation of each rule), and each violation is put back where its items sit.

tests/test_sparse.py holds the verdicts equal to the full skeleton's on every pi-ai sample and real file,
generated files, files read a block at a time and random transcripts, as recorded and as repaired.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

import msgspec

from . import deepseek_responses, openai_responses
from .violation import Violation, sort_violations

CALL, OUTPUT = "function_call", "function_call_output"


class Unplaced(Exception):
    """A frame's calls are not as many as its shape places (never so when the shapes and the light view were read
    from the same structs): the caller judges the request on every message's bones instead."""

_APART = "message"
"""The stand-in for the items that part two calls or outputs (a message item without an id: no rule reads it)."""

class Columns:
    """A request's call and output items, in order, with a stand-in wherever other items part two of them (the
    columns its rules judge), as four columns: each one's index in the request and the index of the message it
    is written from (arrays: a million messages' items hold no int object each; a stand-in's are the next
    item's, less one for its index), its kind (CALL, OUTPUT, or the stand-in's) and its call id.  `last`: the
    index in the request of the last item."""

    __slots__ = ("natives", "messages", "kinds", "ids", "last")

    def __init__(self) -> None:
        self.natives = array("q")
        self.messages = array("q")
        self.kinds: list[str | None] = []
        self.ids: list[str] = []
        self.last = -1

    def add(self, native: int, message: int, kind: str, call_id: str) -> None:
        """One item."""
        if native != self.last + 1:
            self.natives.append(native - 1)
            self.messages.append(message)
            self.kinds.append(_APART)
            self.ids.append("")
        self.natives.append(native)
        self.messages.append(message)
        self.kinds.append(kind)
        self.ids.append(call_id)
        self.last = native


def _openai(kinds: list[str | None], call_ids: list[str]) -> list[Violation]:
    """The OpenAI Responses rules on columns whose items have no id: their item-id column is empty (judge_columns
    reads it only to pick the items that have one; a million empty ids were a list of their own)."""
    return openai_responses.judge_columns(kinds, call_ids, [], "openai-responses")


RULES: dict[str, Callable[[list[str | None], list[str]], list[Violation]]] = {
    "openai-responses": _openai,
    "deepseek-responses": deepseek_responses.judge_columns,
}
"""Each Responses provider's rule set over a request's columns (item types and call ids; no item has an id)."""

SERVED = frozenset(RULES)


def judge_items(provider: str, items: Columns) -> list[Violation]:
    """The provider's verdict on a request whose call and output items are `items` (its other items without
    ids), positions put back where the items sit in the request."""
    return sort_violations([_placed(violation, items) for violation in RULES[provider](items.kinds, items.ids)])


def _placed(violation: Violation, items: Columns) -> Violation:
    """A violation found on the columns, where its items sit in the request (its position names the first)."""
    assert violation.native_indices and not any(items.kinds[index] is _APART for index in violation.native_indices), \
        "a rule fired on a stand-in"
    natives = [items.natives[index] for index in violation.native_indices]
    prefix = f"input[{violation.native_indices[0]}]"
    assert violation.position.startswith(prefix)
    return msgspec.structs.replace(
        violation, position=f"input[{natives[0]}]{violation.position[len(prefix):]}", native_indices=natives,
        canonical_indices=sorted({items.messages[index] for index in violation.native_indices}))

