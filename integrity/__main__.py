"""`python -m integrity` runs the command line."""

import gc
import sys

from .cli import main

code = main()
# The process ends here: without this, the collector's passes at exit walk every object of every module
# imported (0.15 s after `triage` has imported Dask and pyarrow) to free memory the process returns anyway.
gc.freeze()
sys.exit(code)
