"""`repair`'s exit status and the pages' "safe to send" say what `check` says of the bytes written.

Found by a review of every surface on the same files: `repair --provider P` re-checked its output by another
target than `check --provider P`; `repair --thread X` re-checked only X of the whole file it wrote; repairing a
compacted-away part of a Codex rollout wrote a result into the part Codex sends; and a page showing an abandoned
branch judged its download by the main thread's verdict alone, under the branch's name."""

from __future__ import annotations

import json
from pathlib import Path

from cli_inprocess import run

from integrity import analyze, load_all
from integrity.download import download

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "real"


def test_repair_for_a_provider_exits_as_check_for_that_provider(tmp_path: Path) -> None:
    """An Anthropic request with an empty text: OpenAI Chat takes it (check --provider openai-chat: 0), so
    repair --provider openai-chat has nothing left to flag either; Anthropic, the file's own target, still
    refuses it, which is check's answer without --provider."""
    source = ROOT / "sample_transcripts" / "empty_text_on_resume.anthropic.json"
    out = tmp_path / "out.json"
    assert run("check", "--provider", "openai-chat", source).code == 0
    result = run("repair", "--provider", "openai-chat", source, "-o", out)
    assert result.code == 0 and "still flags" not in result.stderr, result.stderr
    assert run("check", "--provider", "openai-chat", out).code == 0
    assert run("check", source).code == 1


def test_repair_of_one_thread_exits_1_when_check_still_flags_another_in_the_file(tmp_path: Path) -> None:
    source = REAL / "cc_sidechain_interrupted.claude-code.jsonl"
    out = tmp_path / "out.jsonl"
    result = run("repair", "--now", "0", "--thread", "main", source, "-o", out)
    assert run("check", out).code == 1  # the sidechain is written as it was: still unanswered
    assert result.code == 1 and "its transcript sidechain:a3f9c2d1: anthropic would still reject it" in result.stderr


def test_a_report_of_a_file_whose_other_transcripts_are_abandoned_branches_describes_the_one_sent(
        tmp_path: Path) -> None:
    """A rewound pi session: check judges main and lists the abandoned branch as never sent. `repair --report`
    describes main, as `--thread main` does, and gives the file back byte for byte (it asked for --thread)."""
    source = REAL / "pi_tree_branch.pi-session.jsonl"
    out, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    result = run("repair", "--now", "0", source, "-o", out, "--report", report)
    assert result.code == 0 and "reporting on" in result.stderr and "#main" in result.stderr, result.stderr
    assert out.read_bytes() == source.read_bytes()
    said = json.loads(report.read_text(encoding="utf-8"))
    threaded = tmp_path / "threaded.json"
    assert run("repair", "--now", "0", "--thread", "main", source, "-o", tmp_path / "t.jsonl",
               "--report", threaded).code == 0
    assert said == json.loads(threaded.read_text(encoding="utf-8")) and said["healthy"] and not said["changed"]


def test_a_compacted_away_part_is_not_repaired(tmp_path: Path) -> None:
    """Codex never sends the items before a compaction: a result written for one of their calls would be appended
    after the compaction, into the part Codex sends, and make it broken. One error line, nothing written."""
    source = REAL / "codex_compacted.codex.jsonl"
    out = tmp_path / "out.jsonl"
    result = run("repair", "--now", "0", "--thread", "compacted:1", source, "-o", out)
    assert result.code == 2 and not out.exists()
    assert len(result.stderr.strip().splitlines()) == 1 and "--thread compacted:1" in result.stderr
    assert run("repair", "--now", "0", source, "-o", out).code == 0 and run("check", out).code == 0


def test_a_branchs_download_is_judged_as_check_judges_the_whole_file(tmp_path: Path) -> None:
    """The branch of a rewound Claude Code session, its view planned for Mistral: the download is the whole file,
    and what check --provider mistral still flags in it is main's renamed ids, said as main's."""
    source = REAL / "cc_rewind.claude-code.jsonl"
    transcripts = load_all(source.read_bytes(), str(source))
    [branch] = [t for t in transcripts if not t.checked]
    offered = download(analyze(branch, "strict", provider="mistral"), "mistral")
    assert offered.holds == tuple(t.name for t in transcripts)  # the whole file, main included
    out = tmp_path / "download.jsonl"
    out.write_bytes(offered.data)
    said = run("check", "--provider", "mistral", out)
    assert said.code == 1 and "#main: " in said.stdout.decode()
    assert not offered.safe_to_send and offered.left.startswith("its transcript main: "), offered.left
    assert offered.recheck is not None and offered.recheck.thread == branch.name
