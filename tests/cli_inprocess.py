"""Running `integrity.cli.main` in this process, with its standard streams captured.

A subprocess costs about half a second of start-up; the safety and fuzz tests run
the CLI hundreds of times, so they call main() directly and keep a handful of real
subprocess runs for what only a real process shows (signals, pipes, memory limits).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from integrity.cli import main

REPO = Path(__file__).resolve().parents[1]
CODES = {0, 1, 2}  # the verdicts and "unreadable / refused"; 70 (internal error) must never appear


@dataclass
class Result:
    code: int
    stdout: bytes
    stderr: str

    @property
    def error_lines(self) -> list[str]:
        """stderr's lines that report a problem ("note: ..." lines only inform: what was written and why)."""
        return [line for line in self.stderr.splitlines() if line.strip() and not line.startswith("note: ")]


def run(*argv: Any, stdin: bytes = b"") -> Result:
    """main(argv) with stdin/stdout/stderr captured (stdout as bytes: repair writes bytes to it)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main([str(a) for a in argv])
            except SystemExit as stop:  # argparse usage errors
                code = stop.code if isinstance(stop.code, int) else 2
    finally:
        sys.stdin = saved_stdin
    out.flush()
    raw = out.buffer
    assert isinstance(raw, io.BytesIO)
    return Result(code, raw.getvalue(), err.getvalue())


def run_process(*argv: Any, stdin: bytes | None = None, timeout: float = 60,
                **options: Any) -> subprocess.CompletedProcess[bytes]:
    """`python -m integrity argv` as a user runs it, from the repository root."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "integrity", *[str(a) for a in argv]], cwd=REPO, env=env,
                          input=stdin, capture_output=True, timeout=timeout, **options)


def assert_clean_failure(result: Result, code: int = 2) -> str:
    """Exit `code`, exactly one line on stderr, no traceback; returns the line."""
    assert result.code == code, (result.code, result.stderr)
    assert len(result.error_lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.error_lines[0]


def passes_check(path: Path) -> bool:
    """Whether `check` passes what repair wrote, but for the order of turns: without --provider the strict
    view plans no provider's order of turns, so a user message right after a tool result stays, and the
    providers with role rules (Bedrock, Mistral) still refuse it; check says so (exit 1), and that must be
    all that is wrong (nothing left to change, no finding)."""
    from integrity.providers import PROVIDERS
    from integrity.repair.legalize import has_role_rules

    checked = run("check", "--json", path)
    if checked.code == 0:
        return True
    report = json.loads(checked.stdout)
    rejected = {name for name, said in (report.get("as_recorded") or {}).items() if said == "rejected"}
    return (checked.code == 1 and not report["changed"] and not report["findings"]
            and 0 < len(rejected) < len(PROVIDERS) and all(has_role_rules(name) for name in rejected)
            and report["verdict"].startswith("would be rejected: "))


def repaired_with_report(folder: Path, messages: list[Any], provider: str) -> tuple[Any, dict[str, Any]]:
    """`repair --provider P -o view --report report` on these messages written as a file in `folder`: exit 0 and
    the input file untouched (asserted); the view written, and the report."""
    path, out, report = folder / "session.json", folder / "view.json", folder / "report.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    before = path.read_bytes()
    result = run("repair", path, "--provider", provider, "-o", out, "--report", report)
    assert result.code == 0, result.stderr
    assert path.read_bytes() == before
    return json.loads(out.read_bytes()), json.loads(report.read_bytes())
