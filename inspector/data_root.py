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


class LinkError(ValueError):
    """A link names a file the inspector may not or cannot open; str() is the one line to show."""


def is_url(path: str) -> bool:
    """An fsspec URL (s3://, gs://, memory://, http://): what `integrity triage` reads besides local paths."""
    return "://" in path and not path.startswith("file://")


def relative_in_root(path: str, root: Path) -> str | None:
    """The path relative to root when it names a regular file inside it (as written or absolute), else None."""
    typed = path[len("file://"):] if path.startswith("file://") else path
    resolved = resolve_in_root(os.path.relpath(typed, root) if os.path.isabs(typed) else typed, root)
    return os.path.relpath(resolved, root) if resolved is not None else None


def listed_in_table(url: str, table: str, root: Path) -> bool:
    """Whether a triage table inside root lists `url` among the sessions it read.

    A link may name an fsspec URL only together with such a table: the table was written by
    whoever runs the server (`integrity triage --out` into the data folder), so the URLs it
    lists are the ones they chose to read; any other URL in a link is refused unread.
    """
    found = resolve_in_root(table, root)
    if found is None or not found.name.endswith(".parquet"):
        return False
    import pandas as pd

    try:
        paths = pd.read_parquet(found, columns=["path"])["path"]
    except Exception:  # noqa: BLE001 - not a triage table: it lists nothing
        return False
    return bool((paths == url).any())


def read_linked(path: str, table: str | None, root: Path) -> tuple[str, bytes]:
    """(name, bytes) of the file a `?file=` link names: a file inside root, or a URL a triage table in root
    lists (`?table=`); LinkError naming why not otherwise (the same answer for missing and forbidden)."""
    if is_url(path):
        if not table or not listed_in_table(path, table, root):
            raise LinkError("a URL opens only from a triage table in the data folder that lists it")
        from integrity._triage_inputs import read_file

        try:
            return path.rsplit("/", 1)[-1] or path, read_file(path)
        except Exception as error:  # noqa: BLE001 - unreadable now: one line
            raise LinkError(f"could not be read ({type(error).__name__})") from None
    relative = relative_in_root(path, root)
    if relative is None:
        raise LinkError("no such file in the data folder")
    return relative, (root / relative).read_bytes()


UPLOADS = "uploads"
"""The data folder's subfolder where the inspector keeps uploads a user asked to link to."""


def save_upload(name: str, data: bytes, root: Path) -> str:
    """Write an upload under root/uploads/ (named by its content hash and a safe form of its name) and return
    its path relative to root, for a `?file=` link; the same bytes always land on the same file."""
    import hashlib

    from inspector.safe_text import safe_filename

    digest = hashlib.blake2b(data, digest_size=8).hexdigest()
    folder = root / UPLOADS
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{digest}-{safe_filename(name or 'transcript.json')}"
    if not target.exists():
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(data)
        os.replace(partial, target)
    return os.path.relpath(target, root)
