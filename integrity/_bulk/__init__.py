"""Bulk plumbing: what makes the engine fast and safe at a million messages, kept out of the algorithms.

Entry points, by purpose:
- `fast_read`: `check`/`repair` of a pi-ai file from a light view decoded a block at a time (`blocks`),
  never a dict per message; the one pipeline (integrity.pipeline) uses it as a representation.
- `atomic_write`: every file the engine writes goes through a temporary file and a rename (no partial files).
- `pieces`, `frames`, `indent_process`: a large JSON report encoded in C and indented in another process.
- `children`: stopping a forked child whose work is no longer wanted (the fast reader's checks).
- `gc_pause`: pausing the cyclic garbage collector around one engine call.

Nothing is imported here: the modules sit in different layers, and importing one must not load the others.
"""
