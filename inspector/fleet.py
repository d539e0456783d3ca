"""The fleet view: what a triage table (`integrity triage ... --out TABLE.parquet`) says about many sessions.

Pure functions over the table as a pandas DataFrame, so the Batch page only draws:
defect kinds over the fleet (named by the kind registry), the rejection rate per
provider as recorded and after repair, and the worst sessions first.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from integrity.kinds import summary_counts
from integrity.pipeline import UNJUDGED_STATUSES, Status

COUNTS: tuple[tuple[str, str], ...] = tuple(
    (field, label + "s" if field == "findings" else label) for field, label in summary_counts())
"""(triage column, the registry's name for it) for every defect count a triage row carries (a table an older
release wrote may lack the newer counts: they read as 0)."""
_CORE = ("messages", "verdict")
"""Columns every triage table has had besides path and status: a table without them is not one."""
RECORDED = " as recorded"
AFTER = " after repair"


class TableError(ValueError):
    """The bytes are not a triage table (not Parquet, or without the triage columns)."""


def read_table(data: bytes) -> pd.DataFrame:
    """A triage table from Parquet bytes; TableError (one line) when it is not one."""
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as error:  # pyarrow raises several types for a file that is not Parquet
        raise TableError(f"not a Parquet file ({type(error).__name__})") from None
    missing = [column for column in ("path", "status", *_CORE) if column not in frame.columns]
    if missing:
        raise TableError(f"not a triage table: no column {', '.join(missing)} (made by `integrity triage`?)")
    for column, _ in COUNTS:  # a count an older release did not write
        if column not in frame.columns:
            frame[column] = 0
    return frame


def providers(frame: pd.DataFrame) -> list[str]:
    """The providers whose verdicts the table records (a triage table has every provider's columns, null
    where that provider was not asked)."""
    return sorted(column[: -len(RECORDED)] for column in frame.columns
                  if column.endswith(RECORDED) and frame[column].notna().any())


def defect_kinds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per defect kind: how many in the fleet, and in how many transcripts."""
    rows = []
    for column, name in COUNTS:
        values = pd.to_numeric(frame[column], errors="coerce").fillna(0)
        rows.append({"defect": name, "count": int(values.sum()), "transcripts": int((values > 0).sum())})
    return pd.DataFrame(rows)


_NOT_JUDGED = (Status.UNREADABLE.value, *sorted(status.value for status in UNJUDGED_STATUSES))
"""The statuses of rows no provider judged (a file that could not be read, a branch `check` lists but does not
check)."""


def rejection_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Per provider: the share of judged transcripts it rejects as recorded, and after repair."""
    readable = frame[~frame["status"].isin(_NOT_JUDGED)]
    total = len(readable)
    rows = []
    for provider in providers(frame):
        before = int((readable[provider + RECORDED] == "rejected").sum())
        after = int((readable[provider + AFTER] == "rejected").sum()) if provider + AFTER in frame else 0
        rows.append({"provider": provider, "transcripts": total,
                     "rejected as recorded": before, "as recorded %": round(100 * before / total, 1) if total else 0.0,
                     "rejected after repair": after, "after repair %": round(100 * after / total, 1) if total else 0.0})
    return pd.DataFrame(rows)


def worst(frame: pd.DataFrame, limit: int = 25) -> pd.DataFrame:
    """The sessions that need attention first: most providers rejecting, then most defects; unreadable last."""
    counts = frame[[column for column, _ in COUNTS]].apply(pd.to_numeric, errors="coerce").fillna(0)
    rejecting = sum((frame[p + RECORDED] == "rejected").astype(int) for p in providers(frame)) \
        if providers(frame) else pd.Series(0, index=frame.index)
    ranked = frame.assign(defects=counts.sum(axis=1).astype(int), rejecting=rejecting,
                          unreadable=(frame["status"] == "unreadable").astype(int))
    ranked = ranked[~ranked["status"].isin((Status.HEALTHY.value, *(status.value for status in UNJUDGED_STATUSES)))]
    ranked = ranked.sort_values(["unreadable", "rejecting", "defects"], ascending=[True, False, False])
    runtime = RUNTIME in ranked.columns and bool(pd.to_numeric(ranked[RUNTIME], errors="coerce").fillna(0).any())
    columns = [c for c in ("path", "thread", "status", "rejecting", "defects", *([RUNTIME] if runtime else ()),
                           "messages", "verdict", "error") if c in ranked.columns]
    return ranked[columns].head(limit).reset_index(drop=True)


RUNTIME = "runtime_results"
"""The triage column counting the calls a session's runtime answers as it sends the session (`check`'s third line):
shown beside the defects when a session of the worst has one, since it is why a provider takes an orphaned call."""

OPEN = "open"
"""The worst-sessions column holding each session's link to the Inspector (empty when none can open it)."""


def session_link(path: str, root: Path, table: str | None, policy: str, thread: str = "") -> str | None:
    """The Inspector's address for one triaged session, naming it (`inspector?file=...`, and `&thread=...` for a
    transcript of a file that holds several: a sample of an eval log, a sidechain), or None.

    A local path opens when it lies in the data folder; an fsspec URL (what triage read) when the
    table that lists it lies there too (`table`: its path relative to the data folder), so the
    server reads only what its operator triaged.  None for anything else.
    """
    from urllib.parse import urlencode

    from inspector.data_root import is_url, relative_in_root

    if is_url(path):
        if table is None:
            return None
        params = {"file": path, "table": table}
    else:
        relative = relative_in_root(path, root)
        if relative is None:
            return None
        params = {"file": relative}
    if thread:
        params["thread"] = thread
    return "inspector?" + urlencode({**params, "policy": policy}, safe="/:")


def with_links(worst: pd.DataFrame, root: Path, table: str | None, policy: str) -> pd.DataFrame:
    """The worst sessions with their Inspector links in the OPEN column (first), None where none opens."""
    threads = worst["thread"] if "thread" in worst.columns else [""] * len(worst)
    links = [session_link(str(path), root, table, policy, thread if isinstance(thread, str) else "")
             for path, thread in zip(worst["path"], threads, strict=True)]
    return worst.assign(**{OPEN: links})[[OPEN, *worst.columns]]
