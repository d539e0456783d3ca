"""Repair: from a transcript's light view to the plan of its provider-legal view, and that view.

- `views`: the light transcript (roles, call and result ids, receipts) every planner reads;
- `plan`: the plan (which durable message goes where) and its materializer;
- `policies`: the policies as records (planner and behaviour flags), the one registry of them;
- `legalize`, `strict`: the planners; `entries`: the typed entries of a view;
- `messages`: the messages the engine itself writes (receipts, synthesized turns, rewritten copies);
- `placement`: the one durable-to-view mapping every "moved to" / "not in the view" statement reads.

Nothing is imported here: the modules sit in different layers (tests/test_import_cycles.py), and
importing one must not load the others.
"""
