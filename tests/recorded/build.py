"""Rebuild tests/recorded/*.jsonl from VCR cassettes in git mirrors of public repositories (run by hand).

    python3 tests/recorded/build.py OWNER/NAME=GITDIR [OWNER/NAME=GITDIR ...]
    python3 tests/recorded/build.py --all DIR OWNER/NAME=GITDIR [...]   # every exchange, no cap, into DIR

(`--all` writes the whole set elsewhere, about 2 MB, for `tests/recorded/agree.py DIR`: never committed.)

Not run by the tests: they read only the JSONL files this writes.  Every interaction
whose URI is a provider endpoint we model is read from the cassette at the mirror's
HEAD; its request keeps what the rule sets read (`messages`/`input`/`contents`, the
system prompt, the tool names) with long strings shortened, which no rule reads.
Requests that lean on server-side state (`previous_response_id`, `conversation`) are
left out: the request alone does not hold their history.  So are refusals for reasons
no rule models (a bad model name, an unsupported parameter or media type, an API key):
the verdict cannot speak to them.  Duplicate request bodies are kept once.
"""

from __future__ import annotations

import base64
import collections
import gzip
import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

HERE = Path(__file__).parent
KEY = {"anthropic": "messages", "openai-chat": "messages", "mistral": "messages", "deepseek": "messages",
       "bedrock": "messages", "gemini": "contents", "openai-responses": "input", "deepseek-responses": "input"}
TOOL_MARKS = ('"tool_use"', '"tool_result"', '"tool_calls"', '"tool_call_id"', '"function_call', '"functionCall"',
              '"functionResponse"', '"toolUse"', '"toolResult"', '_call"', '"reasoning"')
IN_SCOPE_400 = ("no tool output found", "no tool call found", "without its required following item",
                "`tool_use`", "`tool_result`", "tool_call_id", "function response", "function call turn",
                "toolresult blocks", "conversation must")
"""Words of the refusals the rule sets model; other refusals (model, parameter, media type) are left out."""
PER_PROVIDER = 70  # tool-bearing exchanges kept per provider (all refusals and every pinned one are kept)
PLAIN_PER_PROVIDER = 6  # plus a few without tools: the rules must accept those too
OPAQUE_KEYS = ("data", "bytes", "image_url", "file_data", "url", "signature", "encrypted_content",
               "thoughtSignature", "thought_signature", "redacted_thinking")


class _Loader(yaml.CSafeLoader):
    """Cassettes hold `!!binary` headers and python tags; read them as plain scalars or nothing."""


_Loader.add_constructor("tag:yaml.org,2002:binary",
                        lambda loader, node: base64.b64decode(str(loader.construct_scalar(node))))
_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python", lambda loader, suffix, node: None)


def classify(uri: str) -> str | None:
    """The provider a request URI speaks to, or None for endpoints we do not model."""
    parts = urlparse(uri)
    host, path = parts.netloc, parts.path.rstrip("/")
    if host == "api.anthropic.com" and path.endswith("/v1/messages"):
        return "anthropic"
    if host in ("api.openai.com", "api.mistral.ai", "api.deepseek.com") and path.endswith("/chat/completions"):
        return {"api.openai.com": "openai-chat", "api.mistral.ai": "mistral", "api.deepseek.com": "deepseek"}[host]
    if host == "api.openai.com" and path.endswith("/responses"):
        return "openai-responses"
    if host == "api.deepseek.com" and path.endswith("/responses"):
        return "deepseek-responses"
    gemini_path = re.search(r"/models/[^/]+:(stream)?[gG]enerateContent$", path)
    if gemini_path and (host == "generativelanguage.googleapis.com"
                        or (host.endswith("aiplatform.googleapis.com") and "/publishers/google/" in path)):
        return "gemini"
    if host.startswith("bedrock-runtime") and re.search(r"/converse(-stream)?$", path):
        return "bedrock"
    return None


def _body(side: Any) -> Any:
    if not isinstance(side, dict):
        return None
    if side.get("parsed_body") is not None:
        return side["parsed_body"]
    body = side.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    if isinstance(body, bytes):
        body = (gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body).decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return None


def shrink(value: Any, key: str | None = None) -> Any:
    """Shorten long strings (text, media, signatures): no rule reads them, and the files stay small."""
    if isinstance(value, str):
        limit = 24 if key in OPAQUE_KEYS else 120
        return value if len(value) <= limit + 16 else value[:limit] + f"…[{len(value)} chars]"
    if isinstance(value, list):
        return [shrink(item) for item in value]
    if isinstance(value, dict):
        return {k: shrink(v, k) for k, v in value.items()}
    return value


def tool_names(tools: Any) -> list[str]:
    names: list[str] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):
            names.extend(str(d.get("name")) for d in declarations if isinstance(d, dict))
            continue
        name = tool.get("name") or (tool.get("function") or {}).get("name") or (tool.get("toolSpec") or {}).get("name")
        names.append(str(name or tool.get("type") or next(iter(tool), "?")))
    return names


def error_text(body: Any) -> str | None:
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]
    if isinstance(body, str):
        return body
    if not isinstance(body, dict):
        return None
    error = body.get("error", body)
    if isinstance(error, dict):
        message = error.get("message")
        return message if isinstance(message, str) else json.dumps(message)
    return error if isinstance(error, str) else body.get("message")


def licence(gitdir: str) -> str:
    """The repository's licence, named from its LICENSE file (MIT and Apache-2.0 are what we use)."""
    text = subprocess.run(["git", "--git-dir", gitdir, "show", "HEAD:LICENSE"], capture_output=True,
                          check=False).stdout.decode("utf-8", "replace")
    if "Permission is hereby granted, free of charge" in text:
        return "MIT"
    if "Apache License" in text and "Version 2.0" in text:
        return "Apache-2.0"
    return "unknown: see the repository"


def exchanges(repo: str, gitdir: str) -> tuple[str, list[dict[str, Any]]]:
    def git(*args: str) -> bytes:
        return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, check=False).stdout

    commit = git("rev-parse", "HEAD").decode().strip()
    names = git("ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    found = []
    for name in names:
        if not name.endswith((".yaml", ".yml", ".yaml.gz")) or "cassette" not in name.lower():
            continue
        raw = git("show", f"HEAD:{name}")
        try:
            doc = yaml.load(gzip.decompress(raw) if name.endswith(".gz") else raw, Loader=_Loader)
        except (yaml.YAMLError, OSError, EOFError):
            continue
        interactions = doc.get("interactions") if isinstance(doc, dict) else None
        if interactions is None and isinstance(doc, dict) and isinstance(doc.get("requests"), list):
            # the other vcrpy layout: parallel `requests` and `responses` lists
            interactions = [{"request": request, "response": response}
                            for request, response in zip(doc["requests"], doc.get("responses") or [], strict=False)]
        for number, interaction in enumerate(interactions if isinstance(interactions, list) else []):
            if not isinstance(interaction, dict):
                continue
            request, response = interaction.get("request") or {}, interaction.get("response") or {}
            uri = request.get("uri") or ""
            provider = classify(uri)
            body = _body(request)
            if provider is None or not isinstance(body, dict):
                continue
            status = (response.get("status") or {}).get("code")
            kept = {key: shrink(body[key]) for key in (KEY[provider], "system", "systemInstruction",
                                                        "system_instruction", "instructions",
                                                        "previous_response_id", "conversation") if key in body}
            tools = body.get("tools", (body.get("toolConfig") or {}).get("tools"))
            if tools:
                kept["tools"] = tool_names(tools)
            parts = urlparse(uri)
            record = {"source": repo, "path": name, "interaction": number,
                      "endpoint": f"{request.get('method', 'POST')} {parts.netloc}{parts.path}",
                      "status": status, "request": kept}
            if status != 200:
                record["error"] = error_text(_body(response))
            found.append(record)
    return commit, found


def left_out(record: dict[str, Any]) -> str | None:
    """Why an exchange is not kept (None: it is kept)."""
    request = record["request"]
    listed = request.get(KEY[classify("https://" + record["endpoint"].split(" ", 1)[1]) or "anthropic"])
    if record["status"] not in (200, 400):
        return f"answered {record['status']} (not a verdict on the request body)"
    if request.get("previous_response_id") or request.get("conversation"):
        return "history held by the server (`previous_response_id` or `conversation`)"
    if not isinstance(listed, list) or not listed:
        return "no message list (a string prompt)"
    error = (record.get("error") or "").lower()
    if record["status"] == 400 and not any(word in error for word in IN_SCOPE_400):
        return "refused for a reason no rule models (model, parameter, media type, key)"
    return None


def pinned() -> set[tuple[str, int]]:
    """(path, interaction) of the exchanges pinned.txt names: kept whatever the caps."""
    found = set()
    for line in (HERE / "pinned.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            path, number = line.rsplit(" ", 1)
            found.add((path, int(number)))
    return found


OUT = HERE
"""Where the JSONL files, commits.json and SOURCES.md are written (`--all DIR`: DIR)."""


def main(arguments: list[str]) -> None:
    global OUT, PER_PROVIDER, PLAIN_PER_PROVIDER
    if arguments[:1] == ["--all"]:  # every exchange, into another folder: the caps lifted
        OUT, arguments = Path(arguments[1]), arguments[2:]
        OUT.mkdir(parents=True, exist_ok=True)
        PER_PROVIDER = PLAIN_PER_PROVIDER = 1 << 30
    always = pinned()
    commits: dict[str, str] = {}
    licences: dict[str, str] = {}
    chosen: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    plain: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    seen: set[str] = set()
    reasons: Counter[str] = collections.Counter()
    refusals: Counter[str] = collections.Counter()
    for argument in arguments:
        repo, gitdir = argument.split("=", 1)
        commits[repo], records = exchanges(repo, gitdir)
        licences[repo] = licence(gitdir)
        for record in records:
            provider = classify("https://" + record["endpoint"].split(" ", 1)[1])
            assert provider is not None
            why = left_out(record)
            if why is not None:
                reasons[why] += 1
                if record["status"] == 400:
                    text = " ".join((record.get("error") or "").split())
                    text = text[:90]
                    refusals[f"{provider}: {text}"] += 1
                continue
            listed = json.dumps(record["request"][KEY[provider]], sort_keys=True)
            digest = hashlib.sha1((provider + listed).encode()).hexdigest()
            if digest in seen:
                reasons["the same request body as one kept"] += 1
                continue
            seen.add(digest)
            record = {"provider": provider, **record}
            record["_pinned"] = (record["path"], record["interaction"]) in always or record["status"] != 200
            if any(mark in listed for mark in TOOL_MARKS) or record["_pinned"]:
                chosen[provider].append(record)
            else:
                plain[provider].append(record)
    written: list[dict[str, Any]] = []
    for provider in KEY:
        records = chosen[provider]
        must = [r for r in records if r["_pinned"]]
        rest = [r for r in records if r not in must]
        by_path: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for record in rest:  # spread the picks over cassette files: one per file first
            by_path[record["path"]].append(record)
        spread = []  # round by round (a file's first pick, then its second...), alternating repositories
        for round_ in range(max(map(len, by_path.values()), default=0)):
            rank: Counter[str] = collections.Counter()
            keyed = []
            for group in by_path.values():
                if round_ < len(group):
                    rank[group[round_]["source"]] += 1
                    keyed.append((rank[group[round_]["source"]], group[round_]))
            spread.extend(record for _, record in sorted(keyed, key=lambda pair: pair[0]))
        picked = must + spread[: max(0, PER_PROVIDER - len(must))] + plain[provider][:PLAIN_PER_PROVIDER]
        picked.sort(key=lambda r: (r["source"], r["path"], r["interaction"]))
        written.extend(picked)
        target = OUT / f"{provider}.jsonl"
        if not picked:
            target.unlink(missing_ok=True)
            continue
        with target.open("w", encoding="utf-8") as out:
            for record in picked:
                record.pop("_pinned", None)
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
    (OUT / "commits.json").write_text(json.dumps(commits, indent=1) + "\n", encoding="utf-8")
    kept = sum(len(records) for records in chosen.values()) + sum(len(records) for records in plain.values())
    reasons["over the per-provider cap"] = kept - len(written)
    write_sources(written, commits, licences, reasons, refusals)


def write_sources(records: list[dict[str, Any]], commits: dict[str, str], licences: dict[str, str],
                  reasons: Counter[str], refusals: Counter[str]) -> None:
    """SOURCES.md: each repository (commit, licence) and each cassette file, with what was taken from it."""
    lines = [
        "# Where the recorded exchanges come from",
        "",
        "Written by `tests/recorded/build.py` from the repositories' VCR cassettes at the commit named; each",
        "exchange in `<provider>.jsonl` carries its `source` (repository), `path` (cassette) and `interaction`",
        "(its index in the cassette's `interactions`). Request bodies are shortened (long strings cut, tool",
        "definitions reduced to their names); nothing a rule reads is removed. The cassettes are the",
        "projects' test fixtures, recorded against the providers' live APIs.",
        "",
        "| repository | commit | licence | exchanges |",
        "| --- | --- | --- | --- |",
    ]
    count = collections.Counter(record["source"] for record in records)
    for repo, commit in commits.items():
        lines.append(f"| [{repo}](https://github.com/{repo}/tree/{commit}) | `{commit[:12]}` | {licences[repo]} "
                     f"| {count[repo]} |")
    lines += ["", "## Left out", "",
              f"Every exchange with a modelled endpoint was read; these were not kept (cap: {PER_PROVIDER} "
              f"tool-bearing and {PLAIN_PER_PROVIDER} plain exchanges per provider, besides every refusal and "
              "every exchange `pinned.txt` names):", ""]
    lines += [f"- {why}: {count}" for why, count in reasons.most_common()]
    lines += ["", "The refusals left out, by provider and text:", ""]
    lines += [f"- {text} ({count})" for text, count in sorted(refusals.items())]
    lines += ["", "## Cassettes", "", "| repository | path | provider | interactions (status) |",
              "| --- | --- | --- | --- |"]
    files: dict[tuple[str, str, str], list[str]] = collections.defaultdict(list)
    for record in records:
        files[(record["source"], record["path"], record["provider"])].append(
            f"{record['interaction']} ({record['status']})")
    for (repo, path, provider), taken in sorted(files.items()):
        lines.append(f"| {repo} | `{path}` | {provider} | {', '.join(taken)} |")
    (OUT / "SOURCES.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
