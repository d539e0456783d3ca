"""Reading and writing transcripts in the formats agents and providers actually use.

Every format is read into canonical pi-ai AgentMessage dicts (what the engine
understands) and written back from them; one adapter module per format does the
mapping.  Round trips are lossless in two layers:

1. Native entries are kept on the Transcript (`native`).  When a written group of
   canonical messages is exactly what one run of native entries was read as (it is
   compared to a fresh re-read), those entries are re-emitted verbatim, unknown
   fields and all.  Unchanged results that move into another message reuse their
   original native block the same way.
2. What a group rebuilt from canonical messages needs but pi-ai has no field for is
   kept under the namespaced key "_native" of the canonical message or part (never
   written out), and native content without a canonical form travels as opaque
   parts/messages that are written only in their own format.

Each canonical message also records where it came from: Transcript.entries[i] is the
native entry and Transcript.lines[i] its 1-based line, for reports.

Two readings matter to the engine in every format: an assistant turn with no
content is an interrupted frame (stopReason "aborted"; no provider completes a turn
with nothing in it), and a result whose whole content is exactly one of the engine's
receipt texts (the reference's or the strict policy's, integrity.repair.messages.receipt_texts) is an
interrupted receipt (isError and details restored), so both survive any conversion.
Formats without tool-call ids (Gemini) read a missing id as "" with
"_native": {"idMissing": true} on the call part or result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .registry import (
        ADAPTERS,
        FORMAT_SPECS,
        FORMATS,
        READ_ONLY,
        READABLE,
        SUFFIXES,
        NativeRequest,
        answered_as_sent,
        detect,
        formats_for,
        implied_provider,
        judged_by_model,
        pick,
        possible_formats,
        read_all,
        read_bytes,
        read_document,
        read_otherwise,
        request_key,
        sends_signed_reasoning,
        sent_ids,
        to_native,
        write_bytes,
    )
    from .spec import FormatSpec


__all__ = [
    "ADAPTERS",
    "FORMATS",
    "FORMAT_SPECS",
    "FormatSpec",
    "SUFFIXES",
    "READABLE",
    "READ_ONLY",
    "NativeRequest",
    "detect",
    "formats_for",
    "implied_provider",
    "judged_by_model",
    "pick",
    "possible_formats",
    "read_all",
    "read_bytes",
    "read_document",
    "read_otherwise",
    "request_key",
    "answered_as_sent",
    "sends_signed_reasoning",
    "sent_ids",
    "to_native",
    "write_bytes",
]

__getattr__ = lazy_names(__name__, dict.fromkeys(__all__, ".registry"))
"""The package's names (the format registry, reading and writing: integrity.formats.registry), loaded on first
use: importing one format module or the skeletons (formats.skeleton) never loads every format."""
