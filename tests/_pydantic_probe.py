"""A `python -c` program that runs the CLI with its arguments, then says on stderr whether pydantic was loaded.

Start-up tests run it in a fresh interpreter (`[sys.executable, "-c", PROBE, *args]`): pydantic costs
a small file's `check` about 90 ms, so the paths that need none must never import it.
"""

PROBE = """
import sys
from integrity.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("pydantic loaded" if "pydantic" in sys.modules else "pydantic not loaded", file=sys.stderr)
"""
