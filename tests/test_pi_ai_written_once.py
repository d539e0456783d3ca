"""A pi-ai file's repaired view is one file, whichever way it is asked for.

`repair` reads a pi-ai file on its fast path and writes every message the view keeps as its bytes in the file (only
the messages it changes are written anew, compact); `repair --report` reads it with the general reader, and the
Inspector's download writes the view the page holds (integrity.written).  Those two wrote the same JSON laid out
anew, indented: a reviewer who downloaded the repair the Report page showed got other bytes than the engineer who ran
`repair` on the same file, and a diff against the input showed every line changed.  They now write the fast writer's
bytes (_bulk.fast_read.write_spliced).  Held here for generated transcripts with every defect kind, in every
container the fast path reads (an indented or compact array, an object envelope, JSON lines with LF or CRLF), with a
system message first, under both policies and toward providers with and without rules on the order of turns.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity import analyze, load
from integrity.analysis import export_view

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)


def _layouts(messages: list[Any]) -> dict[str, bytes]:
    """The same messages in every container and layout the fast path reads."""
    lines = [json.dumps(message) for message in messages]
    return {
        "indented.json": json.dumps(messages, indent=2, ensure_ascii=False).encode(),
        "compact.json": json.dumps(messages, separators=(",", ":")).encode(),
        "envelope.json": json.dumps({"model": "m", "messages": messages}, indent=4).encode(),
        "lines.jsonl": ("\n".join(lines) + "\n").encode(),
        "crlf.jsonl": ("\r\n".join(lines) + "\r\n").encode(),
        "system.json": json.dumps([{"role": "system", "content": "Be brief."}, *messages], indent=2).encode(),
    }


CASES = [(f"{seed}-{rate}-{layout}", data)
         for seed, rate in itertools.product(range(2), (0.08, 0.5, 1.0))
         for layout, data in _layouts(list(generate.messages(200, seed=seed, defect_rate=rate))).items()]
SAMPLES = [(path.name, path.read_bytes()) for path in sorted((ROOT / "sample_transcripts").glob("*.pi-ai.json"))]
ASKED = [([], None, "strict"), (["--policy", "openmaic"], None, "openmaic"),
         (["--provider", "anthropic"], "anthropic", "strict"), (["--provider", "mistral"], "mistral", "strict")]


@pytest.mark.parametrize(("options", "provider", "policy"), ASKED, ids=["plain", "openmaic", "anthropic", "mistral"])
@pytest.mark.parametrize(("name", "data"), CASES + SAMPLES, ids=[name for name, _ in CASES + SAMPLES])
def test_repair_its_report_and_the_download_write_one_file(name: str, data: bytes, options: list[str],
                                                            provider: str | None, policy: str,
                                                            tmp_path: Path) -> None:
    source = tmp_path / name
    source.write_bytes(data)
    fast, general = tmp_path / "fast", tmp_path / "general"
    plain = run("repair", "--now", "0", *options, source, "-o", fast)
    reported = run("repair", "--now", "0", *options, source, "-o", general, "--report", tmp_path / "report.json")
    assert plain.code == reported.code
    written = fast.read_bytes()
    assert general.read_bytes() == written
    analysis = analyze(load(data, str(source)), policy=policy, provider=provider, now=lambda: 0)
    assert export_view(analysis, data=data) == written
    report = json.loads((tmp_path / "report.json").read_bytes())
    assert report["changed"] is (written != data)
    if name.endswith(("indented.json", "lines.jsonl")):
        # every message the view keeps as it is is written as its bytes in the file (indented, as read)
        originals = load(data, str(source)).messages
        text = written.decode()
        for action in report["actions"]:
            if action["kind"] == "kept" and not action["new_ids"]:  # (a call renamed for the provider changes)
                assert _as_in_file(originals[action["durable_index"]], name) in text, action


def _as_in_file(message: Any, name: str) -> str:
    """A message's text as _layouts wrote it in the indented array or the JSON lines."""
    if name.endswith("lines.jsonl"):
        return json.dumps(message)
    return json.dumps(message, indent=2, ensure_ascii=False).replace("\n", "\n  ")
