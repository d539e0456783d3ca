"""One transcript of a file, as the pipeline takes it: read by the fast path (pi-ai, raw bytes kept) or by the
general reader.  Its own module, below the pipeline, so that what the pipeline loads (integrity.skeleton_verdicts)
can name it without importing the pipeline back."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, count
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._findings import Finding
    from .loading import Transcript
    from .repair.plan import Plan
    from .repair.views import LightTranscript


_ROLE_PARTS = itemgetter(0, 1)
_NO_CONTENT = frozenset({("user", ()), ("assistant", ())})
"""A user or assistant message's bones (role, parts) when it has no part (formats.skeleton.Bone)."""


class Loaded:
    """One transcript of a file, read either by the fast path (pi-ai, raw bytes kept) or the general reader.

    The fast path is a representation, not a second pipeline: `check_unit` asks a Loaded for its
    light view, its reading findings and (only when a provider is asked) its messages as dicts.
    A file may hold several transcripts (an eval log's samples, a Claude Code session's sidechains,
    a session tree's abandoned branches): one Loaded per transcript.
    """

    def __init__(self, source: str, fast: Any = None, transcript: Transcript | None = None, count: int = 1) -> None:
        self.source = source
        self.fast = fast
        self.transcript = transcript
        self.count = count  # how many transcripts the file holds

    @classmethod
    def of(cls, transcript: Transcript) -> Loaded:
        return cls(transcript.source, transcript=transcript)

    @property
    def name(self) -> str:
        return "main" if self.transcript is None else str(self.transcript.name)

    @property
    def format(self) -> str:
        return "pi-ai" if self.transcript is None else str(self.transcript.format)

    @property
    def model(self) -> Any:
        """The model the file's request names (Transcript.model); None for a file the fast path read (pi-ai)."""
        return None if self.transcript is None else self.transcript.model

    @property
    def checked(self) -> bool:
        """False for an abandoned branch: listed, never sent to the model again, so not judged."""
        return self.transcript is None or bool(self.transcript.checked)

    @property
    def label(self) -> str:
        """'file' for a file of one transcript, 'file#name' when it holds several."""
        return self.source if self.count == 1 else f"{self.source}#{self.name}"

    def light(self, policy: str, blank: bool = False) -> LightTranscript:
        """The light view the policy plans on (strict reads numeric ids; the fast path has its own).

        blank: a provider asked refuses blank texts (pipeline.reads_contents), so the view holds them
        (LightTranscript.blank_texts).  The general reader's view always does; the fast reader's learns them
        here, from the messages of a file whose read found one (fast_bones.blank_or_empty), else none."""
        if self.fast is not None:
            light: LightTranscript = self.fast.light
            if blank and light.blank_texts is None:
                light.blank_texts = self._blank_texts()
            if blank and light.error_contents is None:
                light.error_contents = self._error_contents()
            if blank and light.unsigned_frames is None:
                light.unsigned_frames = self._unsigned_frames(light)
            if light.long_texts is None:
                light.long_texts = self._long_texts()
            return light
        assert self.transcript is not None
        from .analysis import transcript_light

        return transcript_light(self.transcript, policy)

    def _error_contents(self) -> set[int]:
        """LightTranscript.error_contents of a file the fast path read: none when its read looked for them and found
        none (its hints lack formats.skeleton.ERROR_CONTENT: fast_bones.error_content), else read from the results
        whose raw bytes name isError, decoded (a file holding one is judged on its full request anyway).  Read when
        `blank` is asked (pipeline.reads_contents: a provider asked reads blank texts or error results)."""
        from .formats.skeleton import ERROR_CONTENT
        from .repair.views import error_content_refused

        hinted = self.fast.hinted
        if hinted is not None and ERROR_CONTENT not in hinted:
            return set()
        import msgspec

        raws, roles = self.fast.raws, self.fast.light.roles
        found = set()
        for index in compress(count(), map("toolResult".__eq__, roles)):
            raw = raws[index]
            if b"isError" not in bytes(raw):
                continue
            message = msgspec.json.decode(raw)
            if message.get("isError") is True and error_content_refused(message.get("content")):
                found.add(index)
        return found

    def _long_texts(self) -> set[int]:
        """LightTranscript.long_texts of a file the fast path read: none unless its read found a block longer than
        the limit (formats.skeleton.LONG_STRING, marked only when a provider is asked: fast_read); else the messages
        whose raw bytes are that long (their bytes bound their texts' characters) are decoded and measured."""
        hinted = self.fast.hinted
        if hinted is None:  # (no provider asked: the formats package is never loaded for a pi-ai file)
            return set()
        from .formats.skeleton import LONG_STRING

        if LONG_STRING not in hinted:
            return set()
        import msgspec

        from .repair.views import STRING_LIMIT, texts_length

        found = set()
        for index, raw in enumerate(self.fast.raws):
            if len(raw) > STRING_LIMIT:
                message = msgspec.json.decode(raw)
                if isinstance(message, dict) and message.get("role") in ("user", "assistant", "toolResult") \
                        and texts_length(message.get("content")) > STRING_LIMIT:
                    found.add(index)
        return found

    def _unsigned_frames(self, light: LightTranscript) -> set[int]:
        """LightTranscript.unsigned_frames of a file the fast path read: none unless a message carries a Gemini
        request's hints (repair.views.first_call_unsigned: a pi-ai call is written for Gemini signed); else the
        current turn's messages alone are decoded from their raw bytes (repair.views.unsigned_frames reads from the
        end)."""
        hinted = self.fast.hinted
        if hinted is not None and "gemini" not in hinted:
            return set()
        import msgspec

        from .repair.views import unsigned_frames

        raws = self.fast.raws
        return unsigned_frames(light, lambda index: msgspec.json.decode(raws[index]))

    def _blank_texts(self) -> dict[int, int]:
        """LightTranscript.blank_texts of a file the fast path read.  When its read looked for blank texts and found
        none (its hints lack formats.skeleton.BLANK_TEXT), only messages without content may be there: none when
        the read looked for those too (a read for hints: fast_bones.blank_or_empty's empty), else those whose
        bones have no part.  Otherwise read from its user and assistant messages, decoded from their raw bytes
        (a file holding a blank text is judged on its full request anyway)."""
        from .formats.skeleton import BLANK_TEXT
        from .repair.views import BLANK_NONE

        hinted = self.fast.hinted
        if hinted is not None and BLANK_TEXT not in hinted:
            made = self.fast.bones
            if made is None:
                return {}
            bones = made[0]
            return dict.fromkeys(compress(count(), map(_NO_CONTENT.__contains__, map(_ROLE_PARTS, bones))),
                                 BLANK_NONE)
        import msgspec

        from .repair.views import blank_content

        raws, roles = self.fast.raws, self.fast.light.roles
        found: dict[int, int] = {}
        for index, role in enumerate(roles):
            if role == "user" or role == "assistant":
                blank = blank_content(msgspec.json.decode(raws[index]).get("content"))
                if blank:
                    found[index] = blank
        return found

    def findings(self) -> list[Finding]:
        """What reading found besides messages (a torn line), then the schema findings."""
        if self.transcript is None:
            return []
        from .analysis import reader_findings
        from .schema import schema_findings

        return [*reader_findings(self.transcript), *schema_findings(self.transcript)]

    def bones(self) -> tuple[list[Any], set[str]]:
        """Every message's bones and the formats of the native hints they carry (formats.skeleton.all_bones;
        a file the fast path read: straight from its raw bytes)."""
        if self.transcript is not None:
            from .formats.skeleton import all_bones

            return all_bones(self.transcript.messages)
        made: tuple[list[Any], set[str]] | None = self.fast.bones
        if made is not None:  # made while the file was read (read_fast's bones)
            return made
        from ._bulk.fast_bones import fast_bones
        from .formats.skeleton import LONG_STRING

        bones, hinted = fast_bones(self.fast.raws, self.fast.light.size)
        if self.fast.hinted is not None and LONG_STRING in self.fast.hinted:  # (marked by its read: fast_read)
            hinted.add(LONG_STRING)
        return bones, hinted

    def view_bones(self, bones: list[Any], plan: Plan, stamp: Callable[[], int], hinted: set[str]) -> list[Any]:
        """The bones of the view `plan` orders (the durable bones themselves when it changes nothing): each
        message the view writes is made (entries.entry_message, with stamp) and read as the writers would."""
        if not plan.changed or plan.order is None:
            return bones
        from .formats.skeleton import bones_of, renamed
        from .repair.entries import Rewritten, entry_message

        durable = self._durable()
        fast = self.transcript is None  # every call id a string: a rewritten message's bones are its ids renamed
        return [bones[entry] if type(entry) is int else
                renamed(bones[entry.index], entry.ids, entry.calls_last, entry.names)
                if fast and type(entry) is Rewritten and not entry.blank else
                bones_of(entry_message(entry, durable, plan.placeholder, stamp), hinted) for entry in plan.order]

    def _durable(self) -> Callable[[int], Any]:
        """durable(index): one durable message as a dict (decoded from its raw bytes on the fast path)."""
        if self.transcript is not None:
            return self.transcript.messages.__getitem__
        import msgspec

        raws = self.fast.raws
        return lambda index: msgspec.json.decode(raws[index])

    def messages(self) -> Transcript:
        """The transcript as dicts (a file the fast path read: its messages decoded from their raw bytes)."""
        if self.transcript is not None:
            return self.transcript
        import msgspec

        from .loading import Transcript

        return Transcript(list(map(msgspec.json.decode, self.fast.raws)), self.source, json_typed=True)

    def named(self, report: Any) -> Any:
        """The report naming the format read and the transcript (thread or sample) it is about (named_report)."""
        from .naming import named_report

        return named_report(report, self.transcript, self.format, self.name)

