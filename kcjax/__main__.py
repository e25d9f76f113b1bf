"""``python -m kcjax``: the kcjax command line."""

import sys

from kcjax.cli import main

sys.exit(main())
