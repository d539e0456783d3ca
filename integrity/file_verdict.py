"""What `check` says of a whole file, when the file holds several transcripts.

Why a module of its own: `check FILE` judges every transcript of a file (an eval log's
samples, a Claude Code session's sidechains, a fine-tuning file's lines) and exits 1 when
any of them needs repair; a page that shows one transcript at a time must still say the
file's verdict, and may call a download "safe to send" only when every transcript in it
passes.  Both ask this one function, which asks the one pipeline (`pipeline.check`) per
transcript, as the CLI does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .loading import Transcript
from .pipeline import CheckResult, check
from .repair.policies import DEFAULT_POLICY

__all__ = ["FileVerdict", "check_file"]


@dataclass(frozen=True)
class FileVerdict:
    """`check`'s answer for every transcript of one file.

    results: each checked transcript's result by its name, in file order.  branches: the
    abandoned branches, listed and never judged (as `check` prints them).
    """

    results: Mapping[str, CheckResult]
    branches: tuple[str, ...] = ()

    @property
    def needing(self) -> list[str]:
        """The transcripts `check` does not call healthy (each makes it exit 1), in file order."""
        return [name for name, result in self.results.items() if not result.healthy]

    @property
    def healthy(self) -> bool:
        return not self.needing

    @property
    def exit_code(self) -> int:
        """What `check FILE` exits with (0: every transcript healthy; 1: one needs repair)."""
        return 0 if self.healthy else 1

    @property
    def said(self) -> str:
        """The file's verdict in one line: how many of its transcripts need repair, and which."""
        total = len(self.results)
        needing = self.needing
        if not needing:
            return f"all {total} transcripts healthy" if total > 1 else "healthy"
        verb = "needs" if len(needing) == 1 else "need"
        return f"{len(needing)} of {total} transcripts {verb} repair: " + ", ".join(
            f"{name} ({self.results[name].status})" for name in needing)

    def flagged_besides(self, name: str) -> str:
        """What `check` flags in the file's other transcripts than `name` ('' when it passes them all): the
        first one's name and verdict, and how many more."""
        others = [other for other in self.needing if other != name]
        if not others:
            return ""
        first = others[0]
        more = f" (and {len(others) - 1} more transcript(s))" if len(others) > 1 else ""
        return f"its transcript {first}: {self.results[first].verdict}{more}"


def check_file(transcripts: Sequence[Transcript], *, provider: str | None = None,
               policy: str = DEFAULT_POLICY) -> FileVerdict:
    """`check` on every transcript of a file (as `load_all` read it): the verdict `check FILE
    [--provider P]` prints and exits with.  provider: the target, as `--provider` names it (None: each
    transcript's own)."""
    results = {t.name: check(t, provider=provider, policy=policy) for t in transcripts if t.checked}
    return FileVerdict(results, tuple(t.name for t in transcripts if not t.checked))
