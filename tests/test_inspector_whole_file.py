"""A file holding several transcripts: the Inspector and the Report say the file's verdict as `check` gives it.

`check FILE` judges every transcript of a file and exits 1 when any needs repair.  The pages show one
transcript at a time; they said "✔ healthy" and "safe to send" for a Claude Code session whose main thread
is healthy while its sidechain has a call with no result, and offered the whole file (the sidechain still
broken) as the safe download.  Now the headline states the file's verdict first, labels the rest as the shown
transcript's, the picker marks the transcripts that need repair, and "safe to send" is said only when `check`
passes every transcript in the bytes offered (tests/real/cc_sidechain_interrupted: a real Claude Code
session's shape; the fine-tuning file below is one transcript per line).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import streamlit as st
from cli_inprocess import run
from streamlit.testing.v1 import AppTest

from inspector import ui
from integrity import Transcript, analyze, load_all
from integrity.download import download
from integrity.file_verdict import check_file

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SIDECHAINS = "cc_sidechain_interrupted.claude-code.jsonl"
BROKEN = "sidechain:a3f9c2d1"
FINETUNE = "finetune_multi.openai-chat.jsonl"
FINETUNE_LINES = [  # line 1 healthy; line 2 a call with no result; line 3 a result with no call
    '{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": null, "tool_calls": [{"id": '
    '"c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": '
    '"c1", "content": "ok"}, {"role": "assistant", "content": "ok"}]}',
    '{"messages": [{"role": "user", "content": "b"}, {"role": "assistant", "content": null, "tool_calls": [{"id": '
    '"c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}, {"role": "assistant", "content": '
    '"no result"}]}',
    '{"messages": [{"role": "user", "content": "c"}, {"role": "tool", "tool_call_id": "zz", "content": "stray"}, '
    '{"role": "assistant", "content": "x"}]}',
]


@pytest.fixture
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "real" / SIDECHAINS, folder / SIDECHAINS)
    (folder / FINETUNE).write_text("\n".join(FINETUNE_LINES) + "\n")
    monkeypatch.setenv("INTEGRITY_STORE_ROOT", str(folder))
    st.cache_resource.clear()
    st.cache_data.clear()
    return folder


def opened(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in {"policy": "strict", "view": "table", **params}.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def headline(at: AppTest) -> str:
    return next(c.value for c in at.code if "this file:" in c.value or c.value[:1] in "✔⚒⚠")


def test_the_inspector_says_the_files_verdict_before_a_healthy_main_thread(data_folder: Path) -> None:
    at = opened("pages/inspector_page.py", file=SIDECHAINS)
    said = headline(at)
    lines = said.splitlines()
    assert lines[0].startswith("⚠ this file: 1 of 2 transcripts needs repair: sidechain:a3f9c2d1"), said
    assert "`check` exits 1" in lines[0]
    assert lines[1].startswith("transcript main: ✔ healthy"), said  # labelled as the main thread's
    assert not any(line.startswith("✔") for line in lines), said
    # the download (the whole file, its sidechain as recorded) is what `check` rejects: never "safe to send"
    repaired = next(line for line in lines if "the repaired view of transcript main" in line)
    assert "not safe to send" in repaired and BROKEN in repaired, repaired
    assert "the download is the whole file" in said


def test_the_picker_marks_the_transcripts_that_need_repair_and_main_stays_the_default(data_folder: Path) -> None:
    data = (data_folder / SIDECHAINS).read_bytes()
    at = opened("pages/inspector_page.py", file=SIDECHAINS)
    picker = at.selectbox(key=f"thread_{ui.digest_of(data)}")
    assert picker.value == "main"
    assert picker.options == ["main", f"{BROKEN}  (needs repair)"], picker.options
    picker.set_value(BROKEN).run()
    said = headline(at)
    assert said.splitlines()[1].startswith(f"transcript {BROKEN}: ⚒ repaired"), said
    # the sidechain's view written back into the file: every transcript in it passes, so it may be called safe
    assert "accepted: safe to send" in said, said


def test_the_report_page_never_calls_the_file_healthy(data_folder: Path) -> None:
    at = opened("pages/report.py", file=SIDECHAINS)
    said = at.code[0].value
    assert said.startswith("⚠ this file: 1 of 2 transcripts needs repair"), said
    assert "\ntranscript main: ✔ healthy" in said
    download_line = next(t.value for t in at.text if t.value.startswith("⬇ Repaired transcript"))
    assert "not safe to send" in download_line and BROKEN in download_line, download_line
    markdown = next(m.value for m in at.markdown if "**Verdict" in m.value)
    assert "**File:** `1 of 2 transcripts needs repair: sidechain:a3f9c2d1 (repaired)`" in markdown
    assert "transcript `main` healthy: yes" in markdown and "· healthy: yes" not in markdown


def test_one_transcript_per_line_each_download_labelled_as_that_lines(data_folder: Path) -> None:
    at = opened("pages/inspector_page.py", file=FINETUNE)
    said = headline(at)
    assert said.startswith("⚠ this file: 2 of 3 transcripts need repair: line:2 (repaired), line:3 (repaired)"), said
    assert said.splitlines()[1].startswith("transcript line:1: ✔ healthy"), said
    # line 1 alone passes `check`: safe to send, said of that line alone
    assert "safe to send" in said and "the download holds transcript line:1 alone" in said, said


def test_a_file_of_one_transcript_keeps_its_headline(data_folder: Path) -> None:
    at = opened("pages/inspector_page.py", sample="split_results.bedrock.json")
    said = headline(at)
    assert said[:1] in "✔⚒⚠" and "this file:" not in said and "transcript " not in said.splitlines()[0], said


def _read(path: Path, name: str) -> Transcript:
    return next(t for t in load_all(path.read_bytes(), str(path)) if t.name == name)


def test_safe_to_send_is_what_check_says_of_every_transcript_in_the_download(tmp_path: Path) -> None:
    path = ROOT / "tests" / "real" / SIDECHAINS
    main = analyze(_read(path, "main"), "strict", provider="anthropic")
    offered = download(main, "anthropic")
    out = tmp_path / "main.jsonl"
    out.write_bytes(offered.data)
    assert run("check", "--provider", "anthropic", out).code == 1  # the sidechain, still broken in the bytes
    assert not offered.safe_to_send and BROKEN in offered.left
    assert offered.holds == ("main", BROKEN)
    # the sidechain's download is what `repair` writes for the file (it repairs the one transcript needing it)
    side = analyze(_read(path, BROKEN), "strict", now=lambda: 0, provider="anthropic")
    offered = download(side, "anthropic")
    written = tmp_path / "repaired.jsonl"
    assert run("repair", "--now", "0", path, "-o", written).code == 0
    assert offered.data == written.read_bytes()
    assert offered.safe_to_send and run("check", "--provider", "anthropic", written).code == 0


@pytest.mark.parametrize("name", [SIDECHAINS, FINETUNE])
def test_the_files_verdict_is_checks(name: str, data_folder: Path) -> None:
    path = data_folder / name
    verdict = check_file(load_all(path.read_bytes(), str(path)))
    result = run("check", path)
    assert verdict.exit_code == result.code == 1
    for thread, said in verdict.results.items():
        assert f"{path}#{thread}: {said.verdict}" in result.stdout.decode()


def test_a_compacted_away_part_says_it_is_never_sent(data_folder: Path) -> None:
    """Picked in the sidebar, a part a compaction replaced is shown judged as if it were sent, with the status and
    the reason `check` lists it with beside the picker (the same words, pipeline.unjudged)."""
    name = "codex_compacted.codex.jsonl"
    shutil.copy(ROOT / "tests" / "real" / name, data_folder / name)
    data = (data_folder / name).read_bytes()
    at = opened("pages/inspector_page.py", file=name)
    picker = at.selectbox(key=f"thread_{ui.digest_of(data)}")
    assert picker.options == ["main", "compacted:1  (compacted away)"], picker.options
    assert not [i for i in at.sidebar.info if "compacted away" in i.value]
    picker.set_value("compacted:1").run()
    [said] = [i.value for i in at.sidebar.info if "compacted away" in i.value]
    assert "a compaction replaced it: never sent to the model again, so not checked" in said
    assert "`check --thread" in said
