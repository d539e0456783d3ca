"""What every guard shares: check a request's messages and repair a copy for the provider receiving it.

A guard hands this module the request's messages as the native dicts of a format the engine reads
(`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `langchain`), checks them with the one
pipeline (`integrity.check`, strict policy, the target provider's rules), and when the request would be
rejected or loses a call's answer, writes the repaired view back in the same format.  Entries the repair
leaves as they were come back as the very objects passed in (the format writers re-emit unchanged
native entries verbatim), so a guard maps them back to the runtime's own objects by identity and builds
runtime objects only for what the repair made (an interrupted receipt, a regrouped results turn).

Nothing here imports a runtime library.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..providers.models import provider_for_model as provider_for_model  # (re-exported: the guards read it here)
from ._fast import scan
from ._signatures import signs, unsigned_tail

if TYPE_CHECKING:
    from ..pipeline import CheckResult
    from ..report import RepairReport
    from ._fast import HealthyMemo

GuardMode = Literal["repair", "report", "raise"]
"""repair: send the repaired copy; report: send the request as it is, only report; raise: refuse to send it."""

MODES: tuple[str, ...] = ("repair", "report", "raise")
POLICY = "strict"
LOG = logging.getLogger("integrity.guards")


class ToolCallIntegrityError(RuntimeError):
    """Raised in mode="raise" instead of sending a request the target provider would reject or that
    lost a call's answer; `report` is the GuardReport."""

    def __init__(self, report: GuardReport) -> None:
        self.report = report
        super().__init__(report.line())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its report (a process pool sends the error back whole; Exception's own reduce would
        call __init__ with the message)."""
        return type(self), (self.report,), self.__dict__


@dataclass(frozen=True)
class GuardReport:
    """What a guard found in one request, handed to `on_report` and written to the log.

    runtime: the guard's runtime ("langchain", "openai-agents", "litellm", "adk").  target: the provider
    whose rules decided (None: the universal invariants).  status: the engine's one-word status.
    result: the engine's CheckResult (its `report` is the full RepairReport, `view` the repaired
    canonical messages) for the part of the request checked: the whole request, or what follows the
    last plainly healthy exchange (see RequestGuard._repaired).  before/after: how many native
    messages the request had and has after repair.  applied: whether the repaired copy was sent.
    refused: whether the guard refused to send the request (mode "raise": ToolCallIntegrityError).
    """

    runtime: str
    target: str | None
    status: str
    result: CheckResult
    before: int
    after: int
    applied: bool
    refused: bool = False

    @property
    def report(self) -> RepairReport:
        return self.result.report  # type: ignore[return-value]  # depth "view": always a RepairReport

    @property
    def counts(self) -> dict[str, int]:
        """The non-zero counts of the summary (receipts synthesized, duplicates dropped...), by summary field."""
        from ..kinds import summary_counts

        summary = self.result.report.summary
        return {field: value for field, _ in summary_counts() if (value := getattr(summary, field, 0))}

    def line(self) -> str:
        """The one log line: runtime, target, status, message counts and what was repaired."""
        counts = ", ".join(f"{field}={value}" for field, value in self.counts.items()) or "no counts"
        what = "not sent (refused)" if self.refused else "sent repaired" if self.applied else "sent as it is"
        return (f"integrity guard [{self.runtime}] target={self.target or 'universal'}: {self.status}; "
                f"{what} ({self.before} -> {self.after} messages; {counts})")


def _draws_on_storage(format: str, envelope: dict[str, Any], entries: Sequence[Any]) -> bool:
    """Whether a request in `format` with this envelope draws on items stored by the API (a Responses request
    continuing a stored response or conversation: the engine's own test, which the reader applies too)."""
    if format != "openai-responses":
        return False
    from ..formats.openai_responses import draws_on_storage

    return draws_on_storage(envelope, entries if isinstance(entries, list) else list(entries))


def _reuses(messages: list[Any], ids: set[str]) -> bool:
    """True when a canonical assistant message calls with one of `ids`."""
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(message.get("content"),
                                                                                              list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") == "toolCall" and part.get("id") in ids:
                    return True
    return False


class _Checked:
    """What the full check found in the part of a request it read: its result, and every call and result id
    in that part (what HealthyMemo.remember must know of it, the ids the repair dropped too).

    A repair made without the pipeline (`_native`, when nothing asks for the report) carries `full` instead
    of the result: the pipeline's check of the same part, run the first time the result is asked for (a
    later request answered from the memo whose report is logged or handed to on_report)."""

    __slots__ = ("_full", "_result", "ids")

    def __init__(self, result: CheckResult | None, ids: frozenset[str],
                 full: Callable[[], CheckResult] | None = None) -> None:
        self._result = result
        self._full = full
        self.ids = ids

    @property
    def result(self) -> CheckResult:
        if self._result is None:
            assert self._full is not None
            self._result, self._full = self._full(), None
        return self._result


def _ids(messages: list[Any]) -> frozenset[str]:
    """Every call id and result id of canonical messages (calls read as the strict policy reads them: a
    numeric id by its text)."""
    from ..repair.views import calls_in_content

    found: set[str] = set()
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "toolResult":
            found.add(str(message.get("toolCallId")))
        elif message.get("role") == "assistant":
            found.update(call.id for call in calls_in_content(message.get("content"), numeric_ids=True))
    return frozenset(found)


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown guard mode {mode!r}; choose one of {', '.join(MODES)}")


class RequestGuard:
    """The runtime-independent guard: check native messages, and give back what to send.

    mode: "repair" (send the repaired copy), "report" (send the request unchanged, only report) or
    "raise" (raise ToolCallIntegrityError instead of sending a request that needs repair).
    on_report: called with a GuardReport for every request that needs repair, whatever the mode.
    provider: the target provider when the runtime's model name does not say it (None: from the model).
    """

    def __init__(self, runtime: str, *, mode: GuardMode = "repair", on_report: Callable[[GuardReport], Any] | None
                 = None, provider: str | None = None, logger: logging.Logger | None = None) -> None:
        _check_mode(mode)
        if provider is not None:
            from ..providers import spec

            spec(provider)  # an unknown name fails here, at construction, not at the first model call
        self.runtime = runtime
        self.mode: GuardMode = mode
        self.on_report = on_report
        self.provider = provider
        self.logger = logger or LOG
        self.window = True  # repair only from the last safe cut (see _repaired); False: the whole request

    def target(self, model: Any, api: Literal["chat", "responses"] = "chat") -> str | None:
        """The provider the request goes to: the one given to the guard, else the model's."""
        return self.provider if self.provider is not None else provider_for_model(model, api)

    def guard(self, entries: Sequence[Any], format: str, target: str | None,
              envelope: dict[str, Any] | None = None) -> list[Any] | None:
        """None when the request may be sent as it is; else the native entries to send instead.

        Unchanged entries are the very objects passed in; new ones are fresh dicts in `format`.
        A request the engine cannot read is sent as it is (with a warning in the log), and so is one the
        guard fails on (the error and its traceback logged): a guard never stops an agent over a shape it
        does not know.  Only mode="raise" stops a request, on purpose.
        envelope: the request's other fields (a Responses request's `previous_response_id`, `conversation`):
        a request that draws on stored items is judged whole with them (see `_stored`).
        """
        if envelope and entries and _draws_on_storage(format, envelope, entries):
            return self._stored(entries, format, target, envelope)
        healthy, cut, before_cut = scan(entries, format, target) if entries else (True, 0, [])
        if healthy and not (signs(target, format) and unsigned_tail(entries, format)):
            return None  # the common case: one pass, no copy
        listed = list(entries)
        return self._sent(len(listed), target, self._guarded(listed, format, target, cut, before_cut,
                                                             lambda: listed))

    def guard_objects(self, objects: Sequence[Any], objects_format: str, dump: Callable[[list[Any]], list[Any]],
                      format: str, target: str | None, scanned: tuple[bool, int, list[str]] | None = None,
                      memo: HealthyMemo | None = None, build: Callable[[Any], Any] | None = None,
                      envelope: dict[str, Any] | None = None, distinct_ids: bool = False,
                      key: Sequence[Any] | None = None) -> list[Any] | None:
        """`guard` for a runtime's message objects (LangChain messages, ADK Contents), which `dump` turns
        into `format`'s dicts: the quick pass reads the objects themselves, and only the entries from its
        cut on are dumped (the whole request only when the repair must see it whole, to rename ids).  In
        the answer, unchanged entries are the objects passed in and new ones dicts in `format`, or what
        `build` makes of them (the runtime's objects: then a repeated answer reuses them).
        scanned: what the quick pass (`_fast.scan`, or the guard's HealthyMemo.scan) already answered for
        these objects, so they are not read again.  memo: the guard's HealthyMemo (its `scan` is the quick
        pass when `scanned` is not given), which also remembers the last repair, so a history that broke once
        is repaired again only from the turns added since (HealthyMemo.repeat: the same answer, reading the
        new turns alone; tried before the quick pass, which would read the whole request up to the defect).
        envelope: as for `guard` (the objects then go to the full check whole, dumped, without the memo).
        distinct_ids: the runtime's client sends only the first of calls sharing an id (langchain-openai's
        Responses input), so a request the engine finds healthy is still sent repaired when the repair renames
        ids: the view's new ids keep every call on the wire (the quick pass never passes a reused id).
        key: the objects' key for the memo (`_fast._KEYS`), when the guard made it reading them (see
        HealthyMemo.first)."""
        try:
            count, found = self._objects_found(objects, objects_format, dump, format, target, scanned, memo, build,
                                               envelope, distinct_ids, key)
        except Exception:  # noqa: BLE001 - turning the runtime's objects into dicts and back, or the memo: the
            # guard must not become the reason a model call fails (the pipeline's own errors are _guarded's)
            self.logger.exception("integrity guard [%s]: request not checked (an error in the guard)", self.runtime)
            return None
        return self._sent(count, target, found)

    def _objects_found(self, objects: Sequence[Any], objects_format: str, dump: Callable[[list[Any]], list[Any]],
                       format: str, target: str | None, scanned: tuple[bool, int, list[str]] | None,
                       memo: HealthyMemo | None, build: Callable[[Any], Any] | None,
                       envelope: dict[str, Any] | None, distinct_ids: bool = False,
                       key: Sequence[Any] | None = None) -> tuple[int, tuple[int, Any, list[Any] | None] | None]:
        """guard_objects' work: (how many entries the request has, what `_sent` is given: see _guarded).  A request the
        quick pass finds plainly healthy is sent as it is unless its current turn holds a call without the thought
        signature its target refuses it without (_signatures.unsigned_tail): the engine's check then decides, and
        no direct repair (which signs nothing) is made."""
        if envelope and objects and _draws_on_storage(format, envelope, objects):
            given = list(objects)
            native = dump(given)
            originals = {id(entry): original for entry, original in zip(native, given, strict=True)}
            stored = self._guarded(native, format, target, 0, [], lambda: native, envelope, distinct_ids)
            if stored is not None and stored[2] is not None:
                stored = stored[0], stored[1], [originals[id(entry)] if id(entry) in originals else build(entry)
                                                if build is not None and type(entry) is dict else entry
                                                for entry in stored[2]]
            return len(given), stored
        again = memo.repeat(objects, objects_format, target, key) if memo is not None and memo.repairs else None
        if again is not None and not (signs(target, objects_format) and unsigned_tail(again[0], objects_format)):
            return len(objects), (0, again[1], again[0])  # a request that starts with the last one repaired (its
            # scan, if made, said so), its new turns signed where its target needs it
        if scanned is None:
            scanned = (True, 0, []) if not objects else memo.scan(objects, objects_format, target, key) \
                if memo is not None else scan(objects, objects_format, target)
        healthy, cut, before_cut = scanned
        unsigned = signs(target, objects_format) and unsigned_tail(objects, objects_format)
        if healthy and not unsigned:
            return len(objects), None
        if healthy:
            cut, before_cut = 0, []
        listed = list(objects)
        back: dict[int, Any] = {}
        dumps: list[list[Any]] = []  # every dump made, kept alive while `back` maps them by id

        def dumped(start: int) -> list[Any]:
            part = dump(listed[start:])
            dumps.append(part)
            back.update((id(entry), original) for entry, original in zip(part, listed[start:], strict=True))
            return part

        if not self.window:
            cut, before_cut = 0, []
        if self._quiet() and not unsigned:  # nothing asks for the engine's report: the common defects are repaired
            # directly
            from ._native import native_repair

            quick = native_repair(listed, cut, before_cut, objects_format, format, target, build)
            if quick is not None:
                checked, out = self.repaired_directly(objects, objects_format, listed, dump, format, target, cut,
                                                      before_cut, quick, memo)
                return len(listed), (cut, checked, out)
        found = self._guarded(listed[:cut] + dumped(cut), format, target, cut, before_cut, lambda: dumped(0),
                              distinct_ids=distinct_ids)
        if found is not None and (written := found[2]) is not None:
            start, checked, _ = found
            # written[:start] is listed[:start]: the runtime's objects, never dumped when start > 0
            rest = written[start:]
            out = written[:start] + ([back.get(id(entry), entry) for entry in rest] if build is None else
                                     [back[id(entry)] if id(entry) in back else build(entry) if type(entry) is dict
                                      else entry for entry in rest])
            found = start, checked, out
            if memo is not None:  # the kept prefix is the runtime's objects, up to the quick pass's cut
                memo.remember(objects, objects_format, target, out, (start, before_cut if start else []),
                              (written[start:], format), checked.ids, checked)
        return len(listed), found

    def _stored(self, entries: Sequence[Any], format: str, target: str | None, envelope: dict[str, Any]
                ) -> list[Any] | None:
        """`guard` for a request that draws on stored items (a Responses request continuing a stored response
        or conversation, or naming an item by reference): the API adds the stored items, so an output here may
        answer a call the request does not hold, and only the full check, told the request's envelope, keeps
        it (never taken for a stray: docs/providers.md).  Judged whole, without the quick pass and the memo,
        which read the entries alone; such a request holds only the turns since the stored response."""
        listed = list(entries)
        return self._sent(len(listed), target, self._guarded(listed, format, target, 0, [], lambda: listed,
                                                             envelope))

    def _guarded(self, listed: list[Any], format: str, target: str | None, cut: int, before_cut: list[str],
                 whole: Callable[[], list[Any]], envelope: dict[str, Any] | None = None, distinct_ids: bool = False
                 ) -> tuple[int, Any, list[Any] | None] | None:
        """guard's work once the quick pass found the request not plainly healthy: listed[cut:] are entries
        in `format` (whole() gives every entry in it, when the repair must read the whole request).
        (where the part checked starts, what the check found, the whole request repaired or None when it
        stays as it is); None when the request goes as it is (healthy for the full check, or not readable:
        logged)."""
        from ..loading import TranscriptError

        try:
            start, result, out = self._repaired(listed, format, target, cut if self.window else 0, before_cut,
                                                whole, envelope, distinct_ids)
        except (TranscriptError, ValueError) as error:
            self.logger.warning("integrity guard [%s]: request not checked: %s", self.runtime, error)
            return None
        except Exception:  # noqa: BLE001 - the guard must not become the reason a model call fails
            self.logger.exception("integrity guard [%s]: request not checked (an error in the guard)", self.runtime)
            return None
        if result is None:
            return None
        if out is not None and start:
            out = listed[:start] + out
        return start, result, out

    def _sent(self, count: int, target: str | None, found: tuple[int, Any, list[Any] | None] | None
              ) -> list[Any] | None:
        """What to send for a request of `count` entries the guard checked (`found`: see _guarded): the
        repaired entries in mode "repair", else None; the log line and on_report, and in mode "raise" the
        error, for every request that needs repair."""
        if found is None:
            return None
        _, checked, out = found
        applied = self.mode == "repair" and out is not None
        level = logging.INFO if applied or out is None else logging.WARNING
        if applied and self.on_report is None and not self.logger.isEnabledFor(level):
            return out  # no one to report to, no error to raise: the report is not built
        result = checked.result
        report = GuardReport(self.runtime, target, str(result.status), result, count,
                             len(out) if out is not None else count, applied, self.mode == "raise")
        if self.logger.isEnabledFor(level):
            self.logger.log(level, report.line())
        if self.on_report is not None:
            self.on_report(report)
        if self.mode == "raise":
            raise ToolCallIntegrityError(report)
        return out if applied else None

    def repaired_directly(self, objects: Sequence[Any], objects_format: str, listed: list[Any],
                          dump: Callable[[list[Any]], list[Any]], format: str, target: str | None, cut: int,
                          before_cut: list[str], quick: tuple[list[Any], list[Any], frozenset[str]],
                          memo: HealthyMemo | None) -> tuple[_Checked, list[Any]]:
        """A direct repair's answer (`quick`: what to send, the part after the cut, the ids it sends) made ready
        to send: the engine's check of it left to be run when asked, and the answer remembered for the
        session's next calls.  One place for every direct repair (`_native.native_repair`, and the ADK
        plugin's own for one-part Contents), so each is remembered alike."""
        out, rest, ids = quick
        checked = _Checked(None, ids, functools.partial(self._result_of, listed, dump, format, target, cut,
                                                        before_cut))
        if memo is not None:
            memo.remember(objects, objects_format, target, out, (cut, before_cut if cut else []),
                          (rest, objects_format), ids, checked)
        return checked, out

    def _quiet(self) -> bool:
        """Whether nothing asks for the engine's report of a repaired request: mode "repair" (nothing to raise),
        no on_report, and the guard's log line (INFO) not logged."""
        return self.mode == "repair" and self.on_report is None and not self.logger.isEnabledFor(logging.INFO)

    def _result_of(self, listed: list[Any], dump: Callable[[list[Any]], list[Any]], format: str, target: str | None,
                   cut: int, before_cut: list[str]) -> CheckResult:
        """The pipeline's check of the request `listed` (the runtime's objects, `dump` turning them into
        `format`), as guard_objects runs it: from the quick pass's cut on (see _repaired)."""
        return self._checked(listed[:cut] + dump(listed[cut:]), format, target, cut, before_cut,
                             lambda: dump(listed))[3]

    def _repaired(self, listed: list[Any], format: str, target: str | None, start: int, before: list[str],
                  whole: Callable[[], list[Any]], envelope: dict[str, Any] | None = None,
                  distinct_ids: bool = False) -> tuple[int, _Checked | None, list[Any] | None]:
        """(where the checked part starts, what the check found or None when healthy, the checked part
        repaired or None when it stays as it is).

        With start > 0 only listed[start:] is checked: everything before is plainly healthy and ends
        before a user turn, so a repair of the rest never touches it.  When ids are renamed (a call
        after the cut reuses an id from before it, or has an empty or odd one) the whole request is
        checked instead: the strict policy numbers new ids by their place in the whole request (whole()
        gives it in `format`: listed's entries before `start` may be the runtime's own objects).
        """
        start, transcript, part, result = self._checked(listed, format, target, start, before, whole, envelope)
        if result.healthy and not (distinct_ids and result.report.summary.renamed):
            return start, None, None
        view = result.view if result.view is not None else transcript.messages
        return start, _Checked(result, _ids(transcript.messages)), self._written(view, format, transcript, part)

    def _checked(self, listed: list[Any], format: str, target: str | None, start: int, before: list[str],
                 whole: Callable[[], list[Any]], envelope: dict[str, Any] | None = None
                 ) -> tuple[int, Any, list[Any], CheckResult]:
        """(where the checked part starts, its transcript, its entries, the pipeline's result): see _repaired.
        envelope: the request's other fields, read with its entries (a continued Responses request)."""
        from .. import check, target_provider
        from ..formats import read_document
        from ..formats.container import Document

        part = listed[start:]
        transcript = read_document(Document(part, [0] * len(part), "array", envelope=dict(envelope or {})),
                                   f"<{self.runtime} request>", format)
        if start and before and _reuses(transcript.messages, set(before)):
            return self._checked(whole(), format, target, 0, [], whole)
        # the view is planned for the provider the request is judged by: the one named, else the one its
        # format implies (an Anthropic-shaped request: Anthropic), as check decides (integrity.target_provider)
        result = check(transcript, provider=target_provider(transcript.format, target), policy=POLICY, depth="view")
        if start and result.report.summary.renamed:  # new ids are numbered by position in the whole request
            return self._checked(whole(), format, target, 0, [], whole)
        return start, transcript, part, result

    @staticmethod
    def _written(view: list[Any], format: str, transcript: Any, listed: list[Any]) -> list[Any] | None:
        """The view written back in `format` (None when that is the request as it was, entry for entry)."""
        from ..formats import to_native

        native = to_native(view, format, transcript).messages
        if len(native) == len(listed) and all(a is b for a, b in zip(native, listed, strict=True)):
            return None
        return native


@dataclass(frozen=True)
class RequestVerdict:
    """What the engine says about one native request: the target provider's violations (its own error
    texts), whether the one pipeline finds it healthy for that target (for no target: the universal
    invariants, every call answered once right after its turn, no stray), and the real results it
    carries (call id, text), receipts excluded."""

    violations: list[Any]
    healthy: bool
    results: list[tuple[str, str]]
    receipts: int

    @property
    def legal(self) -> bool:
        return not self.violations and self.healthy


def request_verdict(entries: Sequence[Any], format: str, provider: str | None,
                    envelope: dict[str, Any] | None = None) -> RequestVerdict:
    """Judge a request as a runtime sends it (native dicts in `format`) by the engine's rule sets: the
    provider's (`integrity.providers.validate` on its canonical messages; none when provider is None) and
    the strict policy's check for that provider (the universal invariants when None).  What the guards'
    tests assert.  envelope: the request's other fields (a Responses request continuing a stored one). """
    from .. import check, is_interrupted_tool_result
    from ..formats import read_document
    from ..formats.container import Document
    from ..providers import validate

    listed = list(entries)
    transcript = read_document(Document(listed, [0] * len(listed), "array", envelope=dict(envelope or {})),
                               "<request>", format)
    messages = transcript.messages
    # (the entries as sent, not the request written afresh from them: a writer's finish step would send a shape
    # the runtime does not, an item id of another's namespace left out, a null content given a text)
    violations = validate(messages, provider, transcript, as_recorded=True) if provider is not None else []
    healthy = check(transcript, provider=provider, policy=POLICY, depth="diagnosis").healthy
    results: list[tuple[str, str]] = []
    receipts = 0
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "toolResult":
            if is_interrupted_tool_result(message):
                receipts += 1
                continue
            content = message.get("content")
            text = "".join(part.get("text", "") for part in content if isinstance(part, dict)) \
                if isinstance(content, list) else str(content)
            results.append((str(message.get("toolCallId")), text))
    return RequestVerdict(violations, healthy, results, receipts)
