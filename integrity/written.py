"""What `repair` writes for a transcript's view, and what the Inspector offers for download: one answer.

The CLI wrote a file's exact bytes when the view changed nothing and the file's provider took it as recorded,
while the Inspector's download wrote the same view through the format's writer: an Anthropic file whose results
were split over two user messages came back from `repair` as it was and from the Inspector regrouped into one
message (both accepted, two different files for one repair).  Both now ask this module, and it gives a file back
exactly when neither the view nor the format's writer changes an entry, which is when the report says nothing
changes (the writer's changes are the report's `reshaped` messages: written_light, formats.reshaping).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .loading import Transcript
from .repair.views import LightTranscript

if TYPE_CHECKING:
    from .formats.registry import NativeRequest
    from .providers.verdict import ProviderVerdict

SHAPES_SHOWN = 5
"""How many of the writer's changes repair's note names (the report lists every one)."""

_LEFT_OUT = frozenset({"torn_last_line", "skipped_line"})


def rejected_by_own_provider(transcript: Transcript, verdicts: Mapping[str, ProviderVerdict] | None = None
                             ) -> list[Any]:
    """What the provider whose request format the file is in (Bedrock for a Converse request) says
    about the file's entries exactly as recorded; [] when it accepts them or no single provider reads
    the format.  Such a file may be well formed for the engine (every call answered, in order) and
    still be rejected for its shape: results of one turn split over two Bedrock user messages.
    verdicts: the providers' verdicts on this transcript the caller holds (check's, a page's): that provider's
    verdict as recorded is this very judgement (the file's entries, as recorded), so it is not judged again (a
    second validation of a 200,000-message Chat file: 2.3 s)."""
    from .report import own_provider

    provider = own_provider(transcript.format, transcript.model)
    if provider is None or not transcript.native:
        return []
    said = verdicts.get(provider) if verdicts else None
    if said is not None:
        return list(said.before)
    from .providers import validate_recorded

    return validate_recorded(transcript, [provider])[provider]


def repaired_bytes(transcript: Transcript, changed: bool, view: list[Any], data: bytes | None = None,
                   notes: list[str] | None = None, verdicts: Mapping[str, ProviderVerdict] | None = None,
                   reshapes: bool | None = None, written: NativeRequest | None = None) -> bytes:
    """What repair writes: the file as it is when the view is the whole file unchanged and its format's writer
    sends every entry as it is (its exact bytes when `data`, the file's bytes, is given; else its entries as read,
    the same JSON), else the view written in the file's format.  The writer's changes to entries it keeps are the
    report's `reshaped` messages (formats.reshaping): a file is written again exactly when the report says it
    changes, whatever its provider says of it as recorded.

    changed: whether the view changes a message (the plan's `changed`).  A thread of a file (a Claude Code main
    thread, a session's active branch) is written back into the whole file; a sample of an eval log is written
    alone, as its message list; a read-only format's view is written in the format it names.  notes: what to tell
    the user once it is known the bytes are written (appended here).  The transcript's messages are the ones it
    read (never changed in place): its format's writer recognises them without reading the file again.
    verdicts: the providers' verdicts on the transcript the caller holds (rejected_by_own_provider).  reshapes:
    whether the writer sends an entry of the unchanged view otherwise, as the caller's report says it (its
    summary's `reshaped`); None: asked here (the writer's finish step over every entry).  written: the view written
    in the file's own format already (pipeline.CheckResult.written: the request its provider judged), which a
    changed view is written from.
    """
    from .formats import write_bytes

    said = notes if notes is not None else []
    whole_file = transcript.whole is not None or not transcript.siblings
    if not changed and whole_file:
        fixes = shape_fixes(transcript) if reshapes is not False else ""
        if fixes:  # sound messages the writer sends in another shape: the provider's (which may refuse the file's)
            said.append(_reshaped_note(transcript, fixes, verdicts))
            return write_bytes(transcript, list(transcript.messages), trusted=True)
    if not changed and not transcript.notes and whole_file:
        # an unchanged view is the durable transcript: give back its exact bytes (or its entries as read; a
        # read-only format's file cannot be written again without its bytes: its view, in the format it names)
        if data is not None:
            return data
        return write_bytes(transcript) if not transcript.writes_as else write_bytes(transcript, view, trusted=True)
    lines = _lines_left_out(transcript)
    if not changed and whole_file and lines and data is not None:
        return _without_lines(data, lines)  # every line but the torn (or skipped) ones, byte for byte
    if transcript.writes_as and changed:
        said.append(f"note: {transcript.format} is read-only here: the repaired view is written as "
                    f"{transcript.writes_as}")
    if not changed:
        return write_bytes(transcript, trusted=True)
    if data is not None and transcript.format == "pi-ai":
        spliced = _spliced(transcript, view, data)
        if spliced is not None:
            return spliced
    return write_bytes(transcript, view, trusted=True, written=written)


def _spliced(transcript: Transcript, view: list[Any], data: bytes) -> bytes | None:
    """A pi-ai file's view as `repair` writes it from the fast reader (_bulk.fast_read.write_fast): every message
    the view keeps as it is as its bytes in the file, the others compact, in the file's container.  The general
    reader's writer would write the same JSON laid out anew (indented), so `repair --report` and the Inspector's
    download gave other bytes than `repair` for one view.  None when the fast reader does not read the file (it
    then writes through the general writer too) or does not see the messages the transcript holds."""
    import io

    from ._bulk.fast_read import encoded, read_fast, write_spliced
    from .formats.registry import to_native

    fast = read_fast(data, transcript.source, clean=False, blank=False)
    if fast is None or fast.light.size != len(transcript.messages):
        return None
    request = to_native(view, transcript.format, transcript, trusted=True)
    at = {id(message): index for index, message in enumerate(transcript.messages)}
    pieces: list[int | bytes] = []
    for entry, sources in zip(request.messages, request.sources, strict=True):
        if len(sources) != 1:
            return None
        kept = at.get(id(view[sources[0]]))
        # (pi-ai's writer gives a message back as the same object when it writes it as read)
        pieces.append(kept if kept is not None and entry is transcript.messages[kept] else encoded(entry))
    out = io.BytesIO()
    write_spliced(fast, pieces, out)
    return out.getvalue()


def written_light(light: LightTranscript, transcript: Transcript, changed: bool, view: list[Any] | None
                  ) -> LightTranscript:
    """The light view whose `reshaped` says what the file written from `view` changes, for the report.

    A transcript's `reshaped` is read from its messages as read (analysis.transcript_light), which is what the
    writer writes when the view changes nothing.  A view that changes messages can change what the writer joins:
    the receipt before a real result dropped, the result is sent alone; a stray between two results dropped, the
    two are sent as one (formats.reshaping.joins_said).  Then a copy says the view's joins (the light view itself
    is shared by every plan made from it); else `light` itself.  changed: the plan's."""
    from .formats.reshaping import joins_results, joins_said, merged

    if not changed or view is None or not joins_results(transcript.format):
        return light
    before, after = light.joined, joins_said(transcript, view)
    if after == before:  # (the common case: no run of results split over entries, in the file or the view)
        return light
    finished = {index: kept for index, said in light.reshaped.items()  # the finish step's, read once
                if (kept := tuple(phrase for phrase in said if phrase not in before.get(index, ())))}
    copied = copy.copy(light)
    copied.reshaped = merged(finished, after)
    copied.joined = after
    return copied


def _reshaped_note(transcript: Transcript, fixes: str, verdicts: Mapping[str, ProviderVerdict] | None) -> str:
    """repair's note for a file written again only for its shape: whose shape, and whether that provider refuses
    the file as recorded (then its messages are sound and only their shape was refused)."""
    from .report import own_provider

    provider = own_provider(transcript.format, transcript.model) or transcript.format
    if rejected_by_own_provider(transcript, verdicts):
        return (f"note: {provider} rejects this file's shape as recorded, not its messages: the same messages "
                f"{_SHAPE_WORDS} the provider takes ({fixes})")
    return f"note: the same messages {_SHAPE_WORDS} {provider} takes ({fixes})"


_SHAPE_WORDS = "are written in the shape"


def is_shape_note(note: str) -> bool:
    """Whether a note of repaired_bytes says the file is written again for its shape alone (_reshaped_note): the
    CLI holds it back when the written file still fails its check, as it never claims a fix check does not see."""
    return _SHAPE_WORDS in note


def shape_fixes(transcript: Transcript) -> str:
    """What writing the same messages in the provider's shape changes, place by place: the writer's own account
    (formats.reshaping, as the report's `reshaped` actions say it); "" when the writer sends every entry as it is."""
    from .formats.reshaping import reshaped

    said = [change for changes in reshaped(transcript).values() for change in changes]
    more = f"; and {len(said) - SHAPES_SHOWN} more (the report's `reshaped` actions list them)" \
        if len(said) > SHAPES_SHOWN else ""
    return "; ".join(said[:SHAPES_SHOWN]) + more


def _lines_left_out(transcript: Transcript) -> set[int]:
    """The lines of a JSONL file its reader left out (a torn last line, skipped bad lines) when they are all it
    found besides messages; empty otherwise (a key named twice: the file is written again, its last value)."""
    notes = transcript.notes
    if transcript.container != "jsonl" or not notes or any(note.code not in _LEFT_OUT for note in notes):
        return set()
    return {note.line for note in notes}


def _without_lines(data: bytes, numbers: set[int]) -> bytes:
    """The file's bytes without some of its 1-based lines (split at "\\n", as the JSONL reader splits them):
    every other byte kept, its line endings and a byte order mark included, as an ordinary repair keeps the
    lines it does not change."""
    rows = data.split(b"\n")
    kept = [row + b"\n" for number, row in enumerate(rows[:-1], start=1) if number not in numbers]
    if len(rows) not in numbers:
        kept.append(rows[-1])
    return b"".join(kept)
