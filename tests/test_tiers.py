"""Every test is in exactly one tier (unit, cli, browser, slow), and the tiers follow what a test uses.

tests/conftest.py assigns the tiers at collection and records them before `-m` deselects anything,
so this file sees every collected test even in a run of one tier.  docs/testing.md says what each
tier is for and how long it takes.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import cli_inprocess
import conftest
import pytest
import test_cli
import test_fuzz

ROOT = Path(__file__).resolve().parents[1]


def test_every_collected_test_has_exactly_one_tier(request: pytest.FixtureRequest) -> None:
    found = request.config.stash[conftest.TIERS_FOUND]
    assert request.node.nodeid in found  # the record is this session's collection
    wrong = {nodeid: tiers for nodeid, tiers in found.items() if len(tiers) != 1}
    assert wrong == {}, f"{len(wrong)} test(s) with no tier or more than one: {sorted(wrong.items())[:10]}"
    assert {tier for tiers in found.values() for tier in tiers} <= set(conftest.TIERS)


def test_the_tiers_are_registered_and_no_other_marker_is_accepted(request: pytest.FixtureRequest) -> None:
    registered = [line.split(":")[0] for line in request.config.getini("markers")]
    assert [name for name in registered if name in conftest.TIERS] == list(conftest.TIERS)
    assert "--strict-markers" in request.config.getini("addopts")  # a misspelt tier is an error, not a new marker


def test_every_slow_entry_names_a_test_that_exists(request: pytest.FixtureRequest) -> None:
    """A renamed or removed test must leave the hand list too (else the list rots unseen)."""
    found = [nodeid.split("[")[0] for nodeid in request.config.stash[conftest.TIERS_FOUND]]
    for key in conftest.SLOW:
        path, name = key.split("::")
        assert (ROOT / path).is_file(), f"SLOW names {key}: no such file"
        collected = [nodeid for nodeid in found if nodeid.startswith(path + "::")]
        if collected:  # else this run did not collect the file
            named = re.compile(".*".join(map(re.escape, key.split("*"))))
            assert any(named.fullmatch(nodeid) for nodeid in collected), f"SLOW names {key}: no such test"


# What the rules read: never called, only looked at.

def _spawns_directly() -> None:
    subprocess.run(["true"], check=True)


def _spawns_through_a_helper() -> None:
    _spawns_directly()


class _Worker:
    def start(self) -> Any:
        return subprocess.Popen(["true"])


def _spawns_through_a_class() -> None:
    _Worker().start()


def _spawns_with_an_import_of_its_own() -> None:
    import subprocess as child

    child.check_output(["true"])


def _spawns_in_a_nested_function() -> None:
    def inner() -> None:
        _spawns_through_a_helper()

    inner()


def _spawns_through_a_module_of_the_tests() -> None:
    cli_inprocess.run_process("check")


def _runs_the_cli_in_this_process() -> None:
    cli_inprocess.run("check")


def _runs_a_page() -> None:
    from streamlit.testing.v1 import AppTest

    AppTest.from_file("app.py")


def _plain() -> int:
    return len([1, 2])


# (function, starts a process, runs a page): given as parameters, so this test's own code names none of them
CASES = [(_spawns_directly, True, False), (_spawns_through_a_helper, True, False),
         (_spawns_through_a_class, True, False), (_spawns_with_an_import_of_its_own, True, False),
         (_spawns_in_a_nested_function, True, False), (_spawns_through_a_module_of_the_tests, True, False),
         (test_cli.test_check_healthy_exits_0, True, False), (test_fuzz.test_garbage_in_a_real_process, True, False),
         (_runs_the_cli_in_this_process, False, False), (test_fuzz.test_random_bytes, False, False),
         (_runs_a_page, False, True), (_plain, False, False)]


@pytest.mark.parametrize(("function", "process", "page"), CASES, ids=[case[0].__name__ for case in CASES])
def test_the_rules_see_what_a_function_uses_through_what_it_calls(function: Any, process: bool, page: bool) -> None:
    assert conftest.reaches([function], conftest.CHILD_PROCESS) is process
    assert conftest.reaches([function], conftest.PAGE_RUN) is page


def test_known_tests_are_in_their_tiers(request: pytest.FixtureRequest) -> None:
    """One test of each kind, as collected in this session (a run of one file collects only that file)."""
    found = request.config.stash[conftest.TIERS_FOUND]
    expected = {
        "tests/test_e2e_truth.py::test_unknown_links_say_so": "browser",  # the browser and server fixtures
        "tests/test_e2e_report_batch.py::test_every_defect_bar_on_batch_has_its_whole_name": "browser",  # via `page`
        "tests/test_cli.py::test_check_healthy_exits_0": "cli",
        "tests/test_faults.py::test_sigterm_settles_in_flight_calls_and_releases_the_session": "cli",
        "tests/test_quiz.py::test_the_page_checks_answers_and_points_to_the_lessons": "slow",  # AppTest
        "tests/test_triage.py::test_triage_on_a_local_cluster_matches_sequential_check": "cli",  # a Dask cluster
        "tests/test_fuzz.py::test_odd_file_names": "slow",  # SLOW
        "tests/test_formats_roundtrip.py::test_round_trip_gemini": "slow",  # SLOW, by a name with a `*`
        "tests/test_formats_roundtrip.py::test_every_format_has_a_renderer": "unit",
        "tests/test_fuzz.py::test_random_bytes": "unit",
        request.node.nodeid: "unit",
    }
    for nodeid, tier in expected.items():
        if nodeid in found:
            assert found[nodeid] == [tier], nodeid
