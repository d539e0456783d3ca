"""Adding a repair kind, a provider or a format touches the files docs/layout.md names, and no other.

Dynamic part: tests/extension_probe.py applies each recipe in memory in a fresh interpreter (its new
module, and its edits to exactly the files the recipe lists) and asks every consumer about the new thing:
the CLI's counts, verdict and choices, the report's counts and JSON, triage's columns, the Batch chart
and the fleet view, the glossary, the legend, the lessons, "Copy as curl", format detection, reading and
writing, and the provider a format implies.  Each must see it without an edit of its own.

Static part: the recipes themselves are the list of places, and their counts are the targets (a repair
kind at most 4 files, a provider 2, a format 2, tests and samples aside); and no file outside a recipe
keeps a table keyed by the kinds, the reasons, the providers or the formats it would have to grow
(tests/test_registry_places.py checks the hand-made lists of names).
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.extension_probe import KIND_PLANNER, RECIPES, ROOT

PROBE = Path(__file__).resolve().parent / "extension_probe.py"


@functools.cache
def _said(extension: str, scratch: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(PROBE), extension, scratch], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def said(tmp_path_factory: pytest.TempPathFactory) -> Any:
    scratch = tmp_path_factory.mktemp("extension") / "session.fake.json"
    return lambda extension: _said(extension, str(scratch))


# --- a new repair kind ---------------------------------------------------------------------------------------

def test_a_new_kind_appears_in_every_count(said: Any) -> None:
    kind = said("kind")
    assert kind["registry"] and kind["summary_counts"]
    assert kind["cli_counts"] == "fake fix 3"  # the CLI's counts line
    assert kind["verdict"] == "repaired: 3 fake(s) fixed"  # the one-line verdict
    assert kind["report_counts"] == 3 and kind["report_json"] == 3  # the Markdown report's table, the JSON
    assert kind["header"] == 3  # the inspector's header metrics
    assert kind["triage_columns"] and kind["batch_chart"] and kind["fleet_columns"]
    assert kind["severity"] == ["rejected", "normalized"]


def test_a_new_kind_has_its_glossary_entry_legend_row_and_lesson_step(said: Any) -> None:
    kind = said("kind")
    assert kind["glossary"] == ["fake fix", "#1 fake  ->  view: #1 fixed", "Kinds"]  # found by its alias
    assert kind["glossary_page"] and kind["project_terms"]
    assert kind["reason"] == "the fake <call_id> is fixed"  # its reason's entry, without example values
    assert kind["legend"] == ["☼ fake fix", "#abcdef", True, "fake_fixed"]
    assert kind["lessons_steps"] == [["fake_fixed", "fake fix #1"]]
    assert kind["lessons_changes"] == ["fake fix"]


# --- a new provider ------------------------------------------------------------------------------------------

def test_a_new_provider_is_on_the_command_line_and_in_the_pipeline(said: Any) -> None:
    provider = said("provider")
    assert provider["registry"]
    code, text = provider["cli"]
    assert code == 1 and "rejected as recorded by fake-llm" in text and "fake-llm after repair: accepted" in text
    assert "fake-llm" in provider["cli_choices"]  # --provider's own list of choices
    assert provider["check_target"] == ["fake-llm", ["fake-llm"]]
    assert provider["check_all"]


def test_a_new_provider_is_in_every_picker_lesson_glossary_and_curl(said: Any) -> None:
    provider = said("provider")
    assert provider["picker"] and provider["lessons"] and provider["lesson_claims"]
    assert provider["glossary"].startswith("Fake LLM Chat: reads requests in the openai-chat shape.")
    assert "https://docs.fake-llm.example/chat" in provider["glossary"] and provider["glossary_page"]
    assert provider["curl"].startswith('curl -sS "https://api.fake-llm.example/v1/chat"')
    assert '-H "authorization: Bearer $FAKE_LLM_API_KEY"' in provider["curl"]
    assert "duplicate_tool_call_id" in provider["rule_rows"]


# --- a new format --------------------------------------------------------------------------------------------

def test_a_new_format_is_detected_read_and_written(said: Any) -> None:
    fmt = said("format")
    assert fmt["registry"] and fmt["detect"] == "fake-fmt"
    assert fmt["read"] == ["fake-fmt", ["user", "assistant", "user", "toolResult"]]
    assert fmt["write_own"] and fmt["write_into"]
    assert fmt["write_other"] == ["user", "assistant", "user", "tool"]  # converted to openai-chat
    assert fmt["suffix"] == ["fake-fmt"] and fmt["lessons"]
    assert fmt["positions"] == ["[3]", "[3] · #3"]


def test_a_new_format_is_judged_by_the_provider_it_implies(said: Any) -> None:
    fmt = said("format")
    assert fmt["target_provider"] == "anthropic"
    assert fmt["check"] == ["anthropic", "repaired: 1 moved; rejected as recorded by anthropic", ["anthropic"]]
    detected, named, repaired, unknown, written = fmt["cli"]
    assert detected == named and detected[0] == 1 and "rejected as recorded by anthropic" in detected[1]
    assert repaired[0] == 0
    assert "fake-fmt" in unknown[1]  # --format's list of formats
    assert [entry["speaker"] for entry in written] == ["person", "agent", "tool", "person"]  # the result moved


# --- the static part: the places, counted --------------------------------------------------------------------

def test_the_recipes_touch_the_target_number_of_files() -> None:
    assert {name: len(recipe.files) for name, recipe in RECIPES.items()} == {"kind": 4, "provider": 2, "format": 2}
    assert RECIPES["kind"].files == {"integrity/kinds.py", "integrity/notes.py", "integrity/_diagnosis.py",
                                     KIND_PLANNER}
    assert RECIPES["provider"].files == {"integrity/providers/fake_llm.py", "integrity/providers/registry.py"}
    assert RECIPES["format"].files == {"integrity/formats/fake_fmt.py", "integrity/formats/registry.py"}
    for recipe in RECIPES.values():
        for path, edits in recipe.edits.items():
            text = (ROOT / path).read_text(encoding="utf-8")
            assert all(text.count(anchor) == 1 for anchor, _ in edits), path
        assert not any((ROOT / path).exists() for path in recipe.new)


def test_docs_layout_gives_the_same_recipes() -> None:
    layout = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    for heading in ("### Adding a repair kind", "### Adding a provider", "### Adding a format"):
        assert heading in layout
    for recipe in RECIPES.values():
        for path in recipe.edits:
            assert f"`{path}`" in layout, path


_KEYS = ("RepairKind", "FindingCode", "Mark", "NoteCode")
_TABLES_ALLOWED = {
    "integrity/kinds.py": "the kind registry itself (and each reason's severity)",
    "integrity/notes.py": "each reason's sentence (part of the kind recipe)",
    "inspector/lessons.py": "_DROP_TEXT: the lessons' own sentences; any other action kind is worded by "
                            "its registry name (step_text)",
    "inspector/glossary_registry.py": "NOTE_EXAMPLES: example values; a reason without any shows its "
                                      "placeholders (reason_example)",
}


def _kind_tables(path: Path) -> list[int]:
    """Lines of dict literals keyed by three or more members of the kind or reason enums."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keyed = [key for key in node.keys if isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name)
                     and key.value.id in _KEYS]
            if len(keyed) >= 3:
                found.append(node.lineno)
    return found


def test_no_other_file_keeps_a_table_a_new_kind_must_grow() -> None:
    code = sorted([*(ROOT / "integrity").rglob("*.py"), *(ROOT / "inspector").rglob("*.py"),
                   *(ROOT / "pages").glob("*.py"), ROOT / "app.py"])
    tables = {str(path.relative_to(ROOT)): lines for path in code if (lines := _kind_tables(path))}
    assert set(tables) <= set(_TABLES_ALLOWED), {k: v for k, v in tables.items() if k not in _TABLES_ALLOWED}
