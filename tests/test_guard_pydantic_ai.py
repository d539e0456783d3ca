"""The pydantic-ai guard against the real library (FunctionModel records what the model receives; no network).

Each broken history is run as `message_history` twice: once as pydantic-ai sends it on its own (it cleans
the history itself before every request: `_clean_message_history`, what `repair_messages` runs), once
with `capabilities=[ToolCallIntegrityProcessor()]`; the messages the model received are dumped to
pydantic-ai's JSON form and judged by the engine's rule sets for the target provider (`request_verdict`).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import random
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    SYNTHESIZED_TOOL_RETURN_METADATA_KEY,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from integrity import check
from integrity.formats import read_document
from integrity.formats.container import Document
from integrity.guards import GuardReport, ToolCallIntegrityError, provider_for_model, request_verdict
from integrity.guards._fast import FAST_TARGETS, HealthyMemo, scan
from integrity.guards.pydantic_ai import OBJECTS, ToolCallIntegrityProcessor, provider_for_pydantic_model

FORMAT = "pydantic-ai"
TARGET = "anthropic"


def ask(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(content=text)])


def calls(*ids: str) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(tool_name="lookup", args={"q": "x"}, tool_call_id=i) for i in ids])


def returns(*pairs: tuple[str, str]) -> ModelRequest:
    return ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content=text, tool_call_id=i) for i, text in pairs])


def say(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(content=text)])


# The reported failures, as the history a new run starts from ("next" is the new prompt).
HISTORIES: dict[str, list[ModelMessage]] = {
    # the same return recorded twice (a retry after a crash)
    "duplicate result": [ask("what is x?"), calls("c1"), returns(("c1", "x is 1"), ("c1", "x is 1 again")),
                         say("x is 1")],
    # the duplicate in a later request (a resumed run re-recorded the return)
    "duplicate in a later request": [ask("what is x?"), calls("c1"), returns(("c1", "x is 1")), say("x is 1"),
                                     returns(("c1", "x is 1 again"))],
    # a result recorded after the user went on (a slow tool, a UI that appended late)
    "result after a later turn": [ask("what is x?"), calls("c1"), ask("hurry"), say("working"),
                                  returns(("c1", "x is 1")), say("x is 1")],
    # a return whose call is unknown (its response was evicted by a context trimmer)
    "stray return": [ask("what is x?"), calls("c1"), returns(("c1", "x is 1"), ("c_gone", "done")), say("x is 1")],
    # an interrupted run: two parallel calls, one answered, then the user went on
    "interrupted run": [ask("what is x?"), calls("c1", "c2"), returns(("c1", "x is 1")), ask("and y?"), say("y?")],
}

# What pydantic-ai sends on its own (measured here; the table in docs/guards.md): legal for Anthropic or not.
# It drops the stray and answers the interrupted call itself; it sends both returns of a duplicate, and a
# result that follows a later turn where it stands.
ALONE_LEGAL = {"duplicate result": False, "duplicate in a later request": False, "result after a later turn": False,
               "stray return": True, "interrupted run": True}


class Recorder:
    """A FunctionModel that records the messages of every request it receives and answers `answers` in turn."""

    def __init__(self, *answers: ModelResponse, model_name: str | None = None) -> None:
        self.requests: list[list[ModelMessage]] = []
        self.answers = list(answers) or [say("done")]
        self.model = FunctionModel(self.answer, model_name=model_name)

    def answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append(list(messages))
        return self.answers[min(len(self.requests), len(self.answers)) - 1]


def run(history: list[ModelMessage], capabilities: list[Any], sync: bool = True, prompt: str | None = "next",
        recorder: Recorder | None = None, tools: list[Any] | None = None) -> tuple[list[ModelMessage], Any]:
    """The messages the model received in the first request of a run from `history`, and the run's result."""
    recorder = recorder or Recorder()
    agent = Agent(recorder.model, capabilities=capabilities, tools=tools or [])
    if sync:
        result = agent.run_sync(prompt, message_history=history)
    else:
        result = asyncio.run(agent.run(prompt, message_history=history))
    return recorder.requests[0], result


def verdict(messages: list[ModelMessage], provider: str | None = TARGET) -> Any:
    return request_verdict(ModelMessagesTypeAdapter.dump_python(messages, mode="json"), FORMAT, provider)


def first_results(history: list[ModelMessage]) -> set[tuple[str, str]]:
    """The first real return of each call made (what must reach the model; a later duplicate may be dropped)."""
    made = {part.tool_call_id for m in history for part in m.parts if isinstance(part, ToolCallPart)}
    first: dict[str, str] = {}
    for message in history:
        for part in message.parts:
            if isinstance(part, ToolReturnPart) and part.tool_call_id in made:
                first.setdefault(part.tool_call_id, str(part.content))
    return set(first.items())


@pytest.mark.parametrize("sync", [True, False], ids=["run_sync", "run"])
@pytest.mark.parametrize("name", list(HISTORIES))
def test_the_guarded_request_is_legal_and_keeps_every_real_result(name: str, sync: bool) -> None:
    history = HISTORIES[name]
    before, objects = copy.deepcopy(history), list(history)
    alone, _ = run(history, [], sync)
    guarded, _ = run(history, [ToolCallIntegrityProcessor(provider=TARGET)], sync)
    assert verdict(alone).legal is ALONE_LEGAL[name], (name, verdict(alone).violations)
    judged = verdict(guarded)
    assert judged.legal, (name, judged.violations)
    assert first_results(history) <= set(judged.results)
    assert history == before and all(a is b for a, b in zip(history, objects, strict=True))  # never changed


def test_pydantic_ai_repairs_on_its_own_what_it_can_and_the_guard_leaves_that_alone() -> None:
    """pydantic-ai cleans the history before every request (it calls `_clean_message_history`, the work of
    `repair_messages`): the interrupted call gets its own synthesized return and the stray is dropped,
    before the guard's hook runs; the guard then finds those requests healthy and reports nothing."""
    reports: list[GuardReport] = []
    sent, _ = run(HISTORIES["interrupted run"], [ToolCallIntegrityProcessor(provider=TARGET,
                                                                            on_report=reports.append)])
    synthesized = [part for m in sent for part in m.parts
                   if isinstance(part, ToolReturnPart) and part.tool_call_id == "c2"]
    assert len(synthesized) == 1 and synthesized[0].outcome == "interrupted"
    assert synthesized[0].metadata == {SYNTHESIZED_TOOL_RETURN_METADATA_KEY: True}
    stray, _ = run(HISTORIES["stray return"], [ToolCallIntegrityProcessor(provider=TARGET, on_report=reports.append)])
    assert not any(getattr(part, "tool_call_id", None) == "c_gone" for m in stray for part in m.parts)
    assert reports == []
    # what pydantic-ai leaves: both returns of a duplicate reach the model
    alone, _ = run(HISTORIES["duplicate result"], [])
    assert [part.tool_call_id for m in alone for part in m.parts if isinstance(part, ToolReturnPart)] == ["c1", "c1"]
    assert repair_messages(HISTORIES["duplicate result"]) == HISTORIES["duplicate result"]  # its repair keeps both


def test_on_a_duplicate_the_guard_sends_the_first_result_once() -> None:
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityProcessor(provider=TARGET, on_report=reports.append)
    sent, _ = run(HISTORIES["duplicate result"], [guard])
    assert verdict(sent).results == [("c1", "x is 1")]
    assert len(reports) == 1 and reports[0].applied and reports[0].counts == {"duplicates_dropped": 1}


def test_the_run_history_keeps_what_was_stored_and_a_history_processor_keeps_the_repair() -> None:
    """As a capability the guard repairs only the request (pydantic-ai does not persist
    `prepare_model_request`'s messages); as a history processor (`ProcessHistory`) pydantic-ai keeps the
    repaired messages in the run's history, as it does for every processor."""
    history = HISTORIES["duplicate result"]
    _, kept = run(history, [ToolCallIntegrityProcessor(provider=TARGET)])
    returned = [p for m in kept.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert len(returned) == 2
    sent, processed = run(history, [ProcessHistory(ToolCallIntegrityProcessor(provider=TARGET))])
    assert verdict(sent).legal
    returned = [p for m in processed.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert len(returned) == 1


def test_an_interrupted_run_ending_in_calls_closed_with_the_interrupted_receipt() -> None:
    """A run interrupted mid-call leaves a history ending in calls: pydantic-ai refuses a new prompt on it
    (with or without the guard: before any model request) and names `repair_messages`; the guard's
    `repaired_messages` closes the calls with the interrupted receipt instead, marked as pydantic-ai marks
    its own, and the run goes on."""
    history = [ask("what is x?"), calls("c1", "c2")]
    with pytest.raises(UserError, match="repair_messages"):
        run(history, [ToolCallIntegrityProcessor(provider=TARGET)])
    closed = ToolCallIntegrityProcessor().repaired_messages(history, "anthropic:claude-sonnet-4-5")
    assert closed[:2] == history and closed[0] is history[0] and closed[1] is history[1]
    receipts = [part for part in closed[2].parts if isinstance(part, ToolReturnPart)]
    assert [part.tool_call_id for part in receipts] == ["c1", "c2"]
    assert all(part.outcome == "interrupted" and part.metadata == {SYNTHESIZED_TOOL_RETURN_METADATA_KEY: True}
               for part in receipts)
    assert verdict(closed).receipts == 2 and verdict(closed).healthy  # read back as the receipts they are
    sent, _ = run(closed, [])
    assert verdict(sent).legal


def test_healthy_history_passes_through_as_the_very_same_objects() -> None:
    history = [ModelRequest(parts=[SystemPromptPart(content="be brief"), UserPromptPart(content="what is x?")]),
               calls("c1"), returns(("c1", "x is 1")), say("x is 1")]
    guard = ToolCallIntegrityProcessor()
    assert guard.repaired_messages(history, "openai:gpt-4o") is history
    reports: list[GuardReport] = []
    sent, _ = run(history, [ToolCallIntegrityProcessor(on_report=reports.append)])
    assert all(a is b for a, b in zip(sent, history, strict=False)) and reports == []


def test_repaired_messages_reuse_the_unchanged_objects_and_keep_the_requests_fields() -> None:
    history = [ask("what is x?"), calls("c1"),
               ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content="x is 1", tool_call_id="c1"),
                                   ToolReturnPart(tool_name="lookup", content="again", tool_call_id="c1")],
                            instructions="be brief", metadata={"mine": 1}), say("x is 1"), ask("and y?")]
    out = ToolCallIntegrityProcessor().repaired_messages(history, "claude-sonnet-4-5")
    assert [m is h for m, h in zip(out, history, strict=True)] == [True, True, False, True, True]
    assert out[2].instructions == "be brief" and out[2].metadata == {"mine": 1}
    assert out[2].parts == [history[2].parts[0]] and out[2].parts[0] is history[2].parts[0]


def test_ids_renamed_for_mistral_keep_the_parts_and_the_results() -> None:
    history = [*HISTORIES["interrupted run"], ask("go on")]
    out = ToolCallIntegrityProcessor(provider="mistral").repaired_messages(history)
    judged = verdict(out, "mistral")
    assert judged.legal, judged.violations
    assert judged.results[0][1] == "x is 1"  # the real result, under its new id
    renamed = out[1].parts
    assert [len(part.tool_call_id) for part in renamed] == [9, 9] and renamed[0].args == {"q": "x"}
    receipt = out[2].parts[1]  # the receipt for c2, read back as the receipt it is, under c2's new id
    assert receipt.outcome == "interrupted" and receipt.tool_call_id == renamed[1].tool_call_id != "c2"
    assert judged.receipts == 1 and len(judged.results) == 1


def test_modes_report_and_raise_and_the_log_line(caplog: pytest.LogCaptureFixture) -> None:
    history = HISTORIES["duplicate result"]
    reports: list[GuardReport] = []
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        sent, _ = run(history, [ToolCallIntegrityProcessor(provider=TARGET, mode="report", on_report=reports.append)])
    assert not verdict(sent).legal  # sent as it was
    assert len(reports) == 1 and not reports[0].applied and reports[0].runtime == "pydantic-ai"
    lines = [r.getMessage() for r in caplog.records if r.name == "integrity.guards"]
    assert len(lines) == 1 and "duplicates_dropped=1" in lines[0] and "sent as it is" in lines[0]
    with pytest.raises(ToolCallIntegrityError, match="pydantic-ai"):
        run(history, [ToolCallIntegrityProcessor(provider=TARGET, mode="raise")])
    with pytest.raises(ToolCallIntegrityError):
        run(history, [ToolCallIntegrityProcessor(provider=TARGET, mode="raise")], sync=False)
    with pytest.raises(ValueError, match="unknown guard mode"):
        ToolCallIntegrityProcessor(mode="fix")  # type: ignore[arg-type]


def test_target_provider_from_the_run_context_model() -> None:
    """The guard reads the serving model from the request (RunContext / ModelRequestContext): its
    "system:model_name" and, for OpenAI, which API its class calls."""
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.models.instrumented import InstrumentedModel
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.providers.google import GoogleProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    openai = OpenAIProvider(api_key="unused")
    assert provider_for_pydantic_model(OpenAIChatModel("gpt-4o", provider=openai)) == "openai-chat"
    assert provider_for_pydantic_model(OpenAIResponsesModel("gpt-4o", provider=openai)) == "openai-responses"
    assert provider_for_pydantic_model(InstrumentedModel(OpenAIResponsesModel("gpt-4o", provider=openai))) == \
        "openai-responses"
    assert provider_for_pydantic_model(GoogleModel("gemini-2.5-flash", provider=GoogleProvider(api_key="unused"))) \
        == "gemini-2"  # (Gemini 2.x's rules: the variant that takes calls without thought signatures)
    assert provider_for_pydantic_model(FunctionModel(lambda m, i: say("x"))) is None
    assert provider_for_pydantic_model("anthropic:claude-sonnet-4-5") == "anthropic"
    reports: list[GuardReport] = []
    for sync in (True, False):  # a model whose name says Anthropic: the guard judges by Anthropic's rules
        run(HISTORIES["duplicate result"], [ToolCallIntegrityProcessor(on_report=reports.append)], sync,
            recorder=Recorder(model_name="claude-sonnet-4-5"))
    run(HISTORIES["duplicate result"], [ToolCallIntegrityProcessor(on_report=reports.append)])
    assert [report.target for report in reports] == ["anthropic", "anthropic", None]


@pytest.mark.parametrize(("name", "provider", "api"), [
    ("anthropic:claude-sonnet-4-5", "anthropic", "chat"), ("openai:gpt-4o", "openai-chat", "chat"),
    ("openai:gpt-4o", "openai-responses", "responses"), ("openai-chat:gpt-4o", "openai-chat", "responses"),
    ("openai-responses:gpt-4o", "openai-responses", "chat"), ("google-gla:gemini-2.5-flash", "gemini-2", "chat"),
    ("google-vertex:gemini-2.5-pro", "gemini-2", "chat"), ("google:gemini-2.5-flash", "gemini-2", "chat"),
    ("google-gla:gemini-3-flash-preview", "gemini", "chat"),
    ("bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock", "chat"),
    ("mistral:mistral-large-latest", "mistral", "chat"), ("gateway/anthropic:claude-sonnet-4-5", "anthropic", "chat"),
    ("openrouter:anthropic/claude-3.5-sonnet", "anthropic", "chat"), ("groq:llama-3.3-70b", None, "chat"),
    ("test:test", None, "chat"), ("deepseek-r1:14b", "deepseek", "chat"),  # Ollama's model:tag stays a name
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic", "chat"),
])
def test_provider_for_model_reads_pydantic_ais_provider_prefix(name: str, provider: str | None, api: Any) -> None:
    assert provider_for_model(name, api) == provider


def test_a_run_of_several_model_calls_reads_only_the_new_messages() -> None:
    """pydantic-ai hands each model call of a run a new list of the history's own message objects: the
    guard's memo matches them by identity and reads only the new turn; sync and async."""
    def lookup(q: str) -> str:
        return f"found {q}"

    for sync in (True, False):
        guard = ToolCallIntegrityProcessor(provider=TARGET)
        recorder = Recorder(*(ModelResponse(parts=[ToolCallPart(tool_name="lookup", args={"q": "x"},
                                                                tool_call_id=f"c{i}")]) for i in range(3)), say("done"))
        run([], [guard], sync, prompt="hi", recorder=recorder, tools=[lookup])
        assert len(recorder.requests) == 4 and guard.memo.resumed == 3
        assert all(verdict(request).legal for request in recorder.requests)


# ---- the quick pass over ModelMessage objects -------------------------------------------------------------

def generated(seed: int, prefix: str = "c") -> list[ModelMessage]:
    """A healthy pydantic-ai history: system prompt and question, then exchanges of calls (parallel or not),
    their returns in order, an answer (text, sometimes with thinking), and the next question."""
    rng = random.Random(seed)
    first: list[Any] = [UserPromptPart(content="q0")]
    if rng.random() < 0.5:
        first.insert(0, SystemPromptPart(content="be brief"))
    out: list[ModelMessage] = [ModelRequest(parts=first)]
    number = 0
    for turn in range(rng.randint(1, 5)):
        for _ in range(rng.randint(0, 2)):
            ids = [f"{prefix}{number + k}" for k in range(rng.randint(1, 3))]
            number += len(ids)
            parts: list[Any] = [ToolCallPart(tool_name="f", args="{}", tool_call_id=i) for i in ids]
            if rng.random() < 0.3:
                parts.insert(0, TextPart(content="let me look"))
            out += [ModelResponse(parts=parts), returns(*((i, f"r{i}") for i in ids))]
        answer: list[Any] = [TextPart(content=f"answer {turn}")]
        if rng.random() < 0.3:
            answer.insert(0, ThinkingPart(content="hmm"))
        out += [ModelResponse(parts=answer), ask(f"q{turn + 1}")]
    return out


def broken(history: list[ModelMessage], seed: int) -> list[ModelMessage]:
    """`history` with one thing a provider may refuse: a return dropped, duplicated, moved or made stray, a
    call reusing an id, an empty text, a system prompt late, two questions in a row."""
    rng = random.Random(seed)
    out = list(history)
    spots = [i for i, m in enumerate(out) if isinstance(m, ModelRequest) and isinstance(m.parts[0], ToolReturnPart)]
    kind = rng.randrange(7)
    if kind == 0 and spots:
        del out[rng.choice(spots)]
    elif kind == 1 and spots:
        at = rng.choice(spots)
        out.insert(at + 1, out[at])
    elif kind == 2 and spots:
        at = rng.choice(spots)
        out.append(out.pop(at))
    elif kind == 3:
        out.insert(rng.randrange(1, len(out) + 1), returns(("stray", "x")))
    elif kind == 4:
        out.insert(rng.randrange(1, len(out) + 1), calls("c0"))
    elif kind == 5:
        out.insert(rng.randrange(1, len(out) + 1), say(" "))
    else:
        out.insert(rng.randrange(1, len(out) + 1), ModelRequest(parts=[SystemPromptPart(content="late")]))
    return out


def full_check(history: list[ModelMessage], target: str | None) -> bool:
    entries = ModelMessagesTypeAdapter.dump_python(history, mode="json")
    transcript = read_document(Document(entries, [0] * len(entries), "array"), "<test>", FORMAT)
    return check(transcript, provider=target, policy="strict", depth="diagnosis").healthy


@pytest.mark.parametrize("seed", range(40))
def test_the_quick_pass_finds_healthy_only_what_the_full_check_finds_healthy(seed: int) -> None:
    history = generated(seed)
    for target in FAST_TARGETS:
        assert scan(history, OBJECTS, target)[0], (seed, target)  # the healthy shape takes the quick pass
        assert full_check(history, target), (seed, target)
        damaged = broken(history, seed)
        if scan(damaged, OBJECTS, target)[0]:
            assert full_check(damaged, target), (seed, target)


@pytest.mark.parametrize("seed", range(12))
def test_the_cut_leaves_a_healthy_prefix_and_the_memo_answers_as_the_whole_pass(seed: int) -> None:
    history = generated(seed) + generated(seed + 100, "d")[1:]
    damaged = broken(history, seed)
    healthy, cut, before = scan(damaged, OBJECTS, TARGET)
    if not healthy and cut:
        assert isinstance(damaged[cut], ModelRequest) and isinstance(damaged[cut].parts[0], UserPromptPart)
        assert scan(damaged[:cut], OBJECTS, TARGET)[0]
        made = [p.tool_call_id for m in damaged[:cut] for p in m.parts if isinstance(p, ToolCallPart)]
        assert before == made
    memo = HealthyMemo()
    for end in range(1, len(history) + 1):
        assert memo.scan(history[:end], OBJECTS, TARGET) == scan(history[:end], OBJECTS, TARGET)
    assert memo.scan(damaged, OBJECTS, TARGET) == scan(damaged, OBJECTS, TARGET)


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "gemini", "mistral", None])
def test_multimodal_prompts_thinking_and_structured_returns_survive_a_repair(provider: str | None) -> None:
    """What the engine does not read (an image in the prompt, a thinking signature, a return that is a
    pydantic model, instructions, the provider's names) reaches the model as it was stored."""
    from pydantic import BaseModel
    from pydantic_ai.messages import ImageUrl

    class Found(BaseModel):
        value: int

    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart(content="be brief"),
                            UserPromptPart(content=["look", ImageUrl(url="https://example.com/x.png")])],
                     instructions="be nice"),
        ModelResponse(parts=[ThinkingPart(content="hmm", signature="sig"), TextPart(content="checking"),
                             ToolCallPart(tool_name="lookup", args={"q": 1}, tool_call_id="c1"),
                             ToolCallPart(tool_name="fetch", args='{"z": 2}', tool_call_id="c2")],
                      model_name="claude-sonnet-4-5", provider_name="anthropic"),
        ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content=Found(value=1), tool_call_id="c1"),
                            ToolReturnPart(tool_name="lookup", content={"again": True}, tool_call_id="c1")]),
        say("found 1"), ask("next")]
    out = ToolCallIntegrityProcessor(provider=provider).repaired_messages(history)
    judged = verdict(out, provider)
    assert judged.legal and judged.healthy, judged.violations
    assert out[0] is history[0]
    response = out[1]
    assert response.parts[0] is history[1].parts[0] and response.model_name == "claude-sonnet-4-5"
    returned = [p for m in out for p in m.parts if isinstance(p, ToolReturnPart)]
    assert returned[0].content == Found(value=1) and returned[1].outcome == "interrupted"
    assert [p.tool_call_id for p in returned] == [p.tool_call_id for p in response.parts[2:]]


@pytest.mark.parametrize("seed", range(16))
def test_repairing_from_the_cut_sends_what_repairing_the_whole_request_sends(seed: int) -> None:
    history = generated(seed) + generated(seed + 50, "d")[1:]
    damaged = broken(history, seed)
    for target in ("anthropic", "openai-chat", None):
        windowed, whole = ToolCallIntegrityProcessor(provider=target), ToolCallIntegrityProcessor(provider=target)
        whole.guard.window = False
        sent, expected = windowed.repaired_messages(damaged), whole.repaired_messages(damaged)
        assert ModelMessagesTypeAdapter.dump_python(sent) == ModelMessagesTypeAdapter.dump_python(expected)
        assert verdict(sent, target).legal, (seed, target, verdict(sent, target).violations)
        # by text: where a call reuses an id, the repair renames one of them
        assert {text for _, text in first_results(damaged)} <= {text for _, text in verdict(sent, target).results}


def test_a_history_that_broke_once_is_repaired_again_from_the_new_turns_only() -> None:
    """As a capability the guard leaves the run's history as stored, so every model call of the run sends
    the broken history again: its memo carries the last repair on over the new turns (HealthyMemo.repeat),
    and each request is still legal and still reported."""
    def lookup(q: str) -> str:
        return f"found {q}"

    for sync in (True, False):
        reports: list[GuardReport] = []
        guard = ToolCallIntegrityProcessor(provider=TARGET, on_report=reports.append)
        recorder = Recorder(*(ModelResponse(parts=[ToolCallPart(tool_name="lookup", args={"q": "x"},
                                                                tool_call_id=f"n{i}")]) for i in range(2)), say("done"))
        run(HISTORIES["duplicate result"], [guard], sync, recorder=recorder, tools=[lookup])
        assert len(recorder.requests) == 3 and guard.memo.repeated == 2 and len(reports) == 3
        for request in recorder.requests:
            judged = verdict(request)
            assert judged.legal and ("c1", "x is 1") in judged.results, judged.violations


def test_a_renamed_result_keeps_its_own_content_beside_the_results_kept_as_they_were() -> None:
    """A later turn reuses the id "c0": toward DeepSeek (which refuses a tool_call_id met twice in a request) the
    strict policy renames it, so its result is a changed copy in a request whose other result is kept as it was;
    the copy is written from its own part, not its neighbour's.  (With no target the reuse is legal: the
    universal invariants let an id come back in a later turn, and the request goes as it is.)"""
    history = [ask("q"), calls("c0"), returns(("c0", "first")), say("a"), ask("q2"), calls("c1", "c0"),
               returns(("c1", "one"), ("c0", "second")), say("b"), ask("q3")]
    assert ToolCallIntegrityProcessor().repaired_messages(history) == history
    out = ToolCallIntegrityProcessor(provider="deepseek").repaired_messages(history)
    judged = verdict(out, "deepseek")
    assert judged.legal, judged.violations
    renamed = out[5].parts[1].tool_call_id
    assert renamed != "c0" and judged.results == [("c0", "first"), ("c1", "one"), (renamed, "second")]
    assert out[6].parts[0] is history[6].parts[0]


def test_pydantic_ai_2_takes_history_processors_only_as_capabilities() -> None:
    """Why the guard is a capability: the installed pydantic-ai refuses `history_processors=` (removed in
    v2); `ProcessHistory(guard)` is the history-processor form, and it sees the run's model through the
    RunContext (a FunctionModel named like an Anthropic model: Anthropic's rules)."""
    with pytest.raises(TypeError):
        Agent(FunctionModel(lambda m, i: say("x")), history_processors=[ToolCallIntegrityProcessor()])  # type: ignore[call-arg]
    reports: list[GuardReport] = []
    sent, _ = run(HISTORIES["result after a later turn"],
                  [ProcessHistory(ToolCallIntegrityProcessor(on_report=reports.append))],
                  recorder=Recorder(model_name="claude-sonnet-4-5"))
    assert verdict(sent).legal and [report.target for report in reports] == ["anthropic"]


def synthesized_then_real() -> list[ModelMessage]:
    """A history a store kept after pydantic-ai's own repair closed an interrupted call (`repair_messages`
    synthesizes its "interrupted" return), to which the call's real result was recorded later (a deferred
    tool that finished after the run was cut)."""
    stored = repair_messages([ask("what is x?"), calls("c1")])
    assert any(isinstance(part, ToolReturnPart) and part.metadata == {SYNTHESIZED_TOOL_RETURN_METADATA_KEY: True}
               for part in stored[-1].parts)  # pydantic-ai's own placeholder
    return [*stored, returns(("c1", "x is 1")), say("x is 1")]


@pytest.mark.parametrize("quiet", [True, False], ids=["direct", "pipeline"])
def test_a_return_pydantic_ai_synthesized_gives_way_to_the_real_result_that_came_later(quiet: bool) -> None:
    """pydantic-ai's synthesized return is the interrupted receipt: read as one (reader, guard, direct repair),
    so the real result recorded later is the one sent, once, where the call is answered; pydantic-ai alone
    sends both (a duplicate Anthropic refuses)."""
    from integrity.formats.pydantic_ai_messages import SYNTHESIZED

    assert SYNTHESIZED == SYNTHESIZED_TOOL_RETURN_METADATA_KEY  # the reader spells pydantic-ai's key
    history = synthesized_then_real()
    before = copy.deepcopy(history)
    assert verdict(history).receipts == 1 and not verdict(history).healthy  # the reader: a receipt, then a result
    alone, _ = run(history, [])
    assert [part.tool_call_id for m in alone for part in m.parts if isinstance(part, ToolReturnPart)] == ["c1", "c1"]
    assert not verdict(alone).legal
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityProcessor(provider=TARGET, on_report=None if quiet else reports.append)
    sent, _ = run(history, [guard])
    judged = verdict(sent)
    assert judged.legal and judged.results == [("c1", "x is 1")] and judged.receipts == 0, judged.violations
    returned = [part for m in sent for part in m.parts if isinstance(part, ToolReturnPart)]
    assert len(returned) == 1 and returned[0].content == "x is 1" and returned[0].outcome == "success"
    assert quiet or reports[0].counts  # the pipeline's report says what it did
    assert history == before
    # the guard's own call on the stored history (not merged by pydantic-ai): the same answer
    direct = ToolCallIntegrityProcessor().repaired_messages(history, "anthropic:claude-sonnet-4-5")
    assert [(part.tool_call_id, part.content) for m in direct for part in m.parts
            if isinstance(part, ToolReturnPart)] == [("c1", "x is 1")]
    assert verdict(direct).legal


def test_a_synthesized_return_with_no_real_result_is_kept_as_the_calls_answer() -> None:
    """Without a later result, pydantic-ai's synthesized return stays the call's answer: the history is
    healthy and passes through as the very same list (quick pass, full check and reader agree)."""
    stored = [*repair_messages([ask("what is x?"), calls("c1")]), say("sorry"), ask("go on")]
    assert verdict(stored).healthy and verdict(stored).receipts == 1
    assert ToolCallIntegrityProcessor().repaired_messages(stored, "anthropic:claude-sonnet-4-5") is stored
    assert full_check(stored, "anthropic")


# ---- what each model class sends: Bedrock's one user turn, FallbackModel's candidates ------------------------


def bedrock_model() -> tuple[Any, list[dict[str, Any]]]:
    """pydantic-ai's BedrockConverseModel over a boto3 client whose `converse` records the request it is given
    (no network): the Converse messages pydantic-ai builds are what the engine judges."""
    pytest.importorskip("boto3")
    import boto3
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    sent: list[dict[str, Any]] = []

    def converse(**request: Any) -> dict[str, Any]:
        sent.append(request)
        return {"output": {"message": {"role": "assistant", "content": [{"text": "done"}]}}, "stopReason": "end_turn",
                "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 1},
                "ResponseMetadata": {"RequestId": "r", "HTTPStatusCode": 200, "HTTPHeaders": {}}}

    client = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="unused",
                          aws_secret_access_key="unused")
    client.converse = converse
    return BedrockConverseModel("anthropic.claude-3-5-sonnet-20240620-v1:0",
                                provider=BedrockProvider(bedrock_client=client)), sent


def structured_output_history() -> list[ModelMessage]:
    """A run with a structured output: it ends with the output tool's return ("Final result processed."), so the
    next run's prompt joins that return in one request."""
    from pydantic import BaseModel

    class Out(BaseModel):
        x: int

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"x": 3}, tool_call_id="tooluse_o1")])

    return Agent(FunctionModel(answer), output_type=Out).run_sync("give x").all_messages()


def retried_output_history() -> list[ModelMessage]:
    """A run whose output validator asked for another answer once: a RetryFeedbackPart between the answers."""
    from pydantic_ai import ModelRetry

    agent = Agent(FunctionModel(lambda m, i: say("bad" if sum(x.kind == "response" for x in m) == 0 else "good")))

    @agent.output_validator
    def check_output(output: str) -> str:
        if output == "bad":
            raise ModelRetry("say something good")
        return output

    history = agent.run_sync("go").all_messages()
    assert [part.part_kind for part in history[2].parts] == ["retry-feedback"]
    return history


def healthy_shapes() -> dict[str, list[ModelMessage]]:
    """Healthy histories in the shapes pydantic-ai records (it merges adjacent requests into one)."""
    return {
        "two prompts in a request": [ask("q"), say("a"), ModelRequest(parts=[UserPromptPart(content="first"),
                                                                             UserPromptPart(content="second")])],
        "a return and a prompt": [ask("q"), calls("c1"), ModelRequest(parts=[
            ToolReturnPart("lookup", "r1", tool_call_id="c1"), UserPromptPart(content="next")])],
        "retry feedback": [*retried_output_history(), ask("next")],
        "after a structured output": [*structured_output_history(), ask("next")],
        "a prompt never answered": [ask("q"), calls("c1"), returns(("c1", "r1")), say("a"), ask("never answered"),
                                    ask("next")],
    }


# Mistral is left out: every id it is sent must be 9 letters and digits, so "c1" is renamed (a repair).
@pytest.mark.parametrize("target", [None, "anthropic", "openai-chat", "openai-responses", "gemini", "bedrock",
                                    "deepseek"])
@pytest.mark.parametrize("name", list(healthy_shapes()))
def test_a_healthy_request_in_pydantic_ais_own_shapes_passes_untouched(name: str, target: str | None) -> None:
    """Each request part is read on its own, but BedrockConverseModel sends a turn's returns and prompts as one
    user message (it merges consecutive user messages): the guard judges them so, and reports nothing."""
    history = healthy_shapes()[name]
    before, objects = copy.deepcopy(history), list(history)
    reports: list[GuardReport] = []
    assert ToolCallIntegrityProcessor(provider=target, on_report=reports.append).repaired_messages(history) \
        is history
    assert reports == [] and history == before and all(a is b for a, b in zip(history, objects, strict=True))


@pytest.mark.parametrize("name", ["after a structured output", "a prompt never answered", "retry feedback"])
def test_toward_bedrock_the_guard_sends_what_pydantic_ai_sends_for_a_healthy_history(name: str) -> None:
    """On the wire (BedrockConverseModel's Converse messages): the same messages with the guard as without, legal
    for Bedrock, no report; before, a structured output's return got an invented assistant turn, an earlier
    prompt was dropped, and the retry feedback was moved before the answer it criticises."""
    history = healthy_shapes()[name][:-1]
    model, alone = bedrock_model()
    Agent(model).run_sync("next question", message_history=history)
    model, guarded = bedrock_model()
    reports: list[GuardReport] = []
    Agent(model, capabilities=[ToolCallIntegrityProcessor(on_report=reports.append)]).run_sync(
        "next question", message_history=history)
    assert reports == []
    assert guarded[0]["messages"] == alone[0]["messages"]
    judged = request_verdict(guarded[0]["messages"], "bedrock", "bedrock")
    assert judged.legal, judged.violations


def test_a_bedrock_repair_keeps_every_part_of_a_request_it_changes() -> None:
    """A duplicate return is dropped; the two prompts of the last request are one user turn on Bedrock's wire
    and both reach it (before, the repair merged them and wrote only the first back)."""
    history = [ask("q"), calls("tooluse_1"), returns(("tooluse_1", "r1"), ("tooluse_1", "dup")), say("a"),
               ModelRequest(parts=[UserPromptPart(content="first"), UserPromptPart(content="second")])]
    reports: list[GuardReport] = []
    out = ToolCallIntegrityProcessor(provider="bedrock", on_report=reports.append).repaired_messages(history)
    assert [report.counts for report in reports] == [{"duplicates_dropped": 1}]
    assert out[4] is history[4] and [part.content for part in out[2].parts] == ["r1"]
    model, sent = bedrock_model()
    Agent(model, capabilities=[ToolCallIntegrityProcessor()]).run_sync(message_history=history[:-1] + [
        ModelRequest(parts=[UserPromptPart(content="first")])])
    texts = [block.get("text") for message in sent[0]["messages"] for block in message["content"]]
    assert texts.count("first") == 1 and "dup" not in str(sent[0]["messages"])
    assert request_verdict(sent[0]["messages"], "bedrock", "bedrock").legal


def test_a_response_bedrock_merges_is_written_as_the_parts_of_the_responses_it_joins() -> None:
    """Bedrock takes no two assistant turns in a row: the repair joins a text answer and the call after it, and
    the joined response holds the very parts of both (before, the text was rebuilt from the engine's copy, and
    a call not in the last response took that response's arguments)."""
    history = [ask("q"), ModelResponse(parts=[TextPart(content="let me look")]),
               ModelResponse(parts=[ThinkingPart(content="hm"), ToolCallPart("fetch", {"q": "B"}, tool_call_id="b1")]),
               returns(("b1", "rb")), say("done"), ask("next")]
    reports: list[GuardReport] = []
    out = ToolCallIntegrityProcessor(provider="bedrock", on_report=reports.append).repaired_messages(history)
    assert [report.counts for report in reports] == [{"merged": 1}]
    joined = [*history[1].parts, *history[2].parts]
    assert len(out) == len(history) - 1 and len(out[1].parts) == 3
    assert all(a is b for a, b in zip(out[1].parts, joined, strict=True))


def test_a_merged_user_message_is_written_as_every_members_part() -> None:
    """The writer's side of a merge of user turns (shown the engine part by part, as toward any other target):
    every prompt the merged message carries is written back as its own part, none dropped."""
    from integrity.guards import pydantic_ai as guard_module

    history = [ask("q"), say("a"), ModelRequest(parts=[UserPromptPart(content="first"),
                                                       UserPromptPart(content="second")])]
    processor = ToolCallIntegrityProcessor()
    conversion = guard_module._Conversion(None)  # the parts as separate user turns: Bedrock's rules merge them
    token = guard_module._CONVERSION.set(conversion)
    try:
        out = processor.guard.guard_objects(history, OBJECTS, conversion.dump, FORMAT, "bedrock")
    finally:
        guard_module._CONVERSION.reset(token)
    assert out is not None and out[:2] == history[:2]
    assert [part for message in out[2:] for part in message.parts] == list(history[2].parts)
    assert all(a is b for a, b in zip(out[2].parts, history[2].parts, strict=True))


@pytest.mark.parametrize(("target", "first", "second"), [
    ("anthropic", "run.1", "run.2"), ("mistral", "run.1", "run.2"),
    ("openai-chat", "call_" + "1" * 45, "call_" + "2" * 45)])
def test_renamed_results_with_equal_contents_keep_their_own_names_outcomes_and_metadata(
        target: str, first: str, second: str) -> None:
    """Ids renamed (a dot for Anthropic, every id toward Mistral, longer than 40 toward OpenAI Chat) and results
    reordered into call order: each written return is the part it was read from (the reader's place of it),
    never the first with the same content (before: "deploy" failed became "backup" failed)."""
    history = [ask("q"), ModelResponse(parts=[ToolCallPart("deploy", {"q": 1}, tool_call_id=first),
                                              ToolCallPart("backup", {"q": 2}, tool_call_id=second)]),
               ModelRequest(parts=[ToolReturnPart("backup", "", tool_call_id=second, outcome="success",
                                                  metadata={"job": "backup"}),
                                   ToolReturnPart("deploy", "", tool_call_id=first, outcome="failed",
                                                  metadata={"job": "deploy"})]),
               say("deploy failed, backup ok"), ask("next")]
    out = ToolCallIntegrityProcessor(provider=target).repaired_messages(history)
    names = {part.tool_call_id: part.tool_name for part in out[1].parts}
    written = sorted((names[part.tool_call_id], part.tool_name, part.outcome, part.metadata) for part in out[2].parts)
    assert written == [("backup", "backup", "success", {"job": "backup"}),
                       ("deploy", "deploy", "failed", {"job": "deploy"})]
    assert verdict(out, target).legal


def test_a_fallback_models_target_is_the_provider_of_its_candidates() -> None:
    """FallbackModel's "system" joins its candidates' ("fallback:openai,openai"): the guard reads its `models`.
    One provider for all: that one; several: each, in the order of the candidates."""
    from pydantic_ai.models.fallback import FallbackModel
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from integrity.guards.pydantic_ai import providers_for_pydantic_model

    openai = OpenAIProvider(api_key="unused")
    chat, responses = OpenAIChatModel("gpt-4o", provider=openai), OpenAIResponsesModel("gpt-4.1", provider=openai)
    assert provider_for_pydantic_model(FallbackModel(chat, OpenAIChatModel("gpt-4o-mini", provider=openai))) == \
        "openai-chat"
    mixed = FallbackModel(bedrock_model()[0], responses)
    assert providers_for_pydantic_model(mixed) == ("bedrock", "openai-responses")
    assert provider_for_pydantic_model(mixed) is None
    assert providers_for_pydantic_model(FallbackModel(FunctionModel(lambda m, i: say("x")), chat)) == \
        ("openai-chat",)


def test_a_fallback_model_is_sent_what_each_candidates_provider_takes() -> None:
    """FallbackModel(OpenAI Chat that fails, Bedrock): a call id of 46 characters (vLLM's) is renamed for Chat
    Completions (40 at most) in the request each candidate is sent; before, the guard had no target and sent it
    as it was."""
    import json

    import httpx
    from openai import AsyncOpenAI
    from pydantic_ai.models.fallback import FallbackModel
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    bodies: list[dict[str, Any]] = []

    def failing(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(500, json={"error": {"message": "boom", "type": "server_error"}})

    client = AsyncOpenAI(api_key="unused", base_url="http://mock.local/v1", max_retries=0,
                         http_client=httpx.AsyncClient(transport=httpx.MockTransport(failing)))
    bedrock, sent = bedrock_model()
    model = FallbackModel(OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client)), bedrock)
    long_id = "chatcmpl-tool-" + "0123456789abcdef" * 2
    history = [ask("q"), calls(long_id), returns((long_id, "r1")), say("a")]
    reports: list[GuardReport] = []
    Agent(model, capabilities=[ToolCallIntegrityProcessor(on_report=reports.append)]).run_sync(
        "next", message_history=history)
    assert [report.target for report in reports] == ["openai-chat"]
    judged = request_verdict(bodies[0]["messages"], "openai-chat", "openai-chat")
    assert judged.legal and ("r1" in str(judged.results)), judged.violations
    assert request_verdict(sent[0]["messages"], "bedrock", "bedrock").legal


def test_a_history_a_raising_tool_left_is_closed_by_repaired_messages() -> None:
    """`capture_run_messages()` after a tool raised holds the calls and an empty request (`state="interrupted"`):
    the empty request is no turn, so the calls are answered with the interrupted receipt, as pydantic-ai's own
    `repair_messages` answers them (before, the reader refused the request and the history went as it was)."""
    from pydantic_ai import capture_run_messages

    def boom(q: str) -> str:
        raise RuntimeError("disk on fire")

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("boom", {"q": "a"}, tool_call_id="b1"),
                                    ToolCallPart("boom", {"q": "b"}, tool_call_id="b2")])

    with capture_run_messages() as captured, pytest.raises(RuntimeError):
        Agent(FunctionModel(answer), tools=[boom]).run_sync("go")
    history = list(captured)
    assert history[-1].kind == "request" and not history[-1].parts
    out = ToolCallIntegrityProcessor().repaired_messages(history, "anthropic:claude-sonnet-4-5")
    receipts = [part for message in out for part in message.parts if isinstance(part, ToolReturnPart)]
    assert [(part.tool_call_id, part.outcome, part.metadata) for part in receipts] == [
        (call_id, "interrupted", {SYNTHESIZED_TOOL_RETURN_METADATA_KEY: True}) for call_id in ("b1", "b2")]
    assert out[:2] == history[:2] and out[-1] is history[-1]  # the empty request is kept; pydantic-ai merges it
    judged = verdict([message for message in out if message.parts])
    assert judged.legal and judged.receipts == 2, judged.violations
    healthy = [ask("q"), say("a"), ModelRequest(parts=[]), say("b"), ask("next")]
    assert ToolCallIntegrityProcessor(provider="anthropic").repaired_messages(healthy) is healthy


@pytest.mark.parametrize("target", ["anthropic", "bedrock", None])
def test_a_message_the_guard_cannot_read_sends_the_request_as_it_is(target: str | None,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    """A broken history holding something that is no ModelMessage (or a part of no known shape): the guard logs
    that it did not check the request and sends it as it is; it never raises into the agent (before, turning
    the objects into the engine's form raised outside the guard's safety net)."""

    class Odd:
        kind, parts = "request", [object()]

    history: list[Any] = [ask("q"), calls("c1"), returns(("c1", "r"), ("c1", "dup")), Odd(), say("a")]
    with caplog.at_level(logging.WARNING):
        assert ToolCallIntegrityProcessor(provider=target).repaired_messages(history) is history
    assert "request not checked" in caplog.text
