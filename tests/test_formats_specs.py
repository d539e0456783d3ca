"""One FormatSpec per format, declared by its module: the registry, the adapters and the files agree with it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from integrity.formats import (
    ADAPTERS,
    FORMAT_SPECS,
    FORMATS,
    READ_ONLY,
    SUFFIXES,
    FormatSpec,
    formats_for,
    implied_provider,
)
from integrity.formats import openai_chat as chat_module
from integrity.pipeline import target_provider
from integrity.providers import SPECS

ROOT = Path(__file__).resolve().parent.parent


def test_the_registry_is_built_from_the_specs_in_detection_order() -> None:
    assert tuple(ADAPTERS) == tuple(FORMAT_SPECS)
    assert all(ADAPTERS[name] is spec.adapter and spec.name == name for name, spec in FORMAT_SPECS.items())
    assert READ_ONLY == tuple(name for name, spec in FORMAT_SPECS.items() if spec.read_only)
    assert set(FORMATS) | set(READ_ONLY) == set(FORMAT_SPECS) and not set(FORMATS) & set(READ_ONLY)
    assert list(FORMAT_SPECS)[:2] == ["pi-ai", "openai-chat"]  # the detection order the text-only pick relies on


@pytest.mark.parametrize("name", list(FORMAT_SPECS))
def test_each_spec_says_what_its_adapter_does(name: str) -> None:
    spec = FORMAT_SPECS[name]
    evidence, fits = spec.detection
    assert evidence == spec.adapter.evidence and fits == spec.adapter.fits and spec.reader == spec.adapter.read
    if spec.read_only:
        assert spec.writer is None and spec.writes_as in FORMATS
    else:
        assert spec.writer == spec.adapter.build and spec.writes_as == name
    assert spec.provider is None or spec.provider in SPECS
    assert spec.refines is None or spec.refines in FORMAT_SPECS
    assert spec.container in ("", "jsonl", "array", "object")
    assert implied_provider(name) == spec.provider == target_provider(name)
    assert target_provider(name, "mistral") == "mistral"  # a named provider always wins


def test_a_providers_own_request_format_implies_that_provider() -> None:
    for provider, spec in SPECS.items():
        if spec.native_format == provider:
            assert FORMAT_SPECS[provider].provider == provider
    assert implied_provider("claude-code") == "anthropic" and implied_provider("gemini-cli") == "gemini"
    assert implied_provider("pi-ai") is None and implied_provider("no-such-format") is None
    assert implied_provider(None) is None


def test_every_real_file_ends_in_a_suffix_of_its_format() -> None:
    """tests/real is named <stem>.<format><suffix>: the suffix is one its format's spec lists."""
    checked = 0
    for path in sorted((ROOT / "tests" / "real").iterdir()):
        named = next((name for name in sorted(FORMAT_SPECS, key=len, reverse=True)
                      if re.search(rf"\.{re.escape(name)}\.", path.name)), None)
        if named is None:
            continue
        tail = path.name[path.name.index(f".{named}.") + len(named) + 1:]
        assert FORMAT_SPECS[named].suffix_of(tail) is not None, (path.name, FORMAT_SPECS[named].suffixes)
        assert named in formats_for(path.name), path.name
        checked += 1
    assert checked >= 40
    assert {".af", ".eval", ".traj"} <= set(SUFFIXES)
    assert formats_for("run.traj.json")[0] == "mini-swe-agent" and formats_for("agent.af") == ["letta"]


def test_a_spec_that_contradicts_its_adapter_is_refused() -> None:
    spec = FORMAT_SPECS["openai-chat"]
    with pytest.raises(ValueError, match="its adapter is named 'openai-chat'"):
        dataclasses.replace(spec, name="chat")
    with pytest.raises(ValueError, match="unknown container"):
        dataclasses.replace(spec, container="yaml")
    with pytest.raises(ValueError, match="suffixes must be file suffixes"):
        dataclasses.replace(spec, suffixes=("json",))
    with pytest.raises(ValueError, match="container 'jsonl', its adapter says 'object'"):
        dataclasses.replace(FORMAT_SPECS["swe-agent"], container="jsonl")
    with pytest.raises(ValueError, match="lacks evidence"):
        FormatSpec("broken", type("Adapter", (), {"NAME": "broken"})())
    assert FormatSpec("openai-chat", chat_module).container == ""


def test_docs_formats_lists_every_format_of_the_registry() -> None:
    """docs/formats.md is written by hand, so it is checked: every format's name appears in a table row."""
    rows = [line for line in (ROOT / "docs" / "formats.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"`([a-z0-9-]+)`", row.split(" | ")[0])}
    assert set(FORMAT_SPECS) <= listed, sorted(set(FORMAT_SPECS) - listed)
