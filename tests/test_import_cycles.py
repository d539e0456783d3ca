"""The engine's import graph: no cycles, and `check`'s path goes down the layers.

Why: a cycle hidden in a function-local import still ties two modules into one
unit (neither can be understood, tested or moved without the other), and it
only shows up as an ImportError when someone moves the import to the top.  So
this reads every module under `integrity/` with `ast` and collects every import
of a project module, at module level and inside functions alike; only imports
under `if TYPE_CHECKING:` are left out (they never run).

Importing `integrity.a.b` also runs `integrity/a/__init__.py` unless the
importer already lives inside `integrity.a` (its package is then already being
imported), so the graph has that edge too.  A name taken from a package's own
`__init__` (`from . import NAME` inside it) is an edge to that `__init__`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "integrity"

# The layers of the engine, lowest first: the one place that says which may import which.  A module
# imports its own layer and the layers below it, never one above; every engine module is in exactly one.
# Read from the code's imports (module-level and function-local), bottom up:
LAYERS: list[tuple[str, list[str]]] = [
    # shared records and representations with no project imports: the light transcript, message
    # building, records, GC pausing, safe file writes (loading asks it what a path names); the faces of
    # the repair and bulk packages, which import nothing
    ("primitives", [
        "integrity._records", "integrity._lazy", "integrity._bulk", "integrity._bulk.gc_pause",
        "integrity._bulk.freed_memory", "integrity._bulk.forking",
        "integrity._bulk.atomic_write",
        "integrity._bulk.key_tokens",
        "integrity.repair", "integrity.repair.views", "integrity.repair.messages",
    ]),
    # a transcript in memory, and the checks on what a caller passes in
    ("loading", ["integrity.loading", "integrity._arguments"]),
    # reading and writing every transcript format
    ("formats", ["integrity.formats", "integrity.formats.*"]),
    # each provider's rules and exact errors (they read formats to judge native payloads)
    ("providers", ["integrity.providers", "integrity.providers.*"]),
    # the words: note codes and their sentences (which name providers), kinds and severities
    ("vocabulary", ["integrity.notes", "integrity.kinds"]),
    # view entries, the plan and the policies' planners, the durable-to-view mapping, and the
    # reference runtime's primitives built on them (tracking, receipts, the fence, the transform)
    ("planners", [
        "integrity.repair.entries", "integrity.repair.plan", "integrity.repair.legalize", "integrity.repair.strict",
        "integrity.repair.pairing", "integrity.repair.new_ids",
        "integrity.repair.policies", "integrity.repair.placement",
        "integrity.reference", "integrity.fence", "integrity.transform",
    ]),
    # bulk plumbing: the fast path and its streamed reading, JSON pieces indented elsewhere, child processes
    ("bulk", [
        "integrity._bulk.fast_read", "integrity._bulk.fast_bones", "integrity._bulk.blocks", "integrity._bulk.pieces",
        "integrity._bulk.sparse_view", "integrity._bulk.item_groups",
        "integrity._bulk.frames",
        "integrity._bulk.indent_process", "integrity._bulk.children",
    ]),
    # what is wrong with a transcript: findings, schema checks, the diagnosis
    ("findings", ["integrity._findings", "integrity._diagnosis", "integrity.schema", "integrity.schema.*"]),
    # the report: its records, building it, writing it as JSON whatever its size
    ("report", [
        "integrity.report.v1", "integrity.report.records", "integrity.report.sections", "integrity.report.build",
        "integrity.report", "integrity.report.text",
    ]),
    # one call from a loaded transcript to its plan, view and report
    # (and the providers' verdicts judged on skeletons, which the pipeline loads only when a provider is asked)
    # (and what repair writes for a view, which the Inspector's download writes too)
    ("analysis", ["integrity.analysis", "integrity.loaded", "integrity.naming", "integrity.skeleton_verdicts",
                  "integrity.written"]),
    # the check pipeline and the one-call APIs over the analysis
    ("check", ["integrity.pipeline", "integrity.repairing", "integrity.download", "integrity.file_verdict"]),
    # front ends: the CLI, fleet triage, the fault lab, the package face
    ("front", [
        "integrity.cli", "integrity.cli_pool", "integrity.__main__", "integrity.triage", "integrity._triage_inputs",
        "integrity._triage_table", "integrity._triage_head", "integrity.lab", "integrity.lab.*", "integrity",
        "integrity.guards", "integrity.guards.*",
    ]),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def engine_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, local: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement that can run, and whether it sits inside a function."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), local)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, local
            continue
        inner = local or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        yield from _imports(node, inner)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The project modules an import statement names: the module, or the submodules `from` takes
    (and the module itself when `from` takes a name defined in it, a package's `__init__` included)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != PACKAGE:
        return set()
    submodules = {f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known}
    plain = [alias for alias in node.names if f"{source}.{alias.name}" not in known]
    return submodules | ({source} if plain else set())


def import_graph() -> tuple[dict[str, dict[str, int]], list[tuple[str, str, int]]]:
    """Module -> {imported module: first line}, and every function-local project import (module, target, line)."""
    modules = engine_modules()
    known = set(modules)
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    local_imports: list[tuple[str, str, int]] = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, local in _imports(tree):
            for target in _targets(name, path.name == "__init__.py", node, known):
                if target not in known or target == name:
                    continue
                if local:
                    local_imports.append((name, target, node.lineno))
                graph[name].setdefault(target, node.lineno)
                # the target's packages run first, unless the importer is already inside them
                parts = target.split(".")
                for depth in range(1, len(parts)):
                    step = ".".join(parts[:depth])
                    if step in known and step != name and not name.startswith(step + "."):
                        graph[name].setdefault(step, node.lineno)
    return graph, local_imports


def find_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One path per strongly connected component of more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, {}):
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_path(graph, set(component), component[0]) for component in components]


def _cycle_path(graph: dict[str, dict[str, int]], members: set[str], start: str) -> list[str]:
    """A shortest path from `start` back to itself inside one component."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target not in members:
                    continue
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a component but on no cycle")


def _describe(graph: dict[str, dict[str, int]], path: list[str]) -> str:
    steps = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in zip(path, path[1:], strict=False)]
    return "; ".join(steps)


def layer_of(module: str) -> int | None:
    for rank, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if module == pattern or (pattern.endswith("*") and module.startswith(pattern[:-1])):
                return rank
    return None


def test_the_engine_has_no_import_cycle() -> None:
    graph, _ = import_graph()
    cycles = find_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(_describe(graph, path) for path in cycles)


def test_every_engine_module_has_one_layer() -> None:
    unplaced = [name for name in engine_modules() if layer_of(name) is None]
    assert not unplaced, f"modules in no layer (add them to LAYERS): {unplaced}"
    for name in engine_modules():
        ranks = {rank for rank, (_, patterns) in enumerate(LAYERS)
                 for pattern in patterns
                 if name == pattern or (pattern.endswith("*") and name.startswith(pattern[:-1]))}
        assert len(ranks) == 1, f"{name} matches the layers {sorted(LAYERS[r][0] for r in ranks)}"


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each import of a module in a higher layer than the importer's, said in one line."""
    upward = []
    for name, targets in sorted(graph.items()):
        rank = layer_of(name)
        for target, line in sorted(targets.items()):
            target_rank = layer_of(target)
            if rank is not None and target_rank is not None and target_rank > rank:
                upward.append(f"{name} ({LAYERS[rank][0]}, line {line}) imports {target} ({LAYERS[target_rank][0]})")
    return upward


def test_imports_go_down_the_layers() -> None:
    upward = upward_imports(import_graph()[0])
    assert not upward, "imports going up a layer:\n" + "\n".join(upward)


# The checker itself must see what it claims to see: each case is a tiny package
# written to disk, read by the same functions as the engine.
def _graph_of(tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, int]]:
    for relative, text in files.items():
        target = tmp_path / PACKAGE / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    return import_graph()[0]


def test_a_cycle_through_a_function_local_import_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _graph_of(tmp_path, {
        "__init__.py": "",
        "a.py": "from .b import g\n",
        "b.py": "def g():\n    from .c import h\n    return h\n",
        "c.py": "import integrity.a\n",
    }, monkeypatch)
    assert find_cycles(graph) == [["integrity.a", "integrity.b", "integrity.c", "integrity.a"]]


def test_type_checking_imports_and_package_parents_are_not_cycles(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _graph_of(tmp_path, {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "b.py": "from .a import x\n",
        "sub/__init__.py": "from . import leaf\n",
        "sub/leaf.py": "from . import other\n",
        "sub/other.py": "",
    }, monkeypatch)
    assert find_cycles(graph) == []
    assert "integrity.b" not in graph["integrity.a"]
    assert set(graph["integrity.sub.leaf"]) == {"integrity.sub.other"}


def test_importing_a_submodule_from_outside_runs_its_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _graph_of(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from .sub.leaf import y\n",
        "sub/__init__.py": "from ..a import f\n",
        "sub/leaf.py": "",
    }, monkeypatch)
    assert find_cycles(graph) == [["integrity.a", "integrity.sub", "integrity.a"]]


def test_a_name_taken_from_the_own_package_face_is_an_edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _graph_of(tmp_path, {
        "__init__.py": "",
        "sub/__init__.py": "from .leaf import f\nTABLE = {}\n",
        "sub/leaf.py": "def f():\n    from . import TABLE\n    return TABLE\n",
    }, monkeypatch)
    assert find_cycles(graph) == [["integrity.sub", "integrity.sub.leaf", "integrity.sub"]]


def test_an_import_of_a_higher_layer_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _graph_of(tmp_path, {
        "__init__.py": "",
        "low.py": "def f():\n    from .high import g\n",
        "high.py": "from .low import f\n",
    }, monkeypatch)
    monkeypatch.setitem(globals(), "LAYERS", [("bottom", ["integrity.low"]), ("top", ["integrity.high", "integrity"])])
    assert upward_imports(graph) == ["integrity.low (bottom, line 2) imports integrity.high (top)"]
