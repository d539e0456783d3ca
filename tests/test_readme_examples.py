"""The README is the front door: what it shows must be what a new user gets.

Why: the README pastes real output of `integrity check` and of a Python snippet. Wording
changes in the engine would silently make those pastes false; here each `console` block's
command is run as a user would type it (through bash, from the project folder) and each
`python` block is run, and their output is compared with what the README shows.

After an intended change of wording, refresh the pastes with
`python3 tests/test_readme_examples.py --update` and read the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str, int, int]]:
    """Every fenced block: (language, body, start and end of the body in the text)."""
    return [(m.group(1), m.group(2), m.start(2), m.end(2)) for m in FENCE.finditer(text)]


def console_examples(text: str) -> list[tuple[str, str]]:
    """(command, shown output) of each `console` block: its first line is `$ command`."""
    found = []
    for language, body, _, _ in blocks(text):
        if language == "console":
            first, _, shown = body.partition("\n")
            assert first.startswith("$ "), f"README.md: a console block must start with '$ ': {first!r}"
            found.append((first[2:], shown))
    return found


def python_examples(text: str) -> list[tuple[str, str]]:
    """(code, shown output) of each `python` block followed by a `text` block (its output)."""
    found = []
    found_blocks = blocks(text)
    for (language, body, _, end), (after, output, start, _) in pairwise(found_blocks):
        between = text[end:start]
        if language == "python" and after == "text" and between.count("```") == 2 and len(between) < 80:
            found.append((body, output))
    return found


def _env() -> dict[str, str]:
    """`python3` in the commands is the interpreter running the tests (a venv's, say)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def run_console(command: str) -> str:
    done = subprocess.run(["bash", "-c", command], cwd=REPO, env=_env(), capture_output=True, timeout=120)
    assert not done.stderr, f"{command}: wrote to stderr: {done.stderr.decode(errors='replace')}"
    return done.stdout.decode()


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=_env(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


def test_the_readme_opens_with_the_two_set_up_commands_and_stays_short() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    code = [body.strip() for language, body, _, _ in blocks(text)]
    assert code[:2] == ["python3 -m pip install -r requirements.txt && python3 -m streamlit run app.py",
                        "bash run_tests.sh"]
    assert (REPO / "requirements.txt").is_file() and (REPO / "app.py").is_file() and (REPO / "run_tests.sh").is_file()


def test_the_readme_shows_a_check_and_a_check_with_a_provider() -> None:
    commands = [command for command, _ in console_examples(README.read_text(encoding="utf-8"))]
    checks = [c for c in commands if c.startswith("python3 -m integrity check ")]
    assert checks and any("--provider" in c for c in checks) and any("--provider" not in c for c in checks)


_CONSOLE = console_examples(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize("command, shown", _CONSOLE, ids=[command.split(";")[0] for command, _ in _CONSOLE])
def test_each_command_in_the_readme_prints_what_the_readme_shows(command: str, shown: str) -> None:
    assert run_console(command) == shown


def test_the_python_example_in_the_readme_prints_what_the_readme_shows() -> None:
    examples = python_examples(README.read_text(encoding="utf-8"))
    assert examples, "README.md: no python block followed by its output"
    for code, shown in examples:
        assert len(code.strip().splitlines()) <= 5
        assert run_python(code) == shown


def update() -> None:
    """Rewrite every pasted output in README.md with what the commands print now."""
    text = README.read_text(encoding="utf-8")
    edits: list[tuple[int, int, str]] = []
    found = blocks(text)
    for index, (language, body, start, end) in enumerate(found):
        if language == "console":
            first, _, _ = body.partition("\n")
            edits.append((start, end, f"{first}\n{run_console(first[2:])}"))
        elif language == "text" and index and found[index - 1][0] == "python":
            edits.append((start, end, run_python(found[index - 1][1])))
    for start, end, new in reversed(edits):
        text = text[:start] + new + text[end:]
    README.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python3 tests/test_readme_examples.py --update")
    update()
