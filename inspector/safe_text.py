"""Make untrusted text safe to look at: invisible and reordering characters become visible markers.

Transcripts, file names and ids come from whoever wrote them.  Rendering them
as literal text (never Markdown or HTML) stops injection, but a few characters
still deceive a reader even as plain text:

- bidi controls (U+202A-202E, U+2066-2069, U+200E/F, U+061C) reorder what is
  shown: "txt.exe" with U+202E before "exe" displays as an innocent name;
- zero-width and other invisible format characters (U+200B-200D, U+2060-2064,
  U+FEFF, U+00AD, U+180E, tag characters U+E0000-E007F) make different ids look
  equal or hide text;
- ANSI escapes (ESC, and the C1 CSI U+009B) and other control characters show
  as boxes or garble a terminal a copied value is pasted into;
- lone surrogates (U+D800-DFFF) cannot even be sent to the browser as UTF-8.

`literal` is the one way a value from a link, a file name or a transcript enters
text Streamlit renders as Markdown (st.warning, st.error, st.info, st.caption,
st.markdown, st.spinner, labels, help): an inline code span, in which no link,
image, HTML, emoji code or formula is ever read, with the characters above
neutralized; elsewhere such values go to st.code, st.text or table cells.

`neutralize` replaces each with a visible marker (`⟨U+202E⟩`, `⟨ESC⟩`);
`escape_json` writes them as JSON escapes (`\\u202e`) inside JSON text, so the
raw-JSON panel stays valid JSON that means the same value.  Both are for
display only: the engine's data is never changed.  `without_paths` takes server
paths out of error details.
"""

from __future__ import annotations

import re
from pathlib import Path

_BIDI = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
_INVISIBLE = "\u200b-\u200d\u2060-\u2064\ufeff\u00ad\u180e\U000e0000-\U000e007f"
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # C0 but tab, newline, carriage return; DEL; C1
_SURROGATES = "\ud800-\udfff"
_HOSTILE = re.compile(f"[{_BIDI}{_INVISIBLE}{_CONTROLS}{_SURROGATES}]")
_NAMES = {"\x1b": "ESC", "\x9b": "CSI", "\x00": "NUL", "\x7f": "DEL"}

MARKER_OPEN, MARKER_CLOSE = "⟨", "⟩"


def marker(char: str) -> str:
    """The visible stand-in for one hostile character: ⟨ESC⟩, ⟨U+202E⟩."""
    name = _NAMES.get(char) or f"U+{ord(char):04X}"
    return f"{MARKER_OPEN}{name}{MARKER_CLOSE}"


def neutralize(text: str) -> str:
    """The text with every bidi control, invisible character, control and lone surrogate shown as a marker.

    Tabs, newlines and carriage returns are kept (they are visible as layout).
    Text without such characters is returned as is (the same object).
    """
    if _HOSTILE.search(text) is None:
        return text
    return _HOSTILE.sub(lambda found: marker(found.group()), text)


def code_span(text: str, in_table: bool = False) -> str:
    """text as one inline Markdown code span, whatever it holds (backticks, newlines, pipes).

    Runs of whitespace become one space (a span is one line).  The fence is one backtick longer
    than the longest run inside, padded with a space when the text starts or ends with one
    (CommonMark strips that space).  in_table: a pipe is written `\\|`, which a GFM table reads as
    a literal pipe inside the cell (even inside a code span).
    """
    text = " ".join(text.split())
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def literal(value: object, limit: int = 80) -> str:
    """An untrusted value (a query parameter, a file name, transcript text) made safe for Markdown.

    The value, neutralized and cut to `limit` characters ("…"), as one inline code span: a
    renderer shows it character for character, so `![a](http://x)` fetches nothing and
    `[sign in](http://x)` is no link.  Use it for every such value inside st.warning, st.error,
    st.info, st.success, st.caption, st.markdown, st.spinner, st.toast, labels and help.
    """
    text = neutralize(str(value))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return code_span(text)


def has_hostile(text: str) -> bool:
    """Whether neutralize would change the text."""
    return _HOSTILE.search(text) is not None


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escape_json(text: str) -> str:
    """JSON text with every hostile character written as a JSON escape (\\u202e): the same JSON value, visible.

    Only valid on JSON produced by json.dumps: outside strings it holds none of
    these characters, and inside a string an escape means the character itself.
    """
    if _HOSTILE.search(text) is None:
        return text
    return _HOSTILE.sub(lambda found: _json_escape(found.group()), text)


def safe_filename(name: str, fallback: str = "transcript.json") -> str:
    """A download file name: hostile characters and path separators removed (never reordered by a browser)."""
    cleaned = _HOSTILE.sub("", name).replace("/", "_").replace("\\", "_").strip().lstrip(".")
    return cleaned or fallback


_ROOT = str(Path(__file__).resolve().parent.parent)
_ABSOLUTE = re.compile(r"(?<![\w:/.~-])(?:/[^\s/'\"(),:]+)+/([^\s/'\"(),:]+)")


def without_paths(text: str) -> str:
    """Error text with server paths shortened: the project folder becomes relative, other folders '…/'.

    'File "/srv/app/integrity/x.py"' -> 'File "integrity/x.py"'; '/home/u/data/s.db' -> '…/s.db'.
    """
    text = text.replace(_ROOT + "/", "").replace(_ROOT, ".")
    return _ABSOLUTE.sub(lambda found: "…/" + found.group(1), text)
