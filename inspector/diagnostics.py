"""A provider's verdict the way a compiler reports an error: the exact 400 text, where, and the request around it.

An engineer explaining a dead session needs the provider's own error text, the
entry of the request it points at, and the rows of the transcript involved,
without clicking anything.  The request quoted is the one the verdict judged
(`judged_request`: the file's own entries when judged as recorded), one compact
JSON line per entry, the failing entries marked with an arrow: plain text, so
transcript content is never interpreted.  `curl_command` reproduces the request
against the provider with the API key left as a shell variable.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from integrity import Analysis
from integrity.analysis import provider_view
from integrity.formats import request_key
from integrity.providers import PROVIDER_FORMAT, spec
from integrity.providers.canonical import judged_request

from .safe_text import escape_json, neutralize

EXCERPTS = 20
"""At most this many errors get the request around them (the panel prints the first few whole)."""
LINE_WIDTH = 150
"""An entry longer than this is cut in the excerpt (the raw panel has it whole)."""


@dataclass(frozen=True)
class Diagnostic:
    """One provider error: rule, where it points, its exact text, the canonical messages involved, the excerpt."""

    rule: str
    position: str
    error: str
    canonical: tuple[int, ...]
    excerpt: str


def _one_line(entry: Any, width: int = LINE_WIDTH) -> str:
    text = escape_json(json.dumps(entry, ensure_ascii=False, default=str))
    return text if len(text) <= width else text[: width - 1] + "…"


def excerpt(native: Sequence[Any], marked: Sequence[int], key: str, context: int = 1) -> str:
    """The request entries around the marked ones, one line each, `→` on the entries the error is about."""
    if not marked:
        return ""
    wanted = sorted({n for m in marked for n in range(m - context, m + context + 1) if 0 <= n < len(native)})
    width = max(len(f"{key}[{n}]") for n in wanted)
    lines: list[str] = []
    previous = None
    for n in wanted:
        if previous is not None and n > previous + 1:
            lines.append("  " + " " * width + "  …")
        arrow = "→" if n in marked else " "
        lines.append(f"{arrow} {f'{key}[{n}]':<{width}}  {_one_line(native[n])}")
        previous = n
    return "\n".join(lines)


def diagnostics(analysis: Analysis, provider: str, when: str, excerpts: bool = True) -> list[Diagnostic]:
    """The provider's errors for the transcript as recorded ("before") or for the repaired view ("after").

    excerpts=False leaves out the request around each error (rebuilding it costs a pass over the transcript).
    """
    result = (analysis.verdicts or {}).get(provider)
    found = [] if result is None else list(result.before if when == "before" else result.after)
    if not found:
        return []
    transcript = analysis.transcript
    messages = transcript.messages if when == "before" else provider_view(analysis, provider)
    native: list[Any] = []
    if excerpts:
        native = judged_request(messages, provider, transcript, as_recorded=when == "before", trusted=True)[0]
    key = request_key(PROVIDER_FORMAT[provider])
    return [Diagnostic(neutralize(str(v.rule)), neutralize(str(v.position)), neutralize(str(v.error)),
                       tuple(v.canonical_indices or ()),
                       excerpt(native, list(v.native_indices), key) if excerpts and n < EXCERPTS else "")
            for n, v in enumerate(found)]


def request_body(analysis: Analysis, provider: str, when: str) -> Any:
    """The request body the verdict judged, with a placeholder model where the file has none."""
    transcript = analysis.transcript
    messages = transcript.messages if when == "before" else provider_view(analysis, provider)
    native, _sources, body = judged_request(messages, provider, transcript, as_recorded=when == "before",
                                            trusted=True)
    if not isinstance(body, dict):
        body = {request_key(PROVIDER_FORMAT[provider]): native}
    extra = {k: v for k, v in spec(provider).endpoint.fields.items() if k not in body}
    return {**extra, **body}


def curl_command(provider: str, body: Any) -> str:
    """A shell command that sends `body` to the provider (keys as environment variables, never values);
    where and how come from the provider's spec (ProviderSpec.endpoint).  The body is a quoted here-document
    (nothing in the transcript is expanded by the shell), so a body whose model is the placeholder `$MODEL`
    (the file names none) goes through sed, which puts the environment's $MODEL in its place, as the URL of a
    provider that names the model there (Bedrock) reads it."""
    text = escape_json(json.dumps(body, ensure_ascii=False, indent=1, default=str))
    endpoint = spec(provider).endpoint
    signing = (f' \\\n  --aws-sigv4 "aws:amz:$AWS_REGION:{endpoint.signing.split(":", 1)[1]}"'
               ' --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"') if endpoint.signing else ""
    header_text = "".join(f' \\\n  -H "{h}"' for h in [*endpoint.headers, "content-type: application/json"])
    model = isinstance(body, dict) and body.get("model") == MODEL_PLACEHOLDER
    fill = r"""sed "s|^ \"model\": \"\\\$MODEL\"|  \"model\": \"$MODEL\"|" <<'END_OF_REQUEST' | """ if model else ""
    given = "-" if model else "- <<'END_OF_REQUEST'"
    return (f"{fill}curl -sS \"{endpoint.url}\"{signing}{header_text} \\\n  --data-binary @{given}\n"
            f"{text}\nEND_OF_REQUEST")


MODEL_PLACEHOLDER = "$MODEL"
"""The model a request body names when its file names none (ProviderSpec.endpoint's fields)."""
