"""integrity._bulk.freed_memory: the C allocator's free pages go back to the system (Linux, glibc)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

_PROBE = textwrap.dedent("""
    import os
    from integrity._bulk.freed_memory import release_free_pages

    def resident():
        with open("/proc/self/statm") as status:
            return int(status.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    # Tables of 64 KiB come from malloc's heap (below its mmap threshold); a small block made after each keeps
    # the heap's top in use, so free() alone can give none of them back.  1,600 of them: 100 MiB.
    tables, keepers = [], []
    for _ in range(1600):
        tables.append([None] * 8192)
        keepers.append(bytearray(1024))
    before = resident()
    del tables
    freed = resident()
    release_free_pages()
    after = resident()
    print(before, freed, after)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
                    reason="malloc_trim is glibc's")
def test_released_pages_leave_the_process() -> None:
    # The allocator's settings are pinned (none inherited from the environment, no other allocator preloaded):
    # blocks under 1 MiB from the heap, a free() that never trims the heap's top, one arena.  So free() alone
    # keeps every table, on any machine, and only the trim can give them back.
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("MALLOC_") and key not in ("LD_PRELOAD", "GLIBC_TUNABLES", "PYTHONMALLOC")}
    environment.update(MALLOC_MMAP_THRESHOLD_=str(1 << 20), MALLOC_TRIM_THRESHOLD_=str(1 << 40),
                       MALLOC_ARENA_MAX="1")
    said = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True,
                          env=environment, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    before, freed, after = map(int, said.stdout.split())
    figures = f"resident before {before >> 20} MiB, after free() {freed >> 20} MiB, after the trim {after >> 20} MiB"
    assert freed > before - (16 << 20), figures  # free() kept the 100 MiB of tables in the process
    assert after < freed - (75 << 20), figures  # the trim gave them back

