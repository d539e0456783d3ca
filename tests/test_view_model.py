"""One view model (issue 25, item 3): every view entry answers the same protocol, and Placement is the only
durable <-> view mapping the inspector reads.

- The plan's entries and the report's records agree, entry by entry, on what each view message is made of
  and what kind it is (integrity.repair.entries.ViewPart), for every sample and every file under tests/real/.
- Placement agrees with the report's actions (first and further view positions of every durable message).
- The inspector's rows line up durable and view messages exactly as Placement says.
- No inspector module or page switches on the type of a view entry (`.source == ...`, `type(entry)`, or
  isinstance against DurableView/MergedView) to learn what it is made of; isinstance against ReceiptView or
  TurnView is allowed only in the renderers listed below, which read fields only that record has.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from inspector.rows import aligned_rows
from integrity import POLICIES, RepairKind, TranscriptError, target_provider
from integrity.analysis import Analysis, analyze, load_all
from integrity.repair.entries import entry_kind, entry_members

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for folder in (ROOT / "sample_transcripts", ROOT / "tests" / "real") for p in folder.iterdir()
               if p.is_file() and p.name not in ("README.md", "SOURCES.md"))

VIEW_RECORDS = {"DurableView", "ReceiptView", "TurnView", "MergedView"}
MADE_OF_RECORDS = {"DurableView", "MergedView"}
"""What a durable or merged entry is made of is Placement's (or `members`) to say: never narrowed to."""
VIEW_TAGS = {"durable", "synthesized", "turn", "merged"}

FIELD_RENDERERS = {
    ("inspector/rows.py", "_right_kind"),  # a receipt's call and frame, a turn's role and reason
    ("inspector/rows.py", "pairs_for"),  # a receipt's frame and call position
    ("inspector/conversation.py", "_view_title"),  # a receipt's tool and call, a turn's role
    ("inspector/lessons.py", "repair_steps"),  # a receipt's frame and call, a turn's role and reason
    ("inspector/report_view.py", "view_only_rows"),  # a receipt's call, tool, frame, timestamp; a turn's reason
    ("inspector/quiz.py", "view_labels"),  # a receipt's call id, a turn's role
    ("pages/lab.py", "view_frame"),  # a receipt's call id (still running?)
}
"""(module, function) that may narrow a view entry to ReceiptView or TurnView, to read that record's own fields."""


def _analyses(path: Path) -> list[Analysis]:
    try:
        transcripts = load_all(path.read_bytes(), path.name)
    except TranscriptError:
        return []  # a file the inspector refuses with a one-line error has no rows
    # each policy for the provider the format implies (as the inspector plans it), and the strict view planned
    # for the providers whose role rules make it merge messages and write turns
    return [analysis for transcript in transcripts for analysis in (
        *(analyze(transcript, policy, provider=target_provider(transcript.format)) for policy in POLICIES),
        *(analyze(transcript, "strict", provider=provider) for provider in ("anthropic", "bedrock")))]


def _refused(path: Path) -> str | None:
    """The one-line error a file is refused with on reading (None: it is read)."""
    try:
        load_all(path.read_bytes(), path.name)
    except TranscriptError as error:
        return str(error)
    return None


REFUSED = {path.name: said for path in FILES if (said := _refused(path)) is not None}
READ = [path for path in FILES if path.name not in REFUSED]


def test_the_files_refused_on_reading_have_no_rows_and_a_one_line_error() -> None:
    """The corpus's refused files (unknown shapes, hostile fragments) are left out of the checks below, never
    skipped in silence: each has its one-line error, and they stay few."""
    assert len(REFUSED) <= 8, sorted(REFUSED)
    for name, said in REFUSED.items():
        assert said and "\n" not in said and not _analyses(ROOT / "tests" / "real" / name
                                                            if (ROOT / "tests" / "real" / name).exists()
                                                            else ROOT / "sample_transcripts" / name), name


@pytest.fixture(scope="module", params=READ, ids=lambda path: path.name)
def analyses(request: pytest.FixtureRequest) -> list[Analysis]:
    found = _analyses(request.param)
    assert found, f"{request.param.name}: read, yet no analysis"
    return found


def test_the_corpus_is_not_empty() -> None:
    loaded = [path for path in FILES if _analyses(path)]
    assert len(loaded) > 40
    kinds = {entry.kind for path in loaded for analysis in _analyses(path) for entry in analysis.report.view}
    # the shapes the checks below cover
    assert {None, RepairKind.SYNTHESIZED, RepairKind.MERGED, RepairKind.SYNTHESIZED_TURN} <= kinds


def test_plan_and_report_entries_answer_the_same(analyses: list[Analysis]) -> None:
    for analysis in analyses:
        order = analysis.plan.order
        view = analysis.report.view
        if order is None:  # the view is the transcript
            assert [tuple(entry.members) for entry in view] == [(index,) for index in range(len(view))]
            continue
        assert [entry_members(entry) for entry in order] == [tuple(entry.members) for entry in view]
        assert [entry_kind(entry) for entry in order] == [entry.kind for entry in view]
        assert [not entry_members(entry) for entry in order] == [entry.written_by_engine for entry in view]


def test_placement_is_what_the_actions_say(analyses: list[Analysis]) -> None:
    for analysis in analyses:
        where = analysis.placement
        for action in analysis.report.actions:
            said = set() if action.view_index is None else {action.view_index, *action.also_view_indices}
            assert set(where.in_view(action.durable_index)) == said, action
        for position, entry in enumerate(analysis.report.view):
            assert where.sources(position) == tuple(entry.members)
            assert where.only_in_view(position) == entry.written_by_engine


def test_rows_line_up_as_placement_says(analyses: list[Analysis]) -> None:
    for analysis in analyses:
        where = analysis.placement
        rows = aligned_rows(analysis, previews=False)
        rights = [row.right for row in rows if row.right is not None]
        assert sorted(rights) == list(range(len(analysis.report.view)))  # every view message on one row
        lefts = [row.left for row in rows if row.left is not None]
        assert sorted(lefts) == list(range(len(analysis.report.actions)))  # every durable message on one row
        for row in rows:
            if row.left is not None and row.right is not None:  # one row: sent here (alone, or carrying a merge)
                assert row.right in where.in_view(row.left) and row.left == where.sources(row.right)[-1], row
            elif row.right is not None:  # only in the view, moved or shared here, or merged
                sources = where.sources(row.right)
                assert not sources or any(left in sources for left in lefts), row
            elif row.left is not None:  # left out of the view, or sent on a row of its own
                assert all(position in rights for position in where.in_view(row.left)), row
                assert not any(r.left == row.left and r.right is not None for r in rows), row


def _scanned() -> list[Path]:
    return sorted([*(ROOT / "inspector").glob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"])


def _switches(path: Path, module: str | None = None) -> list[str]:
    """Type switches over view entries in one module, outside the field renderers it is allowed."""
    module = module or path.relative_to(ROOT).as_posix()
    found: list[str] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        where = f"{module}:{getattr(node, 'lineno', '?')} ({function})"
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(side, ast.Attribute) and side.attr == "source" for side in sides) and any(
                    isinstance(side, ast.Constant) and side.value in VIEW_TAGS for side in sides):
                found.append(f"{where}: compares a view entry's source")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} if len(node.args) > 1 else set()
            if named & MADE_OF_RECORDS:
                found.append(f"{where}: narrows to {sorted(named & MADE_OF_RECORDS)} (ask Placement)")
            elif named & VIEW_RECORDS and (module, function) not in FIELD_RENDERERS:
                found.append(f"{where}: narrows a view entry outside the field renderers")
        elif isinstance(node, ast.Dict) and any(isinstance(key, ast.Name) and key.id in VIEW_RECORDS
                                                for key in node.keys):
            found.append(f"{where}: a table keyed by view record types")
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse(path.read_text(), str(path)), "<module>")
    return found


def test_no_inspector_module_switches_on_view_entry_types() -> None:
    found = [switch for path in _scanned() for switch in _switches(path)]
    assert not found, "\n".join(found)


def test_the_scan_finds_a_switch(tmp_path: Path) -> None:
    """The scan above can fail: it flags each kind of switch it forbids."""
    sample = tmp_path / "probe.py"
    sample.write_text("def f(entry, report):\n"
                      "    if entry.source == 'merged':\n        return 1\n"
                      "    if isinstance(entry, MergedView):\n        return 2\n"
                      "    if isinstance(entry, ReceiptView):\n        return 3\n"
                      "    return {TurnView: 4}\n")
    found = _switches(sample, "inspector/probe.py")
    assert len(found) == 4, found


def test_every_field_renderer_still_narrows() -> None:
    """The allow-list names only functions that exist and narrow to a receipt or a turn (it cannot rot)."""
    for module, function in sorted(FIELD_RENDERERS):
        tree = ast.parse((ROOT / module).read_text())
        defined = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function]
        assert defined, f"{module}: no function {function}"
        narrowed = {name.id for node in ast.walk(defined[0]) if isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) > 1
                    for name in ast.walk(node.args[1]) if isinstance(name, ast.Name)}
        assert narrowed & {"ReceiptView", "TurnView"}, f"{module}:{function} no longer narrows: drop it from the list"
