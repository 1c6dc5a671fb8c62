"""`python -m cuda.coop`: the same command line as the `coop` console script."""

import sys

from ._cli import main

sys.exit(main())
