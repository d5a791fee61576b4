"""``python -m lcl.cli``: the ``lcl`` command line without the console script."""

import sys

from . import main

sys.exit(main())
