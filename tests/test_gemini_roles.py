"""The role of each Gemini content: the current models refuse `function` and `tool`, Gemini 2.x takes `function`.

Older code gives a turn of function responses the role `function` (the Gemini docs' example of 2024, Spring AI,
Firebase's quickstart, Inspect before inspect_ai#2378) or `tool` (Genkit).  Gemini 3.5 and later answer "Role
'function' is not supported. ..." (blakeblackshear/frigate#24013); Gemini 1.x and 2.x take `function` and answer any
other role with "Please use a valid role: user, model.".  The verdict said "accepted" for both, and a `tool` turn's
responses were read as no results: the repair answered its call again and its view was refused.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main
from integrity.guards._core import RequestGuard
from integrity.providers import validate_recorded
from integrity.providers.gemini import ROLE_INVALID_OLDER, ROLE_NOT_SUPPORTED

SIGNED = "skip_thought_signature_validator"


def contents(role: str | None) -> list[dict[str, Any]]:
    answer: dict[str, Any] = {"parts": [{"functionResponse": {"name": "get_weather", "response": {"temp": 20}}}]}
    if role is not None:
        answer["role"] = role
    return [{"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                                         "thoughtSignature": SIGNED}]},
            answer,
            {"role": "model", "parts": [{"text": "20 degrees."}]}]


def verdicts(role: str | None) -> dict[str, list[tuple[str, str]]]:
    [transcript] = load_all(json.dumps({"contents": contents(role)}).encode(), "request.json")
    said = validate_recorded(transcript, ["gemini", "gemini-2"])
    return {provider: [(v.position, v.error) for v in found] for provider, found in said.items()}


@pytest.mark.parametrize(("role", "current", "older"), [
    ("user", [], []),
    (None, [], []),
    ("function", [("contents[2].role", ROLE_NOT_SUPPORTED.format(role="function"))], []),
    ("tool", [("contents[2].role", ROLE_NOT_SUPPORTED.format(role="tool"))],
     [("contents[2].role", ROLE_INVALID_OLDER)]),
    ("Function", [("contents[2].role", ROLE_NOT_SUPPORTED.format(role="Function"))],
     [("contents[2].role", ROLE_INVALID_OLDER)]),
])
def test_each_model_generation_takes_its_own_roles(role: str | None, current: list[Any], older: list[Any]) -> None:
    """The responses of a `function` or `tool` turn are read as the call's results (no other rule fires), and
    only the role is refused, in each generation's words."""
    assert verdicts(role) == {"gemini": current, "gemini-2": older}


def test_the_refusal_is_worded_as_the_current_models_word_it() -> None:
    assert ROLE_NOT_SUPPORTED.format(role="function") == (
        "Role 'function' is not supported. Please use a valid role: SYSTEM, SYSTEM_1, USER, ASSISTANT, DEVELOPER, "
        "CONTEXT, USER_CONTEXT, MODEL, USER.")


@pytest.mark.parametrize("role", ["function", "tool"])
def test_repair_sends_the_turn_as_a_user_turn_and_check_agrees(
        role: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"contents": contents(role)}))
    before = path.read_bytes()
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("rejected as recorded by gemini"), out
    assert "orphaned" not in out and "receipt" not in out  # its call is answered: nothing to synthesize
    assert main(["check", "--json", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["as_recorded"] == {"gemini": "rejected"}
    [transcript] = load_all(before, path.name)
    said = check(transcript, provider="gemini").providers["gemini"]
    assert [v.error for v in said.before] == [ROLE_NOT_SUPPORTED.format(role=role)] and said.accepted_after_repair
    fixed = tmp_path / "fixed.json"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    err = capsys.readouterr().err
    assert f'contents[2].role: "{role}" → "user"' in err, err
    assert path.read_bytes() == before
    written = json.loads(fixed.read_text())["contents"]
    assert [c["role"] for c in written] == ["user", "model", "user", "model"]
    assert [c["parts"] for c in written] == [c["parts"] for c in contents(role)]  # nothing else changed
    assert main(["check", str(fixed)]) == 0


def test_gemini_2_takes_the_function_role_as_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"contents": contents("function")}))
    assert main(["check", "--provider", "gemini-2", str(path)]) == 0
    assert "accepted as recorded by gemini-2" in capsys.readouterr().out


@pytest.mark.parametrize(("target", "sent_role"), [("gemini", "user"), ("gemini-2", "function")])
def test_a_guard_sends_what_the_target_takes(target: str, sent_role: str) -> None:
    """A guard before a Gemini call (the request in Gemini's own shape, as ADK's plugin hands it): toward a current
    model the turn goes as a user turn; toward Gemini 2.x the request goes as it is (the same objects)."""
    request = contents("function")
    kept = copy.deepcopy(request)
    sent = RequestGuard("test").guard(request, "gemini", target)
    assert request == kept  # the caller's request is never changed
    if sent is None:
        assert sent_role == "function"
        return
    assert [c.get("role") for c in sent] == ["user", "model", sent_role, "model"]
    assert [c["parts"] for c in sent] == [c["parts"] for c in kept]
