"""``python -m jlgcli``."""

import sys

from jlgcli.cli import main

sys.exit(main())
