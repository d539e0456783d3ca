"""Gemini contents: user and model turns of parts (calls have no ids: pairing is by order and name).

Input models for a turn and each kind of part.  Reported: a role Gemini does not
have, parts that are not a list of objects, a part with none of Gemini's data
fields (a part of `videoMetadata` alone aside: recorded 200), a text that is not a string,
functionCall args or functionResponse response that are not objects, a call or response without a string name, and a
turn with no parts at all (Gemini refuses it; the reader reads no message from it).  The Python SDK's
snake_case part fields (`function_call`, `inline_data`, ...) are judged as their camelCase spelling.
A built-in (server-side) tool's `toolCall` and `toolResponse` parts (Google Search...) are data
parts too: the model returns them and the client sends them back together (google-genai's
`types.Part`; recorded 200, pydantic-ai `test_function_tools_with_builtin_tools`); they are no
client calls, so the reader keeps them as they are.
"""

from __future__ import annotations

from typing import Any

from ..kinds import FindingCode
from ..loading import describe_value
from .base import Issue, Loc, Open, by_field, json_path, not_a_message, role_issue, validate

ROLES = ("user", "model", "function", "tool")
"""The roles a writer gives a content: `function` and `tool` (Genkit) a turn of function responses, which the reader
reads as a user turn (whether the model takes that role is its provider's rule: providers.gemini.ROLES)."""
_DATA = ("text", "functionCall", "functionResponse", "inlineData", "fileData", "executableCode",
         "codeExecutionResult", "toolCall", "toolResponse")
_ALONE = ("videoMetadata",)
"""Fields no data field has to come with: a part holding only `videoMetadata` (the clip of the video part before it)
was answered 200 (recorded: pydantic-ai `test_google_model_video_as_binary_content_input_with_vendor_metadata`)."""
_PART_FIELDS = (*_DATA, *_ALONE)
"""The fields one of which a part must hold (made once: every part is tested)."""
_SNAKE = {"video_metadata": "videoMetadata", "function_call": "functionCall", "function_response": "functionResponse",
          "inline_data": "inlineData",
          "file_data": "fileData", "executable_code": "executableCode",
          "code_execution_result": "codeExecutionResult", "thought_signature": "thoughtSignature",
          "tool_call": "toolCall", "tool_response": "toolResponse"}
"""The Python SDK's snake_case spelling of each part field (model_dump() without by_alias; ADK stores its
events so): the reader takes `function_call` / `function_response` as the camelCase ones, the rest as
opaque parts as it does their camelCase spelling, so the schema judges either spelling the same."""
_SNAKE_OF = {camel: snake for snake, camel in _SNAKE.items()}


class Turn(Open):
    parts: list[Any]


class Part(Open):
    text: str = ""
    thought: bool = False
    thoughtSignature: str = ""
    inlineData: dict[str, Any] | None = None
    fileData: dict[str, Any] | None = None
    executableCode: dict[str, Any] | None = None
    codeExecutionResult: dict[str, Any] | None = None
    toolCall: dict[str, Any] | None = None
    toolResponse: dict[str, Any] | None = None
    thought_signature: str = ""
    inline_data: dict[str, Any] | None = None
    file_data: dict[str, Any] | None = None
    executable_code: dict[str, Any] | None = None
    code_execution_result: dict[str, Any] | None = None
    tool_call: dict[str, Any] | None = None
    tool_response: dict[str, Any] | None = None


class FunctionCall(Open):
    name: str
    args: dict[str, Any] = {}
    id: str = ""


class FunctionResponse(Open):
    name: str
    response: dict[str, Any]
    id: str = ""


_CONTENT = by_field()
_CALL = by_field(names=("name",), arguments=("args",), call_ids=("id",))
_RESPONSE = by_field(names=("name",), arguments=("response",), result_ids=("id",))


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index, "turn"))
            continue
        if "role" in entry and entry["role"] not in ROLES:
            issues.append(role_issue(entry["role"], ROLES, index))
            continue
        issues.extend(validate(Turn, entry, index, _CONTENT))
        parts = entry.get("parts")  # (`[]` is no finding: Gemini's rule parts_empty refuses it, the view leaves it out)
        for position, part in enumerate(parts if isinstance(parts, list) else []):
            issues.extend(_part(part, index, ("parts", position)))
    return issues


def _part(part: Any, index: int, path: Loc) -> list[Issue]:
    where = json_path(path)
    if not isinstance(part, dict):
        return [Issue(FindingCode.INVALID_CONTENT, index, where,
                      f"'{where}' must be a part object, got {describe_value(part)}")]
    if not any(key in part or _SNAKE_OF.get(key, key) in part for key in _PART_FIELDS):
        return [Issue(FindingCode.INVALID_CONTENT, index, where, f"'{where}' has none of Gemini's part data fields")]
    issues = validate(Part, part, index, _CONTENT, path)
    for key in ("functionCall", "function_call"):
        if key in part:
            issues += validate(FunctionCall, part[key], index, _CALL, (*path, key))
    for key in ("functionResponse", "function_response"):
        if key in part:
            found = validate(FunctionResponse, part[key], index, _RESPONSE, (*path, key))
            value = part[key].get("response", {}) if isinstance(part[key], dict) else {}
            if not isinstance(value, dict):  # a response that is not an object is read as it is: Gemini refuses it
                loose = json_path((*path, key, "response"))  # (function_response_not_object) and the view wraps it
                found = [issue for issue in found if issue.path != loose]
            issues += found
    return issues

