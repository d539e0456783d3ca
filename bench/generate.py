"""Generate a synthetic broken pi-ai transcript of any size (every defect kind, unique ids).

Usage: python bench/generate.py N OUT [--jsonl] [--seed S] [--defect-rate R | --dense]

Large inputs are generated on demand and never committed.  Messages look like
real agent traffic (text, thinking, arguments, multi-line results) so the file
averages roughly 230 bytes per message, like the issue's 1,000,000-message file.
--defect-rate is the share of turns given a defect (0.08 by default: about 2% of the messages
change in a repair); --dense is DENSE, a defect-dense transcript where about a quarter of the
messages are moved, dropped, reordered or answered by a receipt.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

TOOLS = ["read_file", "web_search", "run_shell", "write_file", "list_dir", "grep"]
DEFECTS = ["orphan", "abort_race", "duplicate", "stray", "reorder", "length_frame",
           "receipt_then_real", "pause_between", "lost_frame"]


def _result(call_id: str, tool: str, ts: int, text: str, error: bool = False) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": tool,
            "content": [{"type": "text", "text": text}], "isError": error, "timestamp": ts}


def _receipt(call_id: str, tool: str, ts: int) -> dict[str, Any]:
    text = '{"ok":false,"error":"interrupted","message":"This tool call was interrupted before a result was recorded."}'
    return {"role": "toolResult", "toolCallId": call_id, "toolName": tool,
            "content": [{"type": "text", "text": text}], "details": {"ok": False, "error": "interrupted"},
            "isError": True, "timestamp": ts}


def messages(count: int, seed: int = 7, defect_rate: float = 0.08) -> Iterator[dict[str, Any]]:
    """Yield exactly `count` messages: healthy turns with defects mixed in at `defect_rate`."""
    rng = random.Random(seed)
    emitted = 0
    ts = 1_700_000_000_000
    serial = 0
    while emitted < count:
        turn: list[dict[str, Any]] = []
        ts += 1000
        turn.append({"role": "user", "content": f"Please look at item {serial} and report back.", "timestamp": ts})
        calls = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            serial += 1
            tool = rng.choice(TOOLS)
            calls.append((f"call_{serial:08d}", tool))
        frame = {"role": "assistant",
                 "content": [{"type": "thinking", "thinking": "The user wants the file contents; check them first."}]
                 + [{"type": "toolCall", "id": cid, "name": tool, "arguments": {"path": f"/srv/{cid}.txt"}}
                    for cid, tool in calls],
                 "stopReason": "toolUse", "timestamp": ts + 1}
        results = [_result(cid, tool, ts + 2 + i, f"contents of {cid}\nline two of the file, with some text\n"
                                                  "line three: the build finished without errors")
                   for i, (cid, tool) in enumerate(calls)]
        defect = rng.choice(DEFECTS) if rng.random() < defect_rate else None
        if defect == "orphan":
            results = results[:-1]
            turn += [frame, *results]
        elif defect == "abort_race" and len(results) > 1:
            turn += [frame, results[0],
                     {"role": "assistant", "content": [], "stopReason": "aborted",
                      "errorMessage": "Request was aborted", "timestamp": ts + 5}, *results[1:]]
        elif defect == "duplicate":
            turn += [frame, *results, results[-1]]
        elif defect == "stray":
            serial += 1
            turn += [frame, *results, _result(f"stray_{serial:08d}", "grep", ts + 9, "late output")]
        elif defect == "reorder" and len(results) > 1:
            turn += [frame, *reversed(results), {"role": "assistant", "content": [], "stopReason": "length",
                                                 "timestamp": ts + 6}]
        elif defect == "length_frame":
            turn += [frame, *results, {"role": "assistant", "content": [{"type": "text", "text": "Partial"}],
                                       "stopReason": "length", "timestamp": ts + 6}]
        elif defect == "receipt_then_real":
            cid, tool = calls[-1]
            turn += [frame, *results[:-1], _receipt(cid, tool, ts + 3), results[-1]]
        elif defect == "pause_between":
            turn += [frame, {"role": "user", "content": "(paused by hook)", "timestamp": ts + 3}, *results]
        elif defect == "lost_frame":
            turn += results
        else:
            turn += [frame, *results]
        turn.append({"role": "assistant", "content": [{"type": "text", "text": f"Done with item {serial}."}],
                     "stopReason": "stop", "timestamp": ts + 20})
        for message in turn:
            if emitted >= count:
                return
            yield message
            emitted += 1


def idless(kind: str, name: str, at: int) -> dict[str, Any]:
    """A call (kind "call") or a result without an id, as Gemini records them."""
    if kind == "call":
        return {"role": "assistant", "stopReason": "toolUse", "timestamp": at,
                "content": [{"type": "toolCall", "id": "", "name": name, "arguments": {"i": at}}]}
    return {"role": "toolResult", "toolCallId": "", "toolName": name, "isError": False, "timestamp": at,
            "content": [{"type": "text", "text": f"ok {at}"}]}


def user(at: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": "next"}], "timestamp": at}


IDLESS: dict[str, Callable[[int], list[dict[str, Any]]]] = {
    # each turn preceded by a result for a tool never called: every one looked over every frame (316 s at 80,000)
    "a result of a tool never called before each turn": lambda size: [user(0), *(
        message for at in range(size // 3)
        for message in (idless("result", "ghost", at), idless("call", "read", at), idless("result", "read", at)))],
    # an unanswered call before each answered one: every result looked over every call left waiting
    "an unanswered call before each answered one": lambda size: [user(0), *(
        message for at in range(size // 4)
        for message in (idless("call", "lost", at), user(at), idless("call", "read", at),
                        idless("result", "read", at)))],
    # each result before its call: each pairing listed every result of the shared empty id
    "each result before its call": lambda size: [user(0), *(
        message for at in range(size // 3)
        for message in (idless("result", "read", at), idless("call", "read", at), user(at)))],
}
"""Transcripts without call ids (Gemini's are optional), in shapes that once grew with the square of the size."""


DEFECT_RATE = 0.08
"""The share of turns given a defect by default (about 2% of the messages change in a repair)."""

DENSE = 1.0
"""--dense: every turn given a defect; about a quarter of the messages are then moved, dropped, reordered or
answered by a receipt (the issue's defect-dense shape)."""


def write(count: int, path: str, jsonl: bool = False, seed: int = 7, defect_rate: float = DEFECT_RATE) -> None:
    """Write the transcript as a JSON array (one message per line) or as JSONL."""
    with open(path, "w", encoding="utf-8") as out:
        if jsonl:
            for message in messages(count, seed, defect_rate):
                out.write(json.dumps(message, separators=(",", ":")) + "\n")
            return
        out.write("[\n")
        first = True
        for message in messages(count, seed, defect_rate):
            if not first:
                out.write(",\n")
            out.write(json.dumps(message, separators=(",", ":")))
            first = False
        out.write("\n]\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("out")
    parser.add_argument("--jsonl", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    rate = parser.add_mutually_exclusive_group()
    rate.add_argument("--defect-rate", type=float, default=DEFECT_RATE, metavar="R",
                      help=f"share of turns given a defect (default {DEFECT_RATE})")
    rate.add_argument("--dense", action="store_const", const=DENSE, dest="defect_rate",
                      help="a defect-dense transcript: about a quarter of the messages change in a repair")
    args = parser.parse_args()
    write(args.count, args.out, args.jsonl, args.seed, args.defect_rate)


if __name__ == "__main__":
    main()
