"""The one server folder the inspector may read files from (session stores, triage tables).

Anyone who can reach the app can type a path, so nothing outside this folder is
ever opened or even looked at, and every refused path gets the same answer (no
oracle for which files exist).  The folder is `data/` in the project, made on
demand and git-ignored, or the folder named by INTEGRITY_STORE_ROOT.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT_VARIABLE = "INTEGRITY_STORE_ROOT"
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "data"


def data_root() -> Path:
    """$INTEGRITY_STORE_ROOT, else data/ in the project (made on demand), resolved."""
    configured = os.environ.get(ROOT_VARIABLE, "").strip()
    root = Path(configured).expanduser() if configured else DEFAULT_ROOT
    root.mkdir(parents=True, exist_ok=True)
    return root.resolve()


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_in_root(typed: str, root: Path) -> Path | None:
    """The regular file `typed` names inside root, or None (outside, missing, not a file: all the same).

    The path is judged as written before the file system is asked anything, so
    nothing outside the folder is ever looked at; then links are resolved and
    judged again (a link inside the folder may lead out of it).
    """
    typed = typed.strip()
    if not typed or "\x00" in typed:
        return None
    written = Path(os.path.normpath(root / typed))  # an absolute `typed` replaces root here
    if not _inside(written, root):
        return None
    real = Path(os.path.realpath(written))
    if not _inside(real, root) or not real.is_file():
        return None
    return real


def files_in(root: Path, suffixes: tuple[str, ...], limit: int = 500) -> list[str]:
    """Files under root with one of the suffixes (relative paths, sorted), for pickers."""
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in files:
            if name.endswith(suffixes):
                found.append(os.path.relpath(os.path.join(directory, name), root))
        if len(found) >= limit:
            break
    return sorted(found)[:limit]
