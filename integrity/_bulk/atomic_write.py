"""Writing the CLI's output files so that nothing the user has is lost.

`repair` writes up to two things: the repaired transcript (`-o`) and the report
(`--report`), each to a file or to standard output (`-`).  The rules:

- Neither may be the input, nor each other: paths are compared after following
  symbolic links, and existing files by device and inode (a hard link is the same
  file).  Standard input that is a redirected file counts as the input too.
- Only regular files are replaced.  A directory, device, FIFO or socket is
  refused (`--report /dev/null` never replaces /dev/null; use `-` for standard
  output).  A symbolic link is followed: the file it points to is replaced and the
  link stays a link; a link to a missing file is refused.
- Each file is written to a temporary file beside the real target, then renamed
  over it, so a reader never sees half a file.  All temporary files are written
  first and renamed only when every one succeeded; if a rename fails, the ones
  already renamed are put back.  So a failure leaves no target changed.
- A replaced file keeps its permission bits (0600 stays 0600) and, when allowed,
  its owner; a new file gets the usual 0666 minus the umask.
- SIGINT and SIGTERM raise while the command runs (`signals_raise`), so temporary
  files are removed on the way out; they are blocked during the renames.
- Every error names the user's path, never the temporary file's.
"""

from __future__ import annotations

import errno
import os
import secrets
import signal
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, BinaryIO, cast

STDOUT = "-"


class WriteError(Exception):
    """A target we will not or could not write; str() is the one-line explanation (user's path first)."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException, like KeyboardInterrupt, so cleanup code runs)."""


@dataclass
class Target:
    """One thing to write: `path` as the user typed it ('-' is standard output), `what` names it in errors."""

    path: str
    what: str
    real: str = ""  # the file actually replaced (symbolic links followed)
    existing: os.stat_result | None = None
    temporary: str = ""
    backup: str = ""
    done: bool = False

    @property
    def is_stdout(self) -> bool:
        return self.path == STDOUT


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """'a directory', 'a FIFO'... for anything that is not a regular file ('' for one)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "" if stat.S_ISREG(mode) else "not a regular file"


def _stdin_stat() -> os.stat_result | None:
    try:
        return os.fstat(0)
    except OSError:
        return None


def _resolve(target: Target) -> None:
    """Fill target.real and target.existing, or raise WriteError for a target we never replace."""
    path = target.path
    if not path:
        raise WriteError("''", f"an empty file name for the {target.what}")
    real, status = _real_and_status(path)
    if real:  # no link at its end (a batch knows its folder's real path): one lstat said everything
        target.real, target.existing = real, status
    else:
        target.real = os.path.realpath(path)
        if os.path.islink(path) and not os.path.lexists(target.real):
            raise WriteError(path, "is a symbolic link to a missing file; refusing to create it")
        try:
            target.existing = os.stat(target.real)
        except FileNotFoundError:
            target.existing = None
        except OSError as error:
            raise WriteError(path, f"cannot write: {error.strerror or error}") from None
    if target.existing is not None:
        kind = file_kind(target.existing.st_mode)
        if kind:
            raise WriteError(path, f"is {kind}, not a regular file; refusing to replace it "
                                   f"(only regular files are written; '-' is standard output)")
        return
    if path.endswith(("/", os.sep)):
        raise WriteError(path, "names a folder, not a file")
    folder = os.path.dirname(target.real) or "."
    if not os.path.isdir(folder):
        raise WriteError(path, "cannot write: its folder does not exist")


def _real_and_status(path: str) -> tuple[str, os.stat_result | None]:
    """Inside a batch (flushed_together): the real path of `path` and its status (None: no such file), from
    its folder's real path (worked out once a batch) and one lstat; ('', None) when that cannot say (no batch,
    a name ending in a link, '.' or '..', or an lstat that fails otherwise): the caller resolves it whole.

    os.path.realpath takes an lstat per component of the path (about 25 µs for a path 6 folders deep), and a
    batch plans every one of its files in the same two folders (the inputs' and --out-dir)."""
    batch = _batch
    if batch is None:
        return "", None
    folder, name = os.path.split(path)
    if not name or name in (".", ".."):
        return "", None
    real_folder = batch.folders.get(folder)
    if real_folder is None:
        real_folder = batch.folders[folder] = os.path.realpath(folder)
    real = os.path.join(real_folder, name)
    try:
        status = os.lstat(real)
    except FileNotFoundError:
        return real, None
    except OSError:
        return "", None
    return ("", None) if stat.S_ISLNK(status.st_mode) else (real, status)


def _same(a: Target, b: Target) -> bool:
    if a.existing is not None and b.existing is not None:
        return os.path.samestat(a.existing, b.existing)
    return os.path.normcase(a.real) == os.path.normcase(b.real)


def plan(input_path: str, targets: Sequence[Target]) -> None:
    """Check every target before anything is computed or written; raises WriteError.

    Refused: two targets on standard output, a target that is the input (by path
    or by inode; standard input counts when it is a redirected file), two targets
    that are the same file, and anything _resolve refuses.
    """
    on_stdout = [t for t in targets if t.is_stdout]
    if len(on_stdout) > 1:
        raise WriteError("<stdout>", f"the {on_stdout[0].what} and the {on_stdout[1].what} cannot both go to "
                                     "standard output (with --report -, name the transcript's file with -o FILE)")
    if input_path == STDOUT:
        source = _stdin_stat()
        source_real = ""
        if source is not None and not stat.S_ISREG(source.st_mode):
            source = None
    else:
        source_real, source = _real_and_status(input_path)
        if not source_real:
            source_real = os.path.realpath(input_path)
            try:
                source = os.stat(input_path)
            except OSError:
                source = None
    files = [t for t in targets if not t.is_stdout]
    for target in files:
        _resolve(target)
        same_path = source_real and os.path.normcase(target.real) == os.path.normcase(source_real)
        same_file = source is not None and target.existing is not None and os.path.samestat(source, target.existing)
        if same_path or same_file:
            raise WriteError(target.path, f"is the input file; refusing to write the {target.what} over it "
                                          "(the input is never changed)")
    for index, first in enumerate(files):
        for second in files[index + 1:]:
            if _same(first, second):
                raise WriteError(second.path, f"is also the {first.what} file; the {first.what} and the "
                                              f"{second.what} need different files")


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _open_temporary(target: Target) -> BinaryIO:
    """A temporary file beside the real target, with the target's permissions (and owner when allowed)."""
    folder = os.path.dirname(target.real) or "."
    name = os.path.basename(target.real)[:80]  # room for the rest within the longest name allowed
    handle = _named_then_made(target, folder, name)
    existing = target.existing
    if existing is not None:
        mode = stat.S_IMODE(existing.st_mode)
    elif _batch is not None:  # (the umask is read, and set back, once a batch)
        if _batch.new_mode < 0:
            _batch.new_mode = _new_file_mode()
        mode = _batch.new_mode
    else:
        mode = _new_file_mode()
    os.fchmod(handle, mode)
    if existing is not None and hasattr(os, "fchown"):
        try:
            os.fchown(handle, existing.st_uid, existing.st_gid)
        except OSError:
            pass  # not ours to give away: the file becomes ours, its mode is kept
    return os.fdopen(handle, "wb", _BUFFER)


_BUFFER = 1 << 16
"""The temporary file's buffer (given, so that opening it asks no isatty of it)."""


_TEMPORARY_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
"""A new file only (never one there already, nor through a link), readable and writable, as mkstemp opens it."""


def _named_then_made(target: Target, folder: str, name: str) -> int:
    """Name a new temporary file beside the target (target.temporary), then make it: a handle open on it.

    The name is recorded before the file exists, so a signal that raises at any moment (SIGINT, or SIGTERM
    under signals_raise) leaves nothing the cleanup does not know of: with mkstemp the file was made before its
    name came back, and blocking the signals around it holds only in a process whose other threads block them
    too.  A name already taken (48 random bits: all but never) is forgotten and another drawn."""
    for _ in range(_NAME_ATTEMPTS):
        target.temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.integrity-tmp")
        try:
            return _create(target.temporary)
        except FileExistsError:
            target.temporary = ""
        except OSError as error:  # (a folder that takes no new file: /proc, a read-only mount) the error names
            target.temporary = ""  # the folder, not the target, which may well exist
            raise OSError(error.errno, f"cannot make a new file in {folder} ({error.strerror or error})") from None
    raise FileExistsError(errno.EEXIST, "no free temporary name", folder)


_NAME_ATTEMPTS = 100


def _create(path: str) -> int:
    """Make the new file (os.open with _TEMPORARY_FLAGS, private to its owner until its mode is set)."""
    return os.open(path, _TEMPORARY_FLAGS, 0o600)


def _remove(path: str) -> None:
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass


def _write_temporary(target: Target, produce: Callable[[BinaryIO], Any], flush: bool = True) -> int:
    """Write the target's temporary file (fsynced unless `flush` is False: a batch flushes it); its size."""
    try:
        with _open_temporary(target) as out:
            produce(cast(BinaryIO, _WrittenBack(out)) if flush and _ADVISES else out)
            out.flush()
            if flush:
                os.fsync(out.fileno())
            return out.tell()
    except OSError as error:
        raise WriteError(target.path, f"cannot write the {target.what}: {error.strerror or error}") from None


_ADVISES = hasattr(os, "posix_fadvise")

_WRITE_BACK = 2 << 20
"""Bytes written between two hints to the kernel to start putting them on disk (_WrittenBack)."""


class _WrittenBack:
    """A temporary file that asks the kernel to start writing its bytes to disk as they come, every _WRITE_BACK
    bytes, so that the fsync before the rename waits only for the last few (a 40 MB repair spent ~20 ms there,
    waiting for all of them).  The promise is unchanged: the file is renamed only after that fsync.

    The hint is POSIX_FADV_DONTNEED on the bytes just written: Linux starts their writeback (without waiting
    for it) and drops only pages already clean, which these are not yet, so the file stays cached.  Only write,
    writelines and flush are offered: what a repair's producers call."""

    __slots__ = ("_out", "_handle", "_written", "_told")

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._handle = out.fileno()
        self._written = 0
        self._told = 0

    def write(self, data: Any) -> int:
        count = self._out.write(data)
        self._written += len(data)
        if self._written - self._told >= _WRITE_BACK:
            self._out.flush()
            try:
                os.posix_fadvise(self._handle, self._told, self._written - self._told, os.POSIX_FADV_DONTNEED)
            except OSError:
                pass  # only a hint: the fsync writes them anyway
            self._told = self._written
        return count

    def writelines(self, lines: Any) -> None:
        write = self.write
        for line in lines:
            write(line)

    def flush(self) -> None:
        self._out.flush()


class FlushBatch:
    """Files written (write_all) while a batch is open are flushed to disk together, then renamed into place.

    The promise is the one write_all makes for one file: a file gets its final name only after its
    bytes are on disk, so a crash leaves the old file (or none) or the whole new one, never a short
    one.  What changes is how often the disk is waited on: one flush of the folder's file system
    (syncfs, Linux) for the batch instead of one fsync per file, each of which waited for its own
    journal commit.  Where syncfs is missing each file is fsynced, just before the renames.
    """

    def __init__(self) -> None:
        self.pending: list[tuple[Any, list[Target]]] = []  # (the caller's key, one write_all's files)
        self.key: Any = None
        self.folders: dict[str, str] = {}  # a folder as named -> its real path (_real_and_status)
        self.new_mode = -1  # a new file's permission bits (0666 less the umask), once asked
        self.held = 0  # bytes written to the pending files (what the next flush waits for)

    def finish(self) -> dict[Any, WriteError]:
        """Flush every pending file, then rename each write_all's files into place (all or nothing, as
        write_all does); the errors by key.  Nothing is pending afterwards."""
        pending, self.pending = self.pending, []
        self.held = 0
        failed: dict[Any, WriteError] = {}
        if not pending:
            return failed
        try:
            flushed = _flush_together([target for _, files in pending for target in files])
            with _signals_blocked():  # once for the batch's renames, not twice a file
                for key, files in pending:
                    problem = next((flushed[id(target)] for target in files if id(target) in flushed), None)
                    try:
                        if problem is not None:
                            raise problem
                        _renamed(files)
                    except WriteError as error:
                        failed[key] = error
        finally:
            for _, files in pending:
                for target in files:
                    if not target.done:
                        _remove(target.temporary)
        return failed

    def discard(self) -> None:
        """Remove every pending temporary file (the batch stops: nothing more is renamed)."""
        pending, self.pending = self.pending, []
        for _, files in pending:
            for target in files:
                _remove(target.temporary)


@cache
def syncfs_function() -> Callable[[int], int] | None:
    """The C library's syncfs (Linux), looked up once a process (None where there is none).  `repair
    --out-dir` asks it before forking its workers, so none of them imports ctypes again."""
    try:
        import ctypes

        return cast(Callable[[int], int], ctypes.CDLL(None, use_errno=True).syncfs)
    except (OSError, AttributeError):
        return None


def _syncfs(path: str) -> bool:
    """Flush the file system holding `path` (Linux syncfs); False where that is not available or fails."""
    syncfs = syncfs_function()
    if syncfs is None:
        return False
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return bool(syncfs(handle) == 0)
    finally:
        os.close(handle)


def _flush_together(targets: Sequence[Target]) -> dict[int, WriteError]:
    """Put every temporary file's bytes on disk: one syncfs per folder, else one fsync per file.  The errors
    by id() of the target whose fsync failed (only that file's write is refused)."""
    folders = {os.path.dirname(target.temporary) or "." for target in targets}
    if all(_syncfs(folder) for folder in folders):
        return {}
    failed: dict[int, WriteError] = {}
    for target in targets:
        try:
            handle = os.open(target.temporary, os.O_RDONLY)
            try:
                os.fsync(handle)
            finally:
                os.close(handle)
        except OSError as error:
            failed[id(target)] = WriteError(target.path, f"cannot write the {target.what}: "
                                                         f"{error.strerror or error}")
    return failed


_batch: FlushBatch | None = None


@contextmanager
def flushed_together() -> Iterator[FlushBatch]:
    """A FlushBatch for the write_all calls made inside (files only: a write that goes to standard output is
    never deferred).  The caller calls finish(); leaving by an exception discards what is pending."""
    global _batch
    batch = _batch = FlushBatch()
    try:
        yield batch
    except BaseException:
        batch.discard()
        raise
    finally:
        _batch = None
        batch.discard()


@contextmanager
def _signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the renames are done (where the platform allows)."""
    block = getattr(signal, "pthread_sigmask", None)
    if block is None:
        yield
        return
    previous = block(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        block(signal.SIG_SETMASK, previous)


def _commit(files: Sequence[Target]) -> None:
    """Rename every temporary file over its target; on a failure put back the ones already renamed."""
    with _signals_blocked():
        _renamed(files)


def _renamed(files: Sequence[Target]) -> None:
    """_commit's renames, SIGINT and SIGTERM blocked by the caller."""
    for target in files:
        if target.existing is not None:
            target.backup = target.temporary + ".old"
            try:
                os.link(target.real, target.backup)
            except OSError:
                target.backup = ""
    try:
        for target in files:
            os.replace(target.temporary, target.real)
            target.done = True
    except OSError as error:
        failed = next(t for t in files if not t.done)
        for target in files:
            if target.done:
                _put_back(target)
        raise WriteError(failed.path, f"cannot write the {failed.what}: {error.strerror or error}") from None
    finally:
        for target in files:
            _remove(target.backup)


def _put_back(target: Target) -> None:
    """Undo one rename: the old file back from its hard-link backup, or the new file removed."""
    try:
        if target.backup:
            os.replace(target.backup, target.real)
        else:
            _remove(target.real)
    except OSError:
        pass  # nothing more can be done; the error about the failed rename is raised anyway
    target.done = False


def write_all(jobs: Sequence[tuple[Target, Callable[[BinaryIO], Any]]], stdout: BinaryIO) -> None:
    """Write every target, all or nothing (see the module docstring); raises WriteError.

    Files go to temporary files first, then standard output is written, then the
    files are renamed into place: a failure anywhere before the renames leaves
    every target as it was.  plan() must have checked the targets.
    """
    files = [target for target, _ in jobs if not target.is_stdout]
    batch = _batch if len(files) == len(jobs) else None  # (files only: see flushed_together)
    try:
        for target, produce in jobs:
            if not target.is_stdout:
                if batch is None:
                    _write_temporary(target, produce)
                else:
                    batch.held += _write_temporary(target, produce, flush=False)
        if batch is not None:
            batch.pending.append((batch.key, files))
            files = []  # the batch renames them (FlushBatch.finish), or removes them
            return
        for target, produce in jobs:
            if target.is_stdout:
                try:
                    produce(stdout)
                    stdout.flush()
                except BrokenPipeError:
                    raise
                except OSError as error:
                    raise WriteError("<stdout>", f"cannot write the {target.what}: "
                                                 f"{error.strerror or error}") from None
        _commit(files)
    finally:
        for target in files:
            if not target.done:
                _remove(target.temporary)


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


@contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM raises Terminated (SIGINT already raises KeyboardInterrupt) while the block runs.

    Only the main thread can set handlers; elsewhere (an embedding program's
    worker thread) nothing changes.
    """
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
