"""Gemini 3's thought signatures: a call of the current turn without one is refused, and the view signs it.

Gemini 3 models refuse a request whose current turn (after the last user text) holds a model step whose first
function call carries no `thoughtSignature` ("Function call is missing a thought_signature in functionCall parts.
... Additional data, function call `default_api:NAME` , position N. ...", N the content's 1-based index: quoted in
many reports, e.g. nanbingxyz/5ire#405, manthanabc/paws#103).  Gemini 2.x, Gemma and Gemini 3 Pro Image take it:
their rules are the variant `gemini-2`, chosen by a model's name.  Only a Gemini request's own calls reach the model
so: a history of another format is converted with the signature Google documents for calls its model did not make,
`skip_thought_signature_validator`, as pi-ai, Gemini CLI and the AI SDK convert it, and the engine's Gemini writer
does the same.  The view planned for Gemini sends a Gemini request's unsigned call with it; the durable record keeps
it unsigned, and the report says so (call_signed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import load_all
from integrity.cli import main
from integrity.pipeline import check
from integrity.providers import validate_native
from integrity.providers.models import provider_for_model, sent_to

G = "gemini"
SKIP = "skip_thought_signature_validator"


def _missing(name: str, position: int) -> str:
    return ("Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
            "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
            f"function call `default_api:{name}` , position {position}. Please refer to "
            "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")


def _call(name: str, signature: str | None = None, key: str = "thoughtSignature") -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": {}}}
    if signature is not None:
        part[key] = signature
    return part


def _response(name: str) -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {"output": "ok"}}}


def _contents(first: dict[str, Any], second: dict[str, Any]) -> list[dict[str, Any]]:
    """An earlier turn (its call unsigned: not checked), then the current turn of two steps."""
    return [{"role": "user", "parts": [{"text": "list the files"}]},
            {"role": "model", "parts": [_call("ls")]},
            {"role": "user", "parts": [_response("ls")]},
            {"role": "model", "parts": [{"text": "Done."}]},
            {"role": "user", "parts": [{"text": "now read the first and the last"}]},
            {"role": "model", "parts": [{"text": "Reading both."}, first, _call("read")]},
            {"role": "user", "parts": [_response("read"), _response("read")]},
            {"role": "model", "parts": [second]},
            {"role": "user", "parts": [_response("grep")]}]


def test_the_rule_reads_the_first_call_of_each_step_of_the_current_turn_alone() -> None:
    """Both steps unsigned: two refusals, each naming its call and its content's 1-based position; the earlier turn's
    unsigned call and the second parallel call are not judged; a signature in either spelling satisfies it."""
    found = validate_native(_contents(_call("read"), _call("grep")), G, history=True)
    assert [(v.rule, v.position, v.error) for v in found] == [
        ("thought_signature_missing", "contents[5].parts[1]", _missing("read", 6)),
        ("thought_signature_missing", "contents[7].parts[0]", _missing("grep", 8))]
    assert validate_native(_contents(_call("read", "c2ln"), _call("grep", "c2ln", "thought_signature")), G,
                           history=True) == []
    assert validate_native(_contents(_call("read"), _call("grep")), "gemini-2", history=True) == []


def test_a_first_step_is_position_2_as_every_report_quotes() -> None:
    contents = [{"role": "user", "parts": [{"text": "weather?"}]}, {"role": "model", "parts": [_call("get_weather")]},
                {"role": "user", "parts": [_response("get_weather")]}]
    assert [v.error for v in validate_native(contents, G, history=True)] == [_missing("get_weather", 2)]


@pytest.mark.parametrize(("model", "provider"), [
    ("gemini-3-flash-preview", G), ("gemini-3.6-flash", G), ("gemini/gemini-3-pro-preview", G),
    ("gemini-flash-latest", G), ("gemini-2.5-flash", "gemini-2"), ("vertex_ai/gemini-2.0-flash-001", "gemini-2"),
    ("gemma-3-27b-it", "gemini-2"), ("gemini-3-pro-image-preview", "gemini-2"),
    ("google-gla:gemini-2.5-pro", "gemini-2"),
    ("gemini-1.5-flash", "gemini-2"), ("claude-sonnet-4-5", "anthropic")])
def test_a_models_name_chooses_the_rules(model: str, provider: str) -> None:
    assert provider_for_model(model) == provider
    if provider.startswith(G):
        assert sent_to(G, model) == provider  # (a Gemini request naming the model: the recorded exchanges' endpoints)


def test_check_and_repair_of_a_gemini_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The format implies Gemini: exit 1, refused as recorded and accepted after repair; `repair` writes the calls
    signed (the earlier turn's left as it was), the input untouched; the view is healthy; gemini-2 says healthy."""
    contents = _contents(_call("read"), _call("grep"))
    path = tmp_path / "request.json"
    data = json.dumps({"contents": contents}).encode()
    path.write_bytes(data)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "repaired: 2 call(s) sent with a thought signature; rejected as recorded by gemini" in out, out
    assert main(["check", str(path), "--provider", G]) == 1
    out = capsys.readouterr().out
    assert f"gemini as recorded: contents[5].parts[1]: {_missing('read', 6)}" in out and \
        "gemini after repair: accepted" in out, out
    assert main(["repair", str(path), "-o", str(tmp_path / "out.json")]) == 0
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["contents"]
    assert written[5]["parts"][1] == {**_call("read"), "thoughtSignature": SKIP} and \
        written[7]["parts"][0] == {**_call("grep"), "thoughtSignature": SKIP}
    assert written[:5] + written[6:7] + written[8:] == contents[:5] + contents[6:7] + contents[8:]
    assert written[5]["parts"][2] == _call("read")  # (the second parallel call shares the first's)
    assert path.read_bytes() == data
    assert main(["check", str(tmp_path / "out.json")]) == 0
    assert main(["check", str(path), "--provider", "gemini-2"]) == 0
    capsys.readouterr()


def _pi(signature: str | None) -> list[dict[str, Any]]:
    call: dict[str, Any] = {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"cmd": "ls"}}
    if signature is not None:
        call["thoughtSignature"] = signature
    return [{"role": "user", "content": [{"type": "text", "text": "list the files"}], "timestamp": 1},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "ls"}, call,
                                              {**call, "id": "call_2", "thoughtSignature": "c2Vjb25k"}],
             "stopReason": "toolUse", "timestamp": 2}]


@pytest.mark.parametrize("signature", [None, "c2lnbmF0dXJl"])
def test_another_formats_call_is_written_for_gemini_signed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          signature: str | None) -> None:
    """A pi session's call is sent with its own signature, else with Google's signature for calls its model did not
    make (as pi-ai's convertMessages sends it toward Gemini 3): the fast path and the general reader say accepted,
    and the request written for Gemini shows it; the second call keeps its own."""
    from integrity.providers.canonical import judged_request

    path = tmp_path / "session.json"
    path.write_text(json.dumps(_pi(signature)), encoding="utf-8")
    assert main(["check", str(path), "--provider", G]) == 1  # (the calls are unanswered: a universal invariant)
    out = capsys.readouterr().out
    assert "gemini as recorded: contents[1]" in out and "thought_signature" not in out, out
    transcript = load_all(path.read_bytes(), str(path))[0]
    result = check(transcript, provider=G)
    assert {v.rule for v in result.providers[G].before} == {"function_response_count_mismatch"}
    native, _, _ = judged_request(transcript.messages, G, transcript, as_recorded=True)
    assert [part.get("thoughtSignature") for part in native[1]["parts"]] == [None, signature or SKIP, "c2Vjb25k"]


def test_a_claude_code_session_toward_gemini_is_judged_as_converted(capsys: pytest.CaptureFixture[str]) -> None:
    """Its calls carry no signature (Claude made them): written for Gemini, each step's first call is signed."""
    path = Path(__file__).parent.parent / "sample_transcripts" / "healthy.claude-code.jsonl"
    assert main(["check", str(path), "--provider", G]) == 0
    capsys.readouterr()


def test_the_report_names_the_change_and_rebuilds_the_view() -> None:
    from integrity import analyze, view_from_report

    data = json.dumps({"contents": _contents(_call("read"), _call("grep"))}).encode()
    transcript = load_all(data, "request.json")[0]
    messages = transcript.messages
    report = check(transcript, provider=G, depth="view").report  # (rated by the provider's verdict, as the CLI's)
    assert report.summary.calls_signed == 2
    signed = [a.durable_index for a in report.actions if a.codes and a.codes[0].value == "call_signed"]
    assert [(a.kind.value, a.severity.value) for a in report.actions if a.durable_index in signed] == \
        [("kept", "rejected")] * 2
    view = view_from_report(report, messages)
    assert [[p.get("thoughtSignature") for p in m["content"] if p.get("type") == "toolCall"]
            for m in view if m["role"] == "assistant" and any(p.get("type") == "toolCall" for p in m["content"])] == \
        [[None], [SKIP, None], [SKIP]]
    assert all("thoughtSignature" not in p for m in messages for p in m.get("content") or [] if isinstance(p, dict))
    assert analyze(transcript, provider="gemini-2").report.summary.calls_signed == 0


def _adk_contents(signed: bool) -> list[Any]:
    from google.genai import types

    call = types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "x"}),
                      thought_signature=b"sig" if signed else None)
    return [types.Content(role="user", parts=[types.Part(text="look it up")]),
            types.Content(role="model", parts=[call]),
            types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                name="lookup", response={"output": "found"}))])]


def test_the_adk_plugin_signs_toward_gemini_3_alone() -> None:
    """Toward a Gemini 3 model the guarded request's call carries the signature (as google-genai sends it, the
    sentinel's text on the wire); toward Gemini 2.5, or signed, the request goes as it is; the session's contents
    are never changed."""
    from integrity.guards.adk import ToolCallIntegrityPlugin

    reports: list[Any] = []
    contents = _adk_contents(signed=False)
    sent = ToolCallIntegrityPlugin(on_report=reports.append).repaired_contents(contents, "gemini-3-flash-preview")
    assert sent is not None and sent[0] is contents[0] and sent[2] is contents[2]
    assert json.loads(sent[1].model_dump_json(exclude_none=True, by_alias=True))["parts"][0]["thoughtSignature"] == SKIP
    assert contents[1].parts[0].thought_signature is None
    assert [(report.target, report.report.summary.calls_signed) for report in reports] == [(G, 1)]
    assert ToolCallIntegrityPlugin().repaired_contents(_adk_contents(signed=False), "gemini-2.5-flash") is None
    assert ToolCallIntegrityPlugin().repaired_contents(_adk_contents(signed=True), "gemini-3-flash-preview") is None
    plugin = ToolCallIntegrityPlugin()  # the second call of one guard (its memo) says the same
    assert plugin.repaired_contents(_adk_contents(signed=False), "gemini-3-pro-preview") is not None
    assert plugin.repaired_contents(_adk_contents(signed=False), "gemini-3-pro-preview") is not None


def test_a_runtime_of_another_format_is_judged_as_it_converts() -> None:
    """LangChain's messages show no signature (ChatGoogleGenerativeAI keeps and sends its own, and signs the calls it
    converts): toward Gemini 3 a healthy request passes untouched, and a repaired one signs nothing it cannot send."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    from integrity.guards._core import RequestGuard

    messages = [HumanMessage("look it up"), AIMessage("", tool_calls=[{"id": "c1", "name": "lookup", "args": {}}]),
                ToolMessage("found", tool_call_id="c1")]
    reports: list[Any] = []
    guard = RequestGuard("langchain", provider=G, on_report=reports.append)
    assert guard.guard_objects(messages, "langchain-objects", messages_to_dict, "langchain", G) is None
    assert reports == []
    sent = guard.guard_objects(messages[:2], "langchain-objects", messages_to_dict, "langchain", G)
    assert sent is not None and len(sent) == 3  # the dangling call answered
    assert [(report.target, report.report.summary.calls_signed) for report in reports] == [(G, 0)]


def test_triage_records_a_variant_asked_by_name(tmp_path: Path) -> None:
    """`triage --provider gemini-2` records its columns beside the target's (the table's schema lacked them), and
    each says what `check --provider` says."""
    import pandas as pd
    from cli_inprocess import run

    samples = Path(__file__).parent.parent / "sample_transcripts"
    for name in ("healthy.gemini.json", "unsigned_call.gemini.json"):
        (tmp_path / name).write_bytes((samples / name).read_bytes())
    out = tmp_path / "table.parquet"
    assert run("triage", tmp_path, "--out", out, "--provider", "gemini-2", "--workers", "1").code == 0
    table = pd.read_parquet(out).set_index("path")
    for name, gemini in (("healthy.gemini.json", "accepted"), ("unsigned_call.gemini.json", "rejected")):
        row = table.loc[str(tmp_path / name)]
        assert (row["gemini as recorded"], row["gemini after repair"]) == (gemini, "accepted")
        assert (row["gemini-2 as recorded"], row["gemini-2 after repair"]) == ("accepted", "accepted")
        assert run("check", tmp_path / name, "--provider", "gemini").code == (0 if gemini == "accepted" else 1)


@pytest.mark.parametrize(("model", "code"), [("gemini-2.5-flash", 0), ("gemini-3-pro-preview", 1), (None, 1)])
def test_a_request_naming_its_model_is_judged_by_that_models_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   model: str | None, code: int) -> None:
    """The body's `model` chooses the rules it implies (providers.models.sent_to); without one, the current models'."""
    body: dict[str, Any] = {"contents": _contents(_call("read"), _call("grep"))}
    if model is not None:
        body["model"] = model
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    assert main(["check", str(path)]) == code
    out = capsys.readouterr().out
    assert ("accepted as recorded by gemini-2" in out) == (code == 0), out
