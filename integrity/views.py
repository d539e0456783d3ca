"""The light per-message view that the repair algorithm reads.

The algorithm never looks at a message's text, arguments or result content, so
every reader (plain dicts, the CLI's msgspec fast path, format adapters) only has
to produce these few facts per message.  Keeping them in one small class means the
algorithm is written once and runs on 1,000,000 messages without decoding them.
"""

from __future__ import annotations

from typing import Any

OTHER = 0
USER = 1
ASSISTANT = 2
RESULT = 3

ROLE_KINDS = {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT}

# Characters that JavaScript's String.prototype.trim() removes.  Python's
# str.strip() differs (it strips \x1c-\x1f and \x85, keeps \ufeff), and the
# reference decides "non-blank errorMessage" with trim(), so we mirror JS exactly.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

INTERRUPTED_STOP_REASONS = frozenset({"aborted", "length", "error"})


class _NonStringId:
    """Stands for a toolResult's toolCallId that is not a string.

    The reference puts such ids into a frame's contiguous run, where they can
    never equal a call id; one shared sentinel reproduces that exactly.
    """

    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "<non-string toolCallId>"


NON_STRING_ID: Any = _NonStringId()


class Call:
    """One tool call of an assistant frame: id and tool name (both strings)."""

    __slots__ = ("id", "name")

    def __init__(self, id: str, name: str) -> None:
        self.id = id
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Call) and other.id == self.id and other.name == self.name

    def __hash__(self) -> int:
        return hash((self.id, self.name))

    def __repr__(self) -> str:
        return f"Call({self.id!r}, {self.name!r})"


class MessageView:
    """What the algorithm needs to know about one durable message.

    kind: OTHER, USER, ASSISTANT or RESULT.
    calls: the frame's tool calls (assistant only), in content order.
    result_key: a RESULT's toolCallId when it is a string, else NON_STRING_ID.
    interrupted_frame: an assistant frame without calls that stopped abnormally.
    interrupted_receipt: a RESULT that is the runtime's interrupted placeholder.
    role: the raw role when it is a string (for reports), else None.
    """

    __slots__ = ("kind", "calls", "result_key", "interrupted_frame", "interrupted_receipt", "role")

    def __init__(
        self,
        kind: int,
        calls: tuple[Call, ...] = (),
        result_key: Any = None,
        interrupted_frame: bool = False,
        interrupted_receipt: bool = False,
        role: str | None = None,
    ) -> None:
        self.kind = kind
        self.calls = calls
        self.result_key = result_key
        self.interrupted_frame = interrupted_frame
        self.interrupted_receipt = interrupted_receipt
        self.role = role

    @property
    def result_id(self) -> str | None:
        """The result's call id when it is a string; None otherwise."""
        key = self.result_key
        return key if isinstance(key, str) else None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return (
            f"MessageView(kind={self.kind}, calls={self.calls!r}, result_key={self.result_key!r}, "
            f"interrupted_frame={self.interrupted_frame}, interrupted_receipt={self.interrupted_receipt})"
        )


_OTHER_VIEW = MessageView(OTHER)


def calls_in_content(content: Any) -> tuple[Call, ...]:
    """Tool calls in an assistant content list: parts typed toolCall with string id and name."""
    if not isinstance(content, list):
        return ()
    calls = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "toolCall":
            call_id = part.get("id")
            name = part.get("name")
            if isinstance(call_id, str) and isinstance(name, str):
                calls.append(Call(call_id, name))
    return tuple(calls)


def is_blank_js(text: str) -> bool:
    """True when JavaScript's trim() would leave the string empty."""
    return not text.strip(JS_WHITESPACE)


def frame_is_interrupted(stop_reason: Any, error_message: Any) -> bool:
    """An assistant frame (without calls) that did not complete a model turn."""
    if isinstance(stop_reason, str) and stop_reason in INTERRUPTED_STOP_REASONS:
        return True
    return isinstance(error_message, str) and not is_blank_js(error_message)


def details_mark_interrupted(details: Any) -> bool:
    """details is exactly {ok: false, error: "interrupted"} (no other keys)."""
    return (
        isinstance(details, dict)
        and len(details) == 2
        and details.get("ok") is False
        and details.get("error") == "interrupted"
        and isinstance(details.get("error"), str)
    )


def view_of(message: Any) -> MessageView:
    """Build the light view of one pi-ai AgentMessage given as a plain dict."""
    if not isinstance(message, dict):
        return _OTHER_VIEW
    role = message.get("role")
    if role == "assistant" and isinstance(role, str):
        calls = calls_in_content(message.get("content"))
        interrupted = not calls and frame_is_interrupted(
            message.get("stopReason"), message.get("errorMessage")
        )
        return MessageView(ASSISTANT, calls, None, interrupted, False, role)
    if role == "toolResult" and isinstance(role, str):
        call_id = message.get("toolCallId")
        key = call_id if isinstance(call_id, str) else NON_STRING_ID
        receipt = message.get("isError") is True and details_mark_interrupted(message.get("details"))
        return MessageView(RESULT, (), key, False, receipt, role)
    if role == "user" and isinstance(role, str):
        return MessageView(USER, role=role)
    return MessageView(OTHER, role=role if isinstance(role, str) else None)
