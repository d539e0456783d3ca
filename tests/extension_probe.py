"""Apply one extension recipe in memory, then ask every consumer whether it sees the new thing.

`python3 tests/extension_probe.py kind|provider|format` runs in a fresh interpreter: it installs an
import hook that serves the recipe's NEW modules and applies its EDITS to the files it names (exactly
the edits docs/layout.md tells a contributor to make, and nothing else), imports the engine and the
inspector as they are, and prints one JSON object: consumer -> what it says about the new kind,
provider or format.  tests/test_extension_points.py runs it and asserts each answer, and counts the
files a recipe touches.  Nothing is written to disk.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Recipe:
    """What adding one thing takes: new modules (path -> source) and edits (path -> [(anchor, replacement)])."""

    new: dict[str, str] = field(default_factory=dict)
    edits: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @property
    def files(self) -> set[str]:
        """Every file of the engine and the inspector the recipe writes or edits (tests and samples aside)."""
        return set(self.new) | set(self.edits)


# --- a new repair kind: its registry row, its reason, its count, and the planner that makes it -------------
# The planner's and the reason's edits are what make a real repair produce the kind; the consumers read only
# the registry and the summary, so the probe needs no planner edit to find the kind everywhere.  The planner
# file is still counted (KIND_PLANNER): a kind nobody makes is no kind.

KIND_PLANNER = "integrity/repair/strict.py"
KIND = Recipe(edits={
    "integrity/kinds.py": [
        ('    REPAIRED_ARGUMENTS = "repaired_arguments"\n',
         '    REPAIRED_ARGUMENTS = "repaired_arguments"\n    FAKE_FIXED = "fake_fixed"\n'),
        ("    RepairKind.SHARED: KindFacts(",
         '    RepairKind.FAKE_FIXED: KindFacts(\n'
         '        "fake fix", "A change only tests/test_extension_points.py makes.", Severity.REJECTED,\n'
         '        "fakes_fixed", "fake(s) fixed", action=True, if_accepted=Severity.NORMALIZED, icon="☼",\n'
         '        colour="#abcdef", example="#1 fake  ->  view: #1 fixed", aliases=("fake fixes",)),\n'
         "    RepairKind.SHARED: KindFacts("),
        ("    RepairKind.SYNTHESIZED_TURN,\n)", "    RepairKind.SYNTHESIZED_TURN, RepairKind.FAKE_FIXED,\n)"),
        ("    NoteCode.REPLY_AFTER_RESULTS: (_R, _N),\n",
         "    NoteCode.REPLY_AFTER_RESULTS: (_R, _N),\n    NoteCode.FAKE_REASON: (_R, _N),\n"),
    ],
    "integrity/notes.py": [
        ('    REPLY_AFTER_RESULTS = "reply_after_results"\n',
         '    REPLY_AFTER_RESULTS = "reply_after_results"\n    FAKE_REASON = "fake_reason"\n'),
        ('user message {p[\'user\']}, so the view inserts an assistant turn saying so"),\n}',
         'user message {p[\'user\']}, so the view inserts an assistant turn saying so"),\n'
         '    NoteCode.FAKE_REASON: lambda p: f"the fake {p[\'call_id\']} is fixed",\n}'),
    ],
    "integrity/_diagnosis.py": [
        ("    turns_synthesized: int = 0\n", "    turns_synthesized: int = 0\n    fakes_fixed: int = 0\n"),
    ],
    KIND_PLANNER: [],
})

# --- a new provider: its module, and its line in the registry ------------------------------------------------

PROVIDER = Recipe(
    new={"integrity/providers/fake_llm.py": '''"""A provider only the extension test knows: OpenAI Chat's rules."""
import dataclasses

from . import openai_chat
from .spec import Endpoint

SPEC = dataclasses.replace(
    openai_chat.SPEC, name="fake-llm", title="Fake LLM Chat",
    endpoint=Endpoint("https://api.fake-llm.example/v1/chat", headers=("authorization: Bearer $FAKE_LLM_API_KEY",),
                      fields={"model": "$FAKE_LLM_MODEL"}, docs="https://docs.fake-llm.example/chat"))
'''},
    edits={"integrity/providers/registry.py": [
        ("from . import anthropic,", "from . import fake_llm\nfrom . import anthropic,"),
        ("deepseek, deepseek_responses)\n", "deepseek, deepseek_responses, fake_llm)\n"),
    ]},
)

# --- a new format: its module (declaring its spec), and its line in the registry -----------------------------

FORMAT = Recipe(
    new={"integrity/formats/fake_fmt.py": '''"""A format only the extension test knows: one JSON object per message,
`speaker` and `said`; an agent's calls are `asks` ({"id", "tool", "args"}), a tool's answer names the
call in `answers`.  Its files are sent as Anthropic Messages requests."""
from typing import Any

from .base import BuildContext, per_entry
from .spec import here

NAME = "fake-fmt"
_SPEAKERS = ("person", "agent", "tool")


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    return any(isinstance(entry, dict) and "speaker" in entry for entry in entries)


def fits(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("speaker") in _SPEAKERS


def _text(text: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": str(text)}] if text else []


def _read_one(entry: Any) -> list[dict[str, Any]]:
    speaker = entry["speaker"]
    if speaker == "person":
        return [{"role": "user", "content": _text(entry.get("said"))}]
    if speaker == "agent":
        calls = [{"type": "toolCall", "id": ask["id"], "name": ask["tool"], "arguments": ask.get("args", {})}
                 for ask in entry.get("asks", [])]
        return [{"role": "assistant", "content": _text(entry.get("said")) + calls,
                 "stopReason": "toolUse" if calls else "stop"}]
    return [{"role": "toolResult", "toolCallId": entry["answers"], "toolName": entry.get("tool", ""),
             "content": _text(entry.get("said")), "isError": False}]


def read(entries: list[Any]) -> Any:
    return per_entry(entries, _read_one)


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    return [[index] for index in range(len(messages))]


def _said(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict)
                   and part.get("type") == "text")


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    out = []
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            asks = [{"id": part["id"], "tool": part["name"], "args": part.get("arguments", {})}
                    for part in message.get("content") or [] if isinstance(part, dict)
                    and part.get("type") == "toolCall"]
            entry: dict[str, Any] = {"speaker": "agent", "said": _said(message), "asks": asks}
        elif role == "toolResult":
            entry = {"speaker": "tool", "answers": message.get("toolCallId"), "tool": message.get("toolName"),
                     "said": _said(message)}
        else:
            entry = {"speaker": "person", "said": _said(message)}
        out.append({key: value for key, value in entry.items() if value})
    return out


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    return native


SPECS = (here(__name__, provider="anthropic", suffixes=(".fake.json",)),)
'''},
    edits={"integrity/formats/registry.py": [
        ("from . import (\n", "from . import fake_fmt\nfrom . import (\n"),
        ("letta, autogen, cline_sdk, ai_sdk, ai_sdk_ui, langgraph)\n",
         "letta, autogen, cline_sdk, ai_sdk, ai_sdk_ui, langgraph, fake_fmt)\n"),
    ]},
)

RECIPES: dict[str, Recipe] = {"kind": KIND, "provider": PROVIDER, "format": FORMAT}


# --- the import hook -----------------------------------------------------------------------------------------

def _module_name(path: str) -> str:
    return path[:-3].replace("/", ".")


class _Loader(importlib.abc.SourceLoader):
    def __init__(self, path: str, source: str) -> None:
        self.path, self.source = path, source

    def get_filename(self, fullname: str) -> str:
        return str(ROOT / self.path)

    def get_data(self, path: str) -> bytes:
        return self.source.encode("utf-8")

    def path_stats(self, path: str) -> Any:  # never a cached .pyc: the source is not the file's
        raise OSError


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, recipe: Recipe) -> None:
        self.sources: dict[str, tuple[str, str]] = {}
        for path, source in recipe.new.items():
            self.sources[_module_name(path)] = (path, source)
        for path, edits in recipe.edits.items():
            source = (ROOT / path).read_text(encoding="utf-8")
            for anchor, replacement in edits:
                if source.count(anchor) != 1:
                    raise SystemExit(f"{path}: the recipe's anchor {anchor!r} is not in it exactly once")
                source = source.replace(anchor, replacement)
            self.sources[_module_name(path)] = (path, source)

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> Any:
        found = self.sources.get(fullname)
        if found is None:
            found = self.sources.get(fullname + ".__init__")
            if found is not None:
                spec = importlib.util.spec_from_loader(fullname, _Loader(*found), origin=str(ROOT / found[0]),
                                                       is_package=True)
                assert spec is not None
                spec.submodule_search_locations = [str((ROOT / found[0]).parent)]
                return spec
        if found is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(*found), origin=str(ROOT / found[0]))


def install(name: str) -> Recipe:
    recipe = RECIPES[name]
    sys.path.insert(0, str(ROOT))
    sys.dont_write_bytecode = True
    sys.meta_path.insert(0, _Finder(recipe))
    return recipe


# --- the consumers -------------------------------------------------------------------------------------------

def _cli(*argv: str) -> tuple[int, str]:
    from integrity import cli

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exit:  # argparse
            code = int(exit.code or 0)
    out.flush()
    err.flush()
    return code, (out.buffer.getvalue() + err.buffer.getvalue()).decode("utf-8")  # type: ignore[attr-defined]


def probe_kind() -> dict[str, Any]:
    import msgspec

    from inspector import batch, fleet, glossary, lessons, markdown, theme, ui
    from integrity import cli
    from integrity._diagnosis import Summary, _verdict
    from integrity._triage_table import TRANSCRIPT_FIELDS
    from integrity.kinds import ACTION_KINDS, REPAIR_KINDS, RepairKind, Severity, rate, summary_counts

    fake = RepairKind("fake_fixed")
    zero = {name: 0 for name in Summary.__struct_fields__}
    summary = Summary(**{**zero, "messages": 4, "calls": 1, "fakes_fixed": 3})
    term = glossary.find_term("fake fixes")
    reason = glossary.find_term("reason: fake reason")
    report = _FakeReport([_FakeAction(fake, 1)])
    return {
        "registry": fake in REPAIR_KINDS and fake in ACTION_KINDS,
        "summary_counts": ("fakes_fixed", "fake fix") in summary_counts(),
        "cli_counts": cli._counts(summary),
        "verdict": _verdict(summary, changed=True, severity=Severity.REJECTED),
        "report_counts": markdown.summary_columns(summary).get("fake fix"),
        "header": dict(theme.summary_metrics(summary)).get("fake fix"),
        "triage_columns": ("fakes_fixed", "int64") in TRANSCRIPT_FIELDS,
        "batch_chart": ("fakes_fixed", "fake fix") in batch.DEFECT_COLUMNS,
        "fleet_columns": ("fakes_fixed", "fake fix") in fleet.COUNTS,
        "glossary": None if term is None else [term.name, term.example, term.group],
        "glossary_page": "### fake fix" in glossary.glossary_markdown(),
        "project_terms": "fake fix" in glossary.PROJECT_TERMS,
        "legend": [theme.label(fake.value), theme.colour(fake.value), fake.value in theme.ROW_KINDS,
                   ui._BY_LABEL.get(theme.label(fake.value))],
        "lessons_steps": [[step.kind, step.description] for step in lessons.repair_steps(report)],  # type: ignore[arg-type]
        "lessons_changes": sorted(lessons.changes(report)),  # type: ignore[arg-type]
        "severity": [rate(fake).value, rate(fake, accepted=True).value],
        "report_json": msgspec.to_builtins(summary).get("fakes_fixed"),
        "reason": None if reason is None else reason.example,
    }


@dataclass
class _FakeAction:
    kind: Any
    durable_index: int
    view_index: int | None = None
    kept_instead: int | None = None
    call_id: str | None = None
    new_ids: dict[str, str] = field(default_factory=dict)
    also_view_indices: list[int] = field(default_factory=list)
    codes: list[Any] = field(default_factory=list)

    @property
    def shown_kind(self) -> Any:
        from integrity.report.records import Action

        return Action.shown_kind.fget(self)  # type: ignore[attr-defined]


@dataclass
class _FakeReport:
    actions: list[_FakeAction]
    pairings: list[Any] = field(default_factory=list)
    view: list[Any] = field(default_factory=list)
    findings: list[Any] = field(default_factory=list)


def probe_provider() -> dict[str, Any]:
    from inspector import diagnostics, engine_facts, glossary, lessons, ui
    from integrity import PROVIDERS, check, load
    from integrity.pipeline import ALL_PROVIDERS

    sample = ROOT / "sample_transcripts" / "two_results.openai-chat.json"
    transcript = load(sample.read_bytes(), sample.name)
    named = check(transcript, provider="fake-llm")
    every = check(transcript, also=ALL_PROVIDERS)
    code, said = _cli("check", "--provider", "fake-llm", str(sample))
    _, unknown = _cli("check", "--provider", "nope", str(sample))
    term = glossary.find_term("fake-llm")
    return {
        "registry": "fake-llm" in PROVIDERS,
        "cli": [code, said],
        "cli_choices": unknown,
        "check_target": [named.target, sorted(named.providers)],
        "check_all": "fake-llm" in every.providers,
        "picker": "fake-llm" in ui.provider_names(),
        "lessons": "fake-llm" in lessons._ALL,
        "lesson_claims": any(claim.provider == "fake-llm" for lesson in lessons.LESSONS for claim in
                             getattr(lesson, "claims", ())),
        "glossary": None if term is None else term.text,
        "glossary_page": "### fake-llm" in glossary.glossary_markdown(),
        "curl": diagnostics.curl_command("fake-llm", {"messages": []}),
        "rule_rows": sorted({row["rule"] for row in engine_facts.rule_rows() if row["provider"] == "fake-llm"}),
    }


def probe_format() -> dict[str, Any]:
    from inspector import lessons
    from inspector.positions import durable_label, native_label
    from integrity import FORMATS, check, load
    from integrity._diagnosis import target_provider
    from integrity.formats import FORMAT_SPECS, detect, formats_for, read_bytes, write_bytes

    entries = [{"speaker": "person", "said": "list the files"},
               {"speaker": "agent", "asks": [{"id": "call_a", "tool": "ls", "args": {}}]},
               {"speaker": "person", "said": "hurry"},
               {"speaker": "tool", "answers": "call_a", "tool": "ls", "said": "a.txt"}]
    data = json.dumps(entries).encode()
    transcript = read_bytes(data, "session.fake.json")
    chat = json.loads(write_bytes(transcript, format="openai-chat"))
    back = read_bytes(json.dumps(chat).encode(), "chat.json", "openai-chat")
    result = check(load(data, "session.fake.json"), depth="view")
    path = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    cli: list[Any] = []
    if path is not None:
        path.write_bytes(data)
        cli = [_cli("check", str(path)), _cli("check", "--format", "fake-fmt", str(path)),
               _cli("repair", str(path), "-o", str(path.with_suffix(".out.json"))),
               _cli("check", "--format", "nope", str(path))]
        written = path.with_suffix(".out.json")
        cli.append(json.loads(written.read_text()) if written.exists() else None)
    return {
        "registry": "fake-fmt" in FORMAT_SPECS and "fake-fmt" in FORMATS,
        "detect": detect(entries),
        "read": [transcript.format, [m["role"] for m in transcript.messages]],
        "write_own": json.loads(write_bytes(transcript)) == entries,
        "write_other": [m["role"] for m in chat["messages"]] if isinstance(chat, dict) else chat,
        "write_into": json.loads(write_bytes(back, format="fake-fmt")) == entries,
        "target_provider": target_provider("fake-fmt"),
        "check": [result.target, result.verdict, sorted(result.providers)],
        "suffix": formats_for("session.fake.json")[:1],
        "positions": [native_label(transcript, 3), durable_label(transcript, 3)],
        "lessons": "fake-fmt" in lessons.RECOGNITION_FORMATS,
        "cli": cli,
    }


PROBES = {"kind": probe_kind, "provider": probe_provider, "format": probe_format}


if __name__ == "__main__":
    install(sys.argv[1])
    print(json.dumps(PROBES[sys.argv[1]](), default=str))
