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
    # the heap's top in use, so free() alone can give none of them back.
    tables, keepers = [], []
    for _ in range(800):
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
    said = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    before, freed, after = map(int, said.stdout.split())
    assert freed > before - (8 << 20)  # free() kept the 50 MiB of tables in the process
    assert after < freed - (40 << 20)  # the trim gave them back

