"""``python -m jlgcli``."""

import sys

from jlgcli.cli import console_main

sys.exit(console_main())
