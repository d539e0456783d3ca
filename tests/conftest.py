"""What every test shares: its tier (unit, cli, browser, slow), and for the browser tests a Streamlit
server and a headless Chromium, one of each per test module.

Tiers (docs/testing.md) are assigned here, at collection, from what a test uses, so a new test gets
one without anyone remembering to mark it:

- `browser`: it asks for the `server` or `browser` fixture (directly or through another fixture);
- `cli`: its code, its fixtures or the helpers they call (anything defined under tests/) start child
  processes (`subprocess`, `multiprocessing`, a Dask cluster): nearly always the CLI as a user runs
  it; also the fault lab's workers (killed, raced) and the Dask cluster of triage's tests;
- `slow`: of what remains, the tests that run an inspector page in this process under Streamlit's
  AppTest (0.3 to 2 s a page run), and the measured slow tests listed in SLOW below (the one hand list);
- `unit`: everything else.

A test marked by hand with a tier keeps that tier. tests/test_tiers.py fails if a collected test has
no tier or two.

Server and browser are per module, so a module's first test meets a fresh server (the first request
a server sees is a case of its own: see tests/test_e2e_truth.py).
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import subprocess
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _app_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server

TIERS = ("unit", "cli", "browser", "slow")
TESTS = Path(__file__).resolve().parent
BROWSER_FIXTURES = frozenset({"server", "browser"})


@dataclass(frozen=True)
class Use:
    """Something a test may use that decides its tier: the objects that stand for it (as a module's
    global), and the modules that bring it (imported inside a function)."""

    made_by: Callable[[Any], bool]
    modules: frozenset[str]


SPAWNERS = (subprocess.run, subprocess.Popen, subprocess.call, subprocess.check_call, subprocess.check_output)
PROCESS_MODULES = frozenset({"subprocess", "multiprocessing"})


def _starts_processes(value: Any) -> bool:
    """subprocess and multiprocessing, or a Dask cluster (its workers are processes: triage's tests);
    told by module name, so that Dask is not imported for a run that never uses it."""
    if isinstance(value, types.ModuleType):
        return value.__name__ in PROCESS_MODULES
    if isinstance(value, type):
        return value.__module__.startswith(("multiprocessing.", "distributed.deploy."))
    return any(value is spawner for spawner in SPAWNERS)


# Child processes: the CLI as a user runs it, a probe of its start-up, a fault-lab worker, a Dask cluster.
CHILD_PROCESS = Use(_starts_processes, PROCESS_MODULES)
# A page run in this process by Streamlit's AppTest (told by its module: importing Streamlit here would
# slow every run down, even of one file that never draws a page).
PAGE_RUN = Use(lambda value: isinstance(value, type) and value.__module__.startswith("streamlit.testing"),
               frozenset({"streamlit.testing.v1", "streamlit.testing.v1.app_test"}))

# The slow tests that start no process, run no page and drive no browser: one of their cases took
# 0.75 s or more, or all of them together 2 s or more, in `python3 -m pytest -m unit --durations=0`
# on this 2-core machine shared with other jobs (the seconds below, every case together).  Most are
# Hypothesis properties and walks over every sample or generated file; a unit test takes milliseconds.
# Keyed by file and function, without parameters: every case of a parametrized test goes together;
# a `*` stands for the rest of a name, for a family of tests made in a loop.
SLOW: dict[str, float] = {
    "tests/test_batch_page.py::test_healthy_never_stands_next_to_a_refusal_by_the_provider_it_is_judged_by": 2.0,
    "tests/test_container_fast.py::test_generated_arrays_read_the_same": 4.2,
    "tests/test_container_fast.py::test_generated_envelopes_read_the_same": 4.3,
    "tests/test_container_fast.py::test_generated_jsonl_reads_the_same": 1.6,
    "tests/test_fastpath_cheap_checks.py::test_random_files_decide_as_in_one_pass": 3.6,
    "tests/test_fastpath_reports.py::test_json_is_the_full_paths_json_on_generated_files": 2.3,
    "tests/test_fastpath_reports.py::test_provider_lines_are_the_full_paths_on_pi_ai_files": 5.0,
    "tests/test_faults_property.py::test_every_model_view_is_legal_under_random_fault_schedules": 2.6,
    "tests/test_formats_robustness.py::test_near_miss_native_files_are_read_or_refused_cleanly": 4.0,
    "tests/test_formats_robustness.py::test_reading_never_crashes_and_what_is_read_can_be_written": 2.2,
    "tests/test_formats_roundtrip.py::test_round_trip_*": 7.9,  # one per format, 0.3 to 1.6 s each
    "tests/test_fuzz.py::test_odd_file_names": 1.0,
    "tests/test_fuzz.py::test_one_field_of_a_real_file_of_another_type": 1.7,
    "tests/test_fuzz.py::test_one_field_of_another_type": 1.7,
    "tests/test_hostile_fuzz.py::test_drawn_eval_archives_stay_within_the_invariants": 1.2,
    "tests/test_hostile_fuzz.py::test_drawn_transcripts_load_analyze_and_export_within_the_invariants": 1.3,
    ("tests/test_hostile_fuzz.py::"
     "test_the_api_never_changes_a_hand_built_transcript_nor_calls_one_that_is_not_json_healthy"): 1.5,
    "tests/test_properties.py::test_fast_path_equals_dict_path": 0.9,
    "tests/test_properties.py::test_repair_properties": 1.3,
    "tests/test_properties.py::test_report_flags_a_duplicate_left_in_place": 1.1,
    "tests/test_report_stream.py::test_every_file_is_written_as_the_whole_report": 11.3,
    "tests/test_report_stream.py::test_generated_transcripts_are_written_as_the_whole_report": 8.0,
    "tests/test_schema_validators.py::test_msgspec_and_the_walker_agree_on_json_values": 33.3,
    "tests/test_silent_drops.py::test_a_message_that_is_no_longer_read_is_never_dropped_unseen": 4.9,
    "tests/test_streamed_reading.py::test_a_file_read_a_block_at_a_time_is_read_as_a_whole_one": 3.3,
    "tests/test_strict_properties.py::test_strict_view_is_legal_idempotent_and_lossless": 4.3,
    "tests/test_strict_properties.py::test_the_clean_turns_found_while_reading_are_the_planners_own": 0.9,
    "tests/test_strict_properties.py::test_the_strict_plan_is_the_same_whether_the_reader_classified_clean_turns": 0.9,
}

SLOW_NAMES = re.compile("|".join(".*".join(map(re.escape, key.split("*"))) for key in SLOW))

# Filled at collection, before `-m` deselects anything: the tiers of every collected test by node id.
TIERS_FOUND = pytest.StashKey[dict[str, list[str]]]()


_ENVIRONMENT: dict[str, str] = {}
"""The environment once every test module is imported (some set a variable when imported)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    _ENVIRONMENT.update(os.environ)


def _restore(environment: dict[str, str]) -> None:
    if dict(os.environ) != environment:
        os.environ.clear()
        os.environ.update(environment)


@pytest.fixture(autouse=True)
def _environment_as_it_was() -> Iterator[None]:
    """Each test leaves the environment as it found it, and each module leaves it as the session began
    (pytest_runtest_teardown below): no later test's child process inherits what a test or a module's
    fixture set.  Dask's nanny sets its workers' variables in this process's own environment and never
    takes them back (MALLOC_TRIM_THRESHOLD_=65536 among them), and a later probe of the C allocator, run
    as a child, measured an allocator that trims on every free."""
    before = dict(os.environ)
    yield
    _restore(before)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield  # (the module's fixtures are finalized in here when this is its last test)
    if _ENVIRONMENT and (nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None)):
        _restore(_ENVIRONMENT)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright import sync_api  # never skipped: a missing Playwright or Chromium fails the run

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@functools.cache
def _under_tests(file: str) -> bool:
    return Path(file).resolve().is_relative_to(TESTS)


def _ours(function: Any) -> bool:
    """Whether a function was written under tests/ (the engine's own processes are not a test's)."""
    code = getattr(function, "__code__", None)
    return isinstance(code, types.CodeType) and _under_tests(code.co_filename)


def _ours_module(value: Any) -> bool:
    file = getattr(value, "__file__", None) if isinstance(value, types.ModuleType) else None
    return file is not None and _under_tests(file)


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every one nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _codes(constant)


def _functions(value: Any) -> list[Any]:
    """The functions of the tests a global name stands for: itself, or a class's methods."""
    if isinstance(value, type):
        members = [getattr(member, "__func__", member) for member in list(vars(value).values())]  # static, class
        members += [f for member in members if isinstance(member, property) for f in (member.fget, member.fset)]
    else:
        members = [value]
    return [member for member in members if isinstance(member, types.FunctionType) and _ours(member)]


def _unwrapped(function: Any) -> Any:
    """The function a test's author wrote, under Hypothesis's and functools' wrappers."""
    function = getattr(function, "__func__", function)
    inner = getattr(getattr(function, "hypothesis", None), "inner_test", None)
    return inspect.unwrap(inner or function)


@dataclass(frozen=True)
class _Facts:
    names: frozenset[str]  # the names its code uses, modules it imports among them
    loaded: tuple[Any, ...]  # what those names stand for among its globals
    calls: tuple[Any, ...]  # the functions of the tests among them (a class's methods for a class)


@functools.cache
def _facts(function: types.FunctionType) -> _Facts:
    """What one function's code names and loads, read once (many tests share their helpers)."""
    names: set[str] = set()
    loaded: list[Any] = []
    own: dict[str, Any] = function.__globals__
    for nested in _codes(function.__code__):
        names.update(nested.co_names)
        namespaces = [own, *(vars(own[name]) for name in nested.co_names if _ours_module(own.get(name)))]
        loaded += [namespace[name] for name in nested.co_names for namespace in namespaces if name in namespace]
    calls = [f for value in loaded for f in _functions(value)]
    return _Facts(frozenset(names), tuple(loaded), tuple(dict.fromkeys(calls)))


def reaches(functions: Iterable[Any], use: Use) -> bool:
    """Whether these functions, or what under tests/ they call, make this use: load a global name
    that stands for one of its objects, or import one of its modules in their own body.

    Read from their code (the names each one loads), not by running them: tiers are needed before
    anything runs.  A name that is a function or class of the tests is followed; one that is a
    module of the tests (`import cli_inprocess`) lends its functions to the names loaded beside it.
    An import is seen by its module's name among the names the code uses.  (An attribute's name is
    read as a global's or a module's too: at worst that puts a test in a slower tier, never a faster.)
    """
    todo = [f for f in map(_unwrapped, functions) if isinstance(f, types.FunctionType) and _ours(f)]
    seen: set[types.FunctionType] = set()
    while todo:
        function = todo.pop()
        if function in seen:
            continue
        seen.add(function)
        facts = _facts(function)
        if facts.names & use.modules or any(use.made_by(value) for value in facts.loaded):
            return True
        todo += facts.calls
    return False


def _fixture_functions(item: pytest.Item) -> list[Any]:
    """The functions of every fixture the test uses, its own and the ones those ask for."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    return [definition.func for definitions in info.name2fixturedefs.values() for definition in definitions]


def tier_of(item: pytest.Item) -> str:
    """The tier a test belongs in, from what it uses (see the module's docstring)."""
    if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "browser"
    used = _used(getattr(item, "obj", None), *_fixture_functions(item))
    if used == "cli":
        return "cli"
    if used == "page" or SLOW_NAMES.fullmatch(item.nodeid.split("[")[0]):
        return "slow"
    return "unit"


@functools.cache
def _used(*functions: Any) -> str:
    """"cli", "page" or "": what a test's function and fixtures use (the same for each of its cases)."""
    if reaches(functions, CHILD_PROCESS):
        return "cli"
    return "page" if reaches(functions, PAGE_RUN) else ""


def tiers_marked(item: pytest.Item) -> list[str]:
    """The distinct tier markers a test carries, in TIERS order."""
    names = {mark.name for mark in item.iter_markers()}
    return [tier for tier in TIERS if tier in names]


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the tiers must be there to select by
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    found = config.stash.setdefault(TIERS_FOUND, {})
    for item in items:
        if not tiers_marked(item):
            item.add_marker(tier_of(item))
        found[item.nodeid] = tiers_marked(item)
