"""inspector.safe_text: hostile characters become visible markers (or JSON escapes), server paths leave error text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (requirements-dev installs tomli there)
    import tomli as tomllib

from inspector.rows import preview, raw_json
from inspector.safe_text import escape_json, has_hostile, neutralize, safe_filename, without_paths

ROOT = Path(__file__).resolve().parent.parent

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f",
        "\u061c"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


@pytest.mark.parametrize("char", BIDI + ZERO_WIDTH + ["\ud800", "\udfff", "\x07", "\x9b", "\U000e0041", "\u00ad"])
def test_every_hostile_character_becomes_a_visible_marker(char: str) -> None:
    shown = neutralize(f"a{char}b")
    assert shown == f"a⟨U+{ord(char):04X}⟩b" or shown in ("a⟨CSI⟩b",)
    assert not has_hostile(shown)
    shown.encode("utf-8")  # always sendable to the browser


def test_ansi_escapes_are_shown_as_esc_and_plain_text_is_untouched() -> None:
    assert neutralize("\x1b[31mred\x1b[0m") == "⟨ESC⟩[31mred⟨ESC⟩[0m"
    plain = "héllo wörld 😀 中文 — tab\tand\nnewline"
    assert neutralize(plain) is plain


def test_a_reversed_file_name_reads_in_its_real_order() -> None:
    assert neutralize("invoice_\u202efdp.exe") == "invoice_⟨U+202E⟩fdp.exe"


def test_ids_that_only_look_equal_are_shown_different() -> None:
    assert neutralize("call_1") != neutralize("call\u200b_1")


def test_escape_json_keeps_the_same_json_value_and_shows_every_hostile_character() -> None:
    value = {"id": "call\u200b1", "name": "\u2066x\u202e", "text": "\ud83d half", "tag": "\U000e0041", "esc": "\x1b"}
    text = escape_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(text) == value
    assert not has_hostile(text)
    assert '"call\\u200b1"' in text and '"\\u2066x\\u202e"' in text and "\\ud83d" in text and "\\udb40\\udc41" in text


def test_previews_and_raw_json_of_the_inspector_are_neutralized() -> None:
    message = {"role": "assistant", "content": [{"type": "toolCall", "id": "c\u202e1", "name": "x\x1b[2J"}]}
    assert preview(message) == "assistant → x⟨ESC⟩[2J#c⟨U+202E⟩1"
    text, cut = raw_json(message)
    assert not cut and '"c\\u202e1"' in text and json.loads(text) == message


def test_safe_filename_drops_hostile_characters_and_separators() -> None:
    assert safe_filename("\u202egnp.exe") == "gnp.exe"
    assert safe_filename("../../etc/passwd") == "_.._etc_passwd"
    assert safe_filename("\u200b") == "transcript.json"


def test_without_paths_keeps_names_and_drops_server_folders() -> None:
    text = f'File "{ROOT}/integrity/store.py", line 3; /home/someone/secret/data.db; https://example.org/a/b'
    assert without_paths(text) == 'File "integrity/store.py", line 3; …/data.db; https://example.org/a/b'


def test_the_app_listens_on_this_machine_only_and_limits_uploads() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
    assert 0 < config["server"]["maxUploadSize"] <= 200
    assert config["client"]["showErrorDetails"] == "none"
    assert config["browser"]["gatherUsageStats"] is False


def test_the_overview_shows_as_much_of_a_struck_through_message_as_of_any_other() -> None:
    """A dropped duplicate's text is struck through with a combining mark after each character: cut by
    length alone, the overview showed half as much of it (audit of the Inspector's overview)."""
    from inspector.rows import aligned_rows
    from inspector.theme import STRIKE
    from inspector.ui import overview_frame
    from integrity import analyze, load

    name = "crash_duplicate.anthropic.json"
    analysis = analyze(load((Path(__file__).resolve().parent.parent / "sample_transcripts" / name).read_bytes(),
                            name), "strict")
    rows = aligned_rows(analysis)
    frame = overview_frame(rows, analysis)
    [struck] = [n for n, row in enumerate(rows) if row.kind == "dropped_duplicate"]
    shown = frame["message"][struck]
    whole = rows[struck].left_text.replace(STRIKE, "")
    assert len(whole) > 45  # long enough for the old cut to show
    assert shown.replace(STRIKE, "") == whole[:90]
    assert all(len(text) <= 90 for n, text in enumerate(frame["message"]) if n != struck)


def test_a_call_without_an_id_reads_the_same_in_the_tables_and_the_conversation() -> None:
    """The conversation wrote '(no id)' where the tables wrote 'convert_currency#' with nothing after it."""
    from inspector.theme import id_text

    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "", "name": "convert_currency",
                                              "arguments": {}}]}
    result = {"role": "toolResult", "toolCallId": "", "toolName": "convert_currency",
              "content": [{"type": "text", "text": "92.31 EUR"}]}
    assert preview(call) == "assistant → convert_currency#(no id)"
    assert preview(result).startswith("result for convert_currency#(no id): ")
    assert id_text("") == "(no id)" and id_text("call_1") == "call_1"
