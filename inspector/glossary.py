"""The glossary: one name, one or two sentences and a tiny example for every word the app uses.

Why it exists: the lessons, the Lab, the Inspector and the Report speak of frames,
receipts, strays and policies; a newcomer needs each defined once, in one place,
under one name.  The names of kinds (what a repair does, what a finding is) come
from the kind registry (`integrity.kinds`), so the glossary can never call a
thing something the screens do not; the other words are defined here.

`term_url(term)` gives the link to a term's entry on the Glossary page
(`/glossary?term=<slug>`), and `link_terms(text)` turns the first use of each
known term in our own Markdown into such a link (never use it on transcript text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from integrity.kinds import FINDINGS, MARKS, REPAIR_KINDS, FindingCode, Mark, RepairKind, Severity

from . import glossary_registry

PAGE = "/glossary"
"""The Glossary page's URL path (set in app.py)."""
PARAM = "term"
"""The query parameter naming the term to show (`/glossary?term=receipt`)."""


@dataclass(frozen=True)
class Term:
    """One glossary entry.

    name: the one name every screen uses; slug: its URL form; text: one or two sentences;
    example: a tiny example (plain text, shown as code); aliases: other spellings a reader
    meets (they lead here, they are not other names); group: the section it is listed in;
    lesson: the lesson that teaches it, when one does.
    """

    name: str
    text: str
    example: str
    aliases: tuple[str, ...] = ()
    group: str = "Transcripts"
    lesson: str | None = None

    @property
    def slug(self) -> str:
        return slugify(self.name)


def slugify(name: str) -> str:
    """'interrupted frame' -> 'interrupted-frame' (lower case, words joined by '-')."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


GROUPS: tuple[str, ...] = ("Transcripts", "Policies and the engine", "Verdicts and statuses", "Providers", "Runtime",
                           "Kinds", "Severities", "Reasons", "Command line")
GENERATED: dict[str, str] = {
    "Verdicts and statuses": "statuses from integrity.pipeline.Status, beside the verdict words defined here",
    "Providers": "one entry per provider of the registry (integrity.providers.SPECS)",
    "Kinds": "names, texts, examples and aliases from the kind registry (integrity.kinds)",
    "Severities": "from integrity.kinds.SEVERITY_WORDS",
    "Reasons": "one entry per note code (integrity.notes), its sentence rendered with example values",
    "Command line": "parsed from the CLI's own exit-code text (integrity.cli.EXIT_CODES, what --help prints)",
}
"""Where each generated group's entries come from (the page says it under the group's heading)."""

_RECEIPT_JSON = ('{"role": "toolResult", "toolCallId": "call_a", "toolName": "read_file",\n'
                 ' "content": [{"type": "text", "text": "{\\"ok\\":false,\\"error\\":\\"interrupted\\",...}"}],\n'
                 ' "details": {"ok": false, "error": "interrupted"}, "isError": true, "timestamp": 0}')


_HAND_WORDS: tuple[Term, ...] = (
    Term("turn", "One speaker's contribution: a user turn (a user message, or the tool results sent back), an "
         "assistant turn (one frame). Some providers want user and assistant turns to alternate; several "
         "consecutive messages of one role may be sent as one turn.",
         "user turn: #0 user · assistant turn: #1 frame(call_a) · user turn: #2 result(call_a)",
         ("turns", "user turn", "assistant turn"), lesson="provider"),
    Term("unfinished turn", "An assistant turn that did not end normally (an interrupted frame): the model was "
         "stopped before it finished. Once the results it split are moved next to their call, it sits after "
         "them as a turn nobody completed, so strict drops it there.",
         '#3 assistant [] stopReason "aborted"  (between frame #1 and its result #4)', (), lesson="contiguous"),
    Term("run", "Two uses. A run of results: the results recorded one after another right after their frame "
         "(the order inside it is a normalization). An agent run: one worker driving the model until it stops "
         "or is stopped; when it ends early the runtime winds down.",
         "run of results: #2 result(call_b), #3 result(call_a) right after frame #1", ("run of results",)),
    Term("universal invariants", "The rules every provider shares: every call answered exactly once, right "
         "after its frame, no result without a call, no real result lost. They decide the verdict of a file "
         "whose format has no provider of its own (pi-ai, LangChain, ...) when no provider is named.",
         "check orphaned_call.pi-ai.json  ->  judged by the universal invariants", ("universal invariant",),
         group="Verdicts and statuses"),
    Term("target provider", "The provider whose verdict decides a file's status and exit code: the one named "
         "(`--provider`, the sidebar), else the file's own (an Anthropic request: anthropic; a Claude Code "
         "session: anthropic; a pi session on Claude through Bedrock: bedrock, on Codex: openai-responses, the "
         "provider of the model it names), else none, and the universal invariants decide. Other providers asked are "
         "information: they never change the verdict.", "check a.anthropic.json  ->  target: anthropic",
         ("target", "judge", "judged by", "the judge"), group="Verdicts and statuses"),
    Term("healthy for", "Healthy for its judge: nothing fails for the provider that judges the transcript (the "
         "target provider, else the universal invariants), so `check` exits 0. The verdict says plain "
         "\"healthy\" even when other providers asked refuse the file: it is rated by the target alone and "
         "reads the same whoever else is asked; their answers are the lines below it, and a view for one of "
         "them may need changes that provider alone needs.", "check --provider all a.anthropic.json  ->  "
         "healthy: ...; accepted as recorded by anthropic  /  mistral as recorded: ...", ("healthy for a provider",),
         group="Verdicts and statuses"),
    Term("as recorded", "About the durable transcript exactly as the file holds it, before any repair: "
         "\"rejected as recorded by X\" is what provider X answers if the file were sent unchanged.",
         "rejected as recorded by anthropic; accepted by openai-responses", ("accepted as recorded",),
         group="Verdicts and statuses"),
    Term("after repair", "About the view a provider is sent: the one planned for it (a provider with its own "
         "turn or id rules gets a view planned for them). \"accepted after repair\" is said of that view.",
         "bedrock after repair: accepted", ("accepted after repair",), group="Verdicts and statuses"),
    Term("safe to send", "Said only of a view you can download or copy: the provider it is planned for "
         "accepts it. The Batch column \"safe to send to\" names whom a file is judged by (its target "
         "provider, or the universal invariants).", "safe to send to: anthropic  ·  accepted after repair",
         ("safe to send to",), group="Verdicts and statuses"),
    Term("would be rejected", "The verdict's word when nothing needs repair by the engine's rules but the "
         "judging provider still refuses the shape (a turn order, results split over messages).",
         "would be rejected: 5 messages, 1 call, every call answered once, ...", (),
         group="Verdicts and statuses"),
    Term("unchanged", "The verdict's word when the policy changes nothing but reports findings it leaves in "
         "place; in brackets, how bad they are (accepted, lossy, would be rejected, malformed).",
         "unchanged (would be rejected): 1 finding(s) the policy leaves in place", (),
         group="Verdicts and statuses"),
    Term("view rebuilt", "The verdict of a repair whose changes have no count of their own (a reused id "
         "answered again by the reference): the view differs from the durable transcript.",
         "repaired: view rebuilt; 1 finding(s) left", (), group="Verdicts and statuses"),
    Term("severity", "How bad a kind, a reason or a whole transcript is, from nothing wrong to worst: info, "
         "normalized, lossy, rejected, malformed. A transcript's severity is the worst of its rows; lossy, "
         "rejected and malformed make `check` exit 1.", "severity: rejected (1 moved)", ("severities",),
         group="Verdicts and statuses"),
    Term("numbering", "How the pages number a message: `#n` is its position in the durable transcript "
         "(from 0), `view #n` its position in the view, and `vN` in a link (`?msg=v3`) a message that exists "
         "only in the view; `line n` (JSONL) and `messages[n]` (a JSON list) are its place in the file as the "
         "file holds it; the Inspector's `row` counts the table's lines (a moved result has two); a provider's "
         "own error names its request's positions (`messages.3`, `contents[2]`).",
         "#4  ·  view #3  ·  ?msg=v3  ·  line 5  ·  messages[4]",
         ("#n", "view #", "view position", "vN", "line n", "messages[n]"), group="Transcripts"),
    Term("canonical form", "The one message shape the engine reads every format into (pi-ai messages), "
         "keeping native fields aside so the file's own format is written back unchanged.",
         '{"role": "toolResult", "toolCallId": "call_a", ...}  (read from an Anthropic tool_result block)',
         ("canonical message", "canonical messages", "canonical"), group="Transcripts"),
    Term("opaque", "A native entry or part the engine does not interpret (a system event, an image block "
         "of a format it only carries): kept as is, written back only in its own format, left out of others.",
         '{"role": "opaque", "format": "claude-code", "value": {...}}', ("opaque entry", "opaque part",
                                                                          "opaque message"), group="Transcripts"),
    Term("sidechain", "A side thread inside one file (a Claude Code subagent's conversation); it is read and "
         "judged as a transcript of its own, named `sidechain:<id>`.", "session.jsonl#sidechain:agent-1",
         ("sidechains",), group="Transcripts"),
    Term("repair", "The command that writes the view in the file's own format (`python3 -m integrity repair`). "
         "With --provider it writes the view planned for that provider; "
         "what it writes with none is computed per format on the Glossary page (\"What repair writes when no "
         "provider is named\").", "python3 -m integrity repair a.json -o fixed.json --provider anthropic",
         ("repair command",), group="Policies and the engine"),
)

_WORDS: tuple[Term, ...] = (
    Term("tool call", "A request by the model to run a tool, with a call id, the tool's name and its arguments; "
         "it sits inside a frame.",
         '{"type": "toolCall", "id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}}',
         ("call", "calls", "tool calls")),
    Term("tool result", "The message that answers one tool call, naming it by its call id.",
         '{"role": "toolResult", "toolCallId": "call_a", "content": [{"type": "text", "text": "hello"}]}',
         ("result", "results", "tool results")),
    Term("call id", "The id that ties a tool result to its tool call. Providers want each one used once "
         "in a request.", 'call: "id": "call_a"   ->   result: "toolCallId": "call_a"', ("call ids", "ids"),
         lesson="unique_ids"),
    Term("frame", "One assistant message (one model turn as recorded). A frame that makes tool calls must be "
         "followed right away by their results; \"frame #1\" on a page is such a call frame. A frame without "
         "calls that stopped abnormally is an interrupted frame.",
         "#1 assistant: read_file(a.txt) [call_a], read_file(b.txt) [call_b]",
         ("frames", "assistant frame", "call frame"), lesson="contiguous"),
    Term("interrupted frame", "A frame (assistant message) without tool calls that stopped abnormally: "
         "`stopReason` aborted (the user pressed stop), length or error, or a non-blank `errorMessage`. "
         "Between a call and its result it splits them.",
         '{"role": "assistant", "content": [], "stopReason": "aborted"}', ("interrupted frames",),
         lesson="contiguous"),
    Term("receipt", "A tool result that stands in for a result nobody recorded: it says the call was "
         "interrupted (strict's adds that the outcome is unknown). In pi-ai it is recognised by `isError: true` "
         'with `details` exactly `{"ok": false, "error": "interrupted"}`, never by its text; formats that cannot '
         "carry `details` recognise the engine's exact receipt texts (the lesson on receipts shows each format).",
         _RECEIPT_JSON,
         ("receipts", "interrupted receipt", "interrupted receipts"), lesson="receipts"),
    Term("durable transcript", "What the store really holds: every message as it was written, append-only. "
         "A repair never changes it; it builds a view instead.",
         "#0 user, #1 assistant(call_a), #2 user 'hurry', #3 result(call_a)",
         ("durable log", "transcript", "durable", "durable message", "durable messages", "the log"),
         lesson="contiguous"),
    Term("view", "What the next model call is sent: the durable transcript repaired at read time (results "
         "moved next to their frame, receipts added, duplicates left out). It is never written back.",
         "view: #0 user, #1 assistant(call_a), #3 result(call_a), #2 user 'hurry'",
         ("repaired view", "the view", "model view"), lesson="contiguous"),
    Term("hook message", "A message an app inserts by itself (an approval prompt, a pause notice, a hook's "
         "output). Landing between a call and its result, it splits them.",
         "#1 assistant(call_rm)  #2 user 'approve rm -rf build/? yes'  #3 result(call_rm)",
         ("hook messages",), lesson="contiguous"),
    Term("compaction", "Replacing old messages with a summary to save context. It can summarize away a "
         "frame and keep its result, which leaves a stray result.",
         "#0 user '[summary of 40 messages]'  #1 result(call_gone)  <- its frame was summarized",
         ("compacted",), lesson="no_stray"),
    Term("pi-ai", "The message format of the pi-ai library: user, assistant (with `toolCall` parts) and "
         "`toolResult` messages. The engine reads every format into it and writes back the file's own.",
         '{"role": "toolResult", "toolCallId": "call_a", "toolName": "read_file", "content": [...], '
         '"isError": false}', ("pi ai",)),
    Term("provider", "An LLM API that receives the view (openai-chat, anthropic, gemini, bedrock, ...). "
         "Each has its own rules and rejects a request that breaks one with HTTP 400 and its own error text.",
         "anthropic: messages.1: `tool_use` ids were found without `tool_result` blocks immediately after",
         ("providers",), lesson="provider"),
    Term("in flight", "A call whose frame is durable but whose result is not yet: the tool is still "
         "running. It is not a defect; it becomes one only if the run ends without a result.",
         "worker 1 · in flight: call_fetch (fetch)", ("in-flight",)),
    Term("engine", "The `integrity` package: it finds every defect, builds the view and writes the report. "
         "The inspector only shows what the engine says.", "python3 -m integrity check session.jsonl",
         group="Policies and the engine"),
    Term("policy", "How the engine repairs: `strict` (the default) or `openmaic` (the reference). Each "
         "lesson shows both side by side.", "?policy=strict  or  --policy openmaic", ("policies",),
         group="Policies and the engine"),
    Term("the reference", "OpenMAIC's tool-call-integrity.ts (`repairOrphanedToolCalls`), the runtime this "
         "project started from. The engine's `openmaic` policy does exactly what it does, quirks included.",
         "keeps the first result of a call, answers a reused id with its first result",
         ("reference", "reference policy"), group="Policies and the engine"),
    Term("openmaic", "The policy name of the reference's behaviour. The Lab's runtime repairs with it, "
         "because that is what `with_tool_call_integrity_repair` applies.", "--policy openmaic",
         group="Policies and the engine"),
    Term("strict", "The default policy: it goes beyond the reference (prefers a real result over a receipt, "
         "drops stray results, renames reused ids, pairs by position, writes a receipt that says "
         "the outcome is unknown).", "--policy strict", ("strict policy",), group="Policies and the engine"),
    Term("normalization", "A change the view makes that the provider judging the transcript does not need: "
         "results put in call order inside their run (no provider needs that), or ids renamed and turns "
         "merged that only another provider needs. A transcript whose view only normalizes is healthy for "
         "its judge; \"the view only normalizes\" in a verdict lists those changes.",
         "results (call_b, call_a) -> (call_a, call_b)", ("normalizes", "normalized change"),
         group="Policies and the engine", lesson="order"),
    Term("verdict", "The one line `check` prints for a transcript: its first words are the status (healthy, "
         "repaired, would be rejected, unchanged), then what the engine found and did, then what the target "
         "provider says about it as recorded. The target provider decides it, alone: the line reads the same "
         "whoever else is asked.",
         "repaired: 1 moved; rejected as recorded by anthropic",
         group="Policies and the engine"),
    *_HAND_WORDS,
    Term("session", "One conversation in the store: its durable transcript and who may write to it.",
         "session 'lab' · 7 entries · attempt 2", group="Runtime"),
    Term("lease", "A time-limited claim of a session by one worker. Each claim is a new attempt, and the "
         "attempt number is the token every write carries (the fence).",
         "worker 2 claims 'lab' for 1000 ms as attempt 2", ("leases",), group="Runtime"),
    Term("heartbeat", "A worker renewing its lease while it works, so a slow tool does not let it expire.",
         "every 333 ms: lease 'lab' attempt 1 extended to t+1000", ("heartbeats",), group="Runtime"),
    Term("attempt", "One claim of a session; its number increases with every claim. A write carrying an "
         "older attempt is refused.", "attempt 1 (worker 1) -> attempt 2 (worker 2)", ("attempts",),
         group="Runtime"),
    Term("fence", "The store's check that a write carries the current attempt; a stale worker's writes "
         "are refused and `on_fence_lost` tells it to stop.", "append(result, attempt=1) -> refused: attempt 2 "
         "holds the session", ("fenced", "fencing token"), group="Runtime"),
    Term("wind-down", "What a runtime does when a run ends early (stop pressed, shutdown, error): it gives "
         "running tools a grace period, writes a receipt for each call still in flight, and releases "
         "the lease.", "stop -> fetch still running -> receipt(call_fetch) written -> lease released",
         ("winds down", "wind down"), group="Runtime", lesson="receipts"),
)


def _kind_lessons() -> dict[str, str]:
    """kind name -> the first lesson that shows it (its example's kinds) or teaches it (its terms)."""
    from inspector.lessons import LESSONS

    found: dict[str, str] = {}
    for lesson in LESSONS:
        for names in lesson.expect.values():
            for name in sorted(names):
                found.setdefault(name, lesson.key)
        for name in lesson.terms:
            found.setdefault(name, lesson.key)
    return found


_KIND_LESSONS = _kind_lessons()


def _kind_terms() -> list[Term]:
    """One entry per kind name of the registry (kinds that share a name share an entry): its description,
    example and aliases are the registry row's (integrity.kinds KindFacts), so a new kind has its entry."""
    terms: dict[str, Term] = {}
    for table in (REPAIR_KINDS, FINDINGS, MARKS):
        for facts in table.values():
            if facts.name in terms:
                continue
            terms[facts.name] = Term(facts.name, facts.description, facts.example, facts.aliases, "Kinds",
                                     _KIND_LESSONS.get(facts.name))
    return list(terms.values())


def _generated(group: str, entries: list[glossary_registry.Entry]) -> list[Term]:
    return [Term(name, text, example, aliases, group) for name, text, example, aliases in entries]


def _provider_terms() -> list[Term]:
    """Providers: an alias that only differs in case from the name (Mistral) is the name itself."""
    return [Term(name, text, example, tuple(a for a in aliases if a.lower() != name.lower()), "Providers")
            for name, text, example, aliases in glossary_registry.provider_entries()]


TERMS: tuple[Term, ...] = (*_WORDS, *_generated("Verdicts and statuses", glossary_registry.status_entries()),
                           *_provider_terms(), *_kind_terms(),
                           *_generated("Severities", glossary_registry.severity_entries()),
                           *_generated("Reasons", glossary_registry.reason_entries()),
                           *_generated("Command line", glossary_registry.exit_code_entries()))
"""Every glossary entry, grouped by GROUPS."""

_BY_KEY: dict[str, Term] = {}
for _term in TERMS:
    for _key in (_term.slug, _term.name.lower(), *(alias.lower() for alias in _term.aliases),
                 *(slugify(alias) for alias in _term.aliases)):
        _BY_KEY.setdefault(_key, _term)


def find_term(term: str | RepairKind | FindingCode | Mark | Severity) -> Term | None:
    """The entry for a name, an alias, a slug, or a kind of the registry; None when unknown."""
    if isinstance(term, (RepairKind, FindingCode, Mark)):
        from integrity.kinds import name

        term = name(term)
    elif isinstance(term, Severity):
        term = term.value
    return _BY_KEY.get(str(term).strip().lower()) or _BY_KEY.get(slugify(str(term)))


def term_url(term: str | RepairKind | FindingCode | Mark | Severity) -> str:
    """The link to a term's entry on the Glossary page: term_url("receipt") == "/glossary?term=receipt".

    Raises KeyError for a word the glossary does not define (a link must never lead nowhere).
    """
    found = find_term(term)
    if found is None:
        raise KeyError(f"the glossary does not define {term!r}")
    return f"{PAGE}?{PARAM}={found.slug}"


def link(text: str, term: str | RepairKind | FindingCode | Mark | Severity | None = None) -> str:
    """Markdown `[text](/glossary?term=...)` for our own text (term defaults to the text itself)."""
    return f"[{text}]({term_url(term if term is not None else text)})"


_GENERIC = frozenset({"call", "calls", "result", "results", "transcript", "durable", "reuse", "rename", "renamed",
                      "duplicate", "duplicates", "orphaned", "the log", "attempt", "attempts", "session",
                      "verdict", "reference", "fenced", "tool calls", "tool results"})
"""Aliases too common to link automatically (`link` still links them on purpose)."""
_NOT_LINKED = ("Severities", "Providers", "Reasons", "Command line")
"""Groups whose names are common words or ids on the pages (linked only on purpose, with `link`)."""
_LINKABLE = sorted({(name, term.slug) for term in TERMS if term.group not in _NOT_LINKED
                    for name in (term.name, *term.aliases) if len(name) > 3 and name.lower() not in _GENERIC},
                   key=lambda pair: -len(pair[0]))
_PATTERN = re.compile(r"(?<![\w/\-`\[])(" + "|".join(re.escape(name) for name, _ in _LINKABLE) + r")(?![\w\-`])",
                      re.IGNORECASE)
_PROTECTED = re.compile(r"(\[[^\]]*\]\([^)]*\)|`[^`]*`)")


def link_terms(text: str, only: tuple[str, ...] | None = None, linked: set[str] | None = None) -> str:
    """Our own Markdown with the first use of each glossary term turned into a link to its entry.

    Text inside existing links and code spans is left alone.  only: restrict to these terms
    (names or slugs); linked: slugs already linked on the page (updated), so a page links a
    term once.  Never pass transcript content: it is not escaped here.
    """
    seen = linked if linked is not None else set()
    allowed = None if only is None else {find_term(name).slug for name in only if find_term(name)}  # type: ignore[union-attr]

    def replace(match: re.Match[str]) -> str:
        term = find_term(match.group(1))
        if term is None or term.slug in seen or (allowed is not None and term.slug not in allowed):
            return match.group(0)
        seen.add(term.slug)
        return f"[{match.group(1)}]({PAGE}?{PARAM}={term.slug})"

    parts = _PROTECTED.split(text)
    return "".join(part if index % 2 else _PATTERN.sub(replace, part) for index, part in enumerate(parts))


PROJECT_TERMS: tuple[str, ...] = (
    # the words of transcripts
    "tool call", "tool result", "call id", "frame", "interrupted frame", "unfinished turn", "turn", "run",
    "receipt", "durable transcript", "view", "hook message", "compaction", "pi-ai", "canonical form", "opaque",
    "sidechain", "numbering", "view #", "in flight",
    # policies, verdicts and statuses
    "engine", "policy", "strict", "the reference", "openmaic", "normalization", "verdict", "repair",
    "healthy", "healthy for", "repaired", "findings", "rejected as recorded", "unreadable", "abandoned branch",
    "compacted away",
    "would be rejected", "unchanged", "view rebuilt", "as recorded", "after repair", "accepted as recorded",
    "accepted after repair", "safe to send", "target provider", "judged by", "universal invariants", "severity",
    "info", "normalized", "lossy", "rejected", "malformed", "provider",
    # every kind of the registry, by its one name
    *dict.fromkeys(facts.name for table in (REPAIR_KINDS, FINDINGS, MARKS) for facts in table.values()),
    # the runtime
    "session", "lease", "heartbeat", "attempt", "fence", "wind-down",
    # the command line
    "exit code 0", "exit code 1", "exit code 2",
)
"""The project's own terms: tests/test_words.py scans the text the pages render and fails when one of these
appears there without a Glossary entry."""


def glossary_markdown() -> str:
    """docs/glossary.md: every entry, by group, as the Glossary page shows it (tests/test_words.py keeps the
    file equal to this; regenerate with `python3 -c "from inspector.glossary import glossary_markdown as g;
    open('docs/glossary.md', 'w').write(g())"`)."""
    lines = ["# Glossary", "", "Every word the inspector's pages and the CLI use, one name each. Generated from "
             "`inspector/glossary.py` and the engine's registries (kinds, severities, statuses, providers, note "
             "reasons, exit codes): do not edit by hand.", ""]
    for group in GROUPS:
        lines += [f"## {group}", ""]
        if group in GENERATED:
            lines += [f"Generated: {GENERATED[group]}.", ""]
        for term in (term for term in TERMS if term.group == group):
            aliases = f" (also: {', '.join(term.aliases)})" if term.aliases else ""
            lines += [f"### {term.name}", "", term.text + aliases, "", "```text", term.example, "```", ""]
    return "\n".join(lines)
