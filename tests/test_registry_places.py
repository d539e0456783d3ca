"""Facts listed once: providers, kinds and formats are iterated from their registries, never re-listed.

A new provider is its module plus one line in integrity/providers/registry.py; a new repair kind is its
registry entry (integrity/kinds.py) plus the planner and the materializer that make it; a new format is
its module plus its line in the format registry.  What keeps those counts is that no other file lists
them by hand: this test reads every module of the engine, the inspector and the pages with `ast` and
fails on any list, tuple, set or dict literal that names three or more providers, summary counts or
formats outside the files that define them.  Three, because a lesson's claims or an example may
name one or two by design (that is content, not a registry).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from integrity.formats import FORMATS
from integrity.kinds import summary_counts
from integrity.providers import PROVIDERS, SPECS, spec
from integrity.providers.spec import Endpoint

REPO = Path(__file__).resolve().parents[1]
CODE = sorted([*(REPO / "integrity").rglob("*.py"), *(REPO / "inspector").rglob("*.py"),
               *(REPO / "pages").glob("*.py"), REPO / "app.py"])


def _literals(path: Path) -> list[tuple[int, set[str]]]:
    """(line, the strings) of every list, tuple, set and dict literal in a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        items: list[ast.expr | None] = []
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        strings = {item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)}
        if strings:
            found.append((node.lineno, strings))
    return found


def _relisted(names: set[str], allowed: set[str]) -> list[str]:
    places = []
    for path in CODE:
        where = str(path.relative_to(REPO))
        if where in allowed or any(where.startswith(prefix) for prefix in allowed if prefix.endswith("/")):
            continue
        for line, strings in _literals(path):
            named = strings & names
            if len(named) >= 3:
                places.append(f"{where}:{line}: {sorted(named)}")
    return places


def test_no_file_lists_the_providers_by_hand() -> None:
    # a provider whose requests are a format of their own shares its name with that format's module; the
    # guards map the runtimes' model names ("claude-", "vertex_ai/") and read each native shape fast
    # (integrity/guards/_core.py, _fast.py: follow-up, move the model prefixes onto ProviderSpec)
    allowed = {"integrity/providers/", "integrity/formats/", "integrity/schema/", "integrity/guards/"}
    assert _relisted(set(PROVIDERS), allowed) == []


def test_no_file_lists_the_summary_counts_by_hand() -> None:
    fields = {field for field, _ in summary_counts()}
    assert _relisted(fields, {"integrity/kinds.py", "integrity/_diagnosis.py"}) == []


def test_no_file_lists_the_formats_by_hand() -> None:
    # windowed.PROOFS and sparse._PAIRS are keyed by provider (each provider's proof, the neighbours its role
    # rules read), and five providers share their name with their native format; their formats come from
    # registry.PROVIDER_FORMAT
    allowed = {"integrity/formats/", "integrity/schema/", "integrity/guards/", "integrity/providers/windowed.py",
               "integrity/providers/sparse.py"}
    assert _relisted(set(FORMATS), allowed) == []


def test_the_checker_sees_a_hand_made_list(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("NAMES = ('anthropic', 'gemini', 'bedrock')\nONE = ['anthropic']\n")
    assert [line for line, strings in _literals(module) if len(strings & set(PROVIDERS)) >= 3] == [1]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_says_where_its_requests_go(provider: str) -> None:
    """'Copy as curl' and the docs read the endpoint from the spec: no provider falls back to a guess."""
    from inspector.diagnostics import curl_command

    endpoint = spec(provider).endpoint
    assert endpoint.url.startswith("https://") and endpoint.docs.startswith("https://")
    command = curl_command(provider, {"messages": []})
    assert f'"{endpoint.url}"' in command and "example.invalid" not in command
    for header in endpoint.headers:  # keys are variables, never values
        assert f'-H "{header}"' in command
        if "key" in header.lower() or "authorization" in header.lower():
            assert "$" in header


def test_a_provider_without_an_endpoint_is_refused() -> None:
    import dataclasses

    with pytest.raises(ValueError, match="names no endpoint"):
        dataclasses.replace(SPECS["anthropic"], endpoint=Endpoint(""))


def test_docs_providers_table_lists_every_provider_and_its_native_shape() -> None:
    """docs/providers.md's first table (provider, native shape) is checked against the registry."""
    text = (REPO / "docs" / "providers.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[1].startswith("`"):
            rows[cells[0].strip("`")] = cells[1].strip("`")
    assert rows == {name: found.native_format for name, found in SPECS.items()}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_copy_as_curl_sends_the_model_named_in_the_environment_and_the_transcript_as_written(
        provider: str, tmp_path: Path) -> None:
    """Found by review: the body's placeholder model "$MODEL" sat in a quoted here-document, so the shell never
    filled it in (Bedrock's URL, in double quotes, was filled in).  Run by sh with a curl that prints what it is
    sent: the model is the environment's, and the transcript's text (which names $HOME, `id` and "$MODEL") is
    sent as written."""
    import json
    import os
    import subprocess

    from inspector.diagnostics import curl_command

    hostile = 'hi $HOME `id` "$MODEL" $(id)'
    body = {**spec(provider).endpoint.fields, "messages": [{"role": "user", "content": hostile}]}
    fake = tmp_path / "curl"
    fake.write_text("#!/bin/sh\ncat\n")
    fake.chmod(0o755)
    environment = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "MODEL": "the-model"}
    sent = subprocess.run(["sh", "-c", curl_command(provider, body)], env=environment, capture_output=True,
                          text=True, timeout=30, check=True).stdout
    received = json.loads(sent)
    assert received["messages"][0]["content"] == hostile
    if "model" in body:
        assert received["model"] == "the-model"
