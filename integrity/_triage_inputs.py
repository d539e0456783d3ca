"""What triage reads: the files the user's paths, folders and globs name, each once, and never a blocking read.

Local names are resolved (`d/b.json`, `./d/b.json`, `d/../d/b.json` and a symlink
to it are one file, named once); a path or glob that names nothing is the user's
mistake (TriageError), not an empty table.  A FIFO, a device or a socket is listed
so that it gets its error row, but is never opened: reading one could block
forever or never end.

A runtime's session store addressed as a URL (`langgraph+postgresql://...`, `langgraph+sqlite:///x.db`,
`agents+sqlite://`, `adk+sqlite://`, `adk+postgresql://`, `goose+sqlite://`; integrity.guards.stores) stands for
each of its threads: its threads are listed in one read and each becomes one input named `STORE?thread=ID`
(`?session=ID` for the Agents SDK, ADK and goose), the URL `integrity check` takes for that thread.  A password in
the store's URL is never part of a name (it would land in the table): names carry `***`, and `stores` maps the named
store back to the URL that reaches it, for the workers.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from typing import Any

from .loading import READ_DIRECTLY_BELOW, read_to_end


class TriageError(ValueError):
    """The user's mistake or the machine's refusal (bad input, bad --out, no scheduler, a full disk): one line."""


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def _remote(fs: Any) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return protocol not in ("file", "local")


def is_local(url: str) -> bool:
    """Whether an expanded input is a local path (expand_inputs names local files by absolute path)."""
    return os.path.isabs(url)


def identity(url: str) -> str:
    """What makes two names one file: the resolved path of a local file, the URL of a remote one."""
    return os.path.realpath(url) if is_local(url) else url


class Identities:
    """identity() of many names, resolving each folder once: a file that is not itself a link resolves
    to its folder's resolved path joined with its name (realpath per file walked every folder of every
    path again: three quarters of listing 2,000 files).  One per run, so a link changed between runs
    is seen."""

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}

    def __call__(self, url: str, link: bool | None = None) -> str:
        """The identity of `url`; `link` says whether it is a symbolic link, when the caller knows."""
        if not is_local(url):
            return url
        if link is None:
            link = os.path.islink(url)
        folder, name = os.path.split(url)
        if link or not name or name in (".", ".."):
            return os.path.realpath(url)
        if folder not in self.folders:
            self.folders[folder] = os.path.realpath(folder)
        return os.path.join(self.folders[folder], name)


def exists(url: str) -> bool:
    """Whether the file (or the store's thread) is still there (for rows of files an earlier run saw); a
    store that cannot be reached now counts its threads as missing."""
    if is_store(url):
        from .guards.stores import list_threads
        from .loading import TranscriptError

        try:
            return bool(list_threads(url))
        except (TranscriptError, ImportError):
            return False
    if is_local(url):
        return os.path.lexists(url)
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url)
    return bool(fs.exists(path))


def is_store(url: str) -> bool:
    """Whether an input names one thread of a runtime's session store (see the module docstring)."""
    from .guards.stores import is_store_url

    return is_store_url(url)


def _store_units(pattern: str, stores: dict[str, str]) -> list[str]:
    """The input names of every thread of the store (or of the one its URL names): one listing read."""
    from .guards.stores import list_threads, redacted, split_store_url, thread_url
    from .loading import TranscriptError

    try:
        base, _ = split_store_url(pattern)
        threads = list_threads(pattern)
    except TranscriptError as error:
        raise TriageError(str(error).replace(pattern, redacted(pattern))) from None
    except ImportError as error:  # the runtime's reader (langgraph, psycopg) is an optional dependency
        raise TriageError(f"{redacted(pattern)}: cannot read it: {error}") from None
    if not threads:
        raise TriageError(f"{redacted(pattern)}: the store holds no thread or session")
    shown = redacted(base)
    stores[shown] = base
    return [thread_url(shown, thread) for thread in threads]


def expand_inputs(patterns: Sequence[str], exclude: Callable[[str], bool] = lambda name: False,
                  stores: dict[str, str] | None = None) -> list[str]:
    """Every file the patterns name, once each (by resolved path), as sorted names: absolute local paths or URLs.

    A folder stands for every file under it; a glob is expanded by its filesystem.
    `exclude(identity)` leaves out files a folder or glob finds (the run's own
    tables); naming one of them outright, or naming nothing, is a TriageError.  A store URL gives one
    name per thread, and `stores` (when given) is filled with the URL each named store is reached by.
    """
    from fsspec.core import url_to_fs

    names: dict[str, str] = {}  # identity -> the smallest name among its aliases
    identities = Identities()
    for pattern in patterns:
        if is_store(pattern):
            names.update((unit, unit) for unit in _store_units(pattern, {} if stores is None else stores))
            continue
        try:
            fs, base = url_to_fs(pattern)
        except (ValueError, ImportError) as error:  # an unknown protocol, or its package not installed
            raise TriageError(f"{pattern}: cannot read it: {str(error).splitlines()[0]}") from None
        remote = _remote(fs)
        if not remote:
            base = os.path.normpath(base)
        if fs.isdir(base):
            found, explicit = _files(fs.find(base, detail=True)), False
        elif fs.exists(base) if remote else os.path.lexists(base):  # a file named 'a[1].json' is that file
            found, explicit = [(base, None)], True
        elif any(char in base for char in "*?["):
            found, explicit = _files(fs.glob(base, detail=True)), False
        else:
            raise TriageError(f"{pattern}: no such file or folder")
        matched = 0
        for item, link in found:
            name = fs.unstrip_protocol(item) if remote else os.path.normpath(item)
            key = identities(name, link)
            if exclude(key):
                if explicit:
                    raise TriageError(f"{pattern}: is this run's own output table (--out); it cannot be an input")
                continue
            matched += 1
            names[key] = min(name, names.get(key, name))
        if not matched:
            raise TriageError(f"{pattern}: matches no file")
    return sorted(names.values())


def _files(found: Any) -> list[tuple[str, bool | None]]:
    """The names in a detailed listing that are not folders (files, links, FIFOs, devices: each gets a row),
    each with whether it is a symbolic link (None: the listing does not say)."""
    return [(name, info.get("islink")) for name, info in dict(found).items() if info.get("type") != "directory"]


def read_file(url: str) -> bytes:
    """The bytes of one input; OSError (a row's error) for a special file, which is never opened for reading.

    A local file is looked at first (stat), then opened without blocking and
    looked at again, so a file swapped for a FIFO in between cannot hang the worker.
    """
    if not is_local(url):
        import fsspec

        with fsspec.open(url, "rb") as handle:
            return _whole(handle.read)
    _regular(os.stat(url).st_mode)
    descriptor = os.open(url, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC)
    try:
        status = os.fstat(descriptor)
        _regular(status.st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    if status.st_size < READ_DIRECTLY_BELOW:  # straight from the descriptor, as `check` reads (no file object)
        try:
            return _whole(lambda: read_to_end(descriptor, int(status.st_size)))
        finally:
            os.close(descriptor)
    with os.fdopen(descriptor, "rb") as handle:
        return _whole(handle.read)


def _regular(mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    raise OSError(errno.EINVAL, f"not a regular file ({kind}); skipped without reading it")


def _whole(read: Callable[[], Any]) -> bytes:
    try:
        return bytes(read())
    except MemoryError:
        raise OSError(errno.ENOMEM, "too large to read into memory") from None
