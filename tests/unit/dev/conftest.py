"""Makes ``devkit`` (text builders shared by the dev-loop unit tests) importable.

The suite runs with ``--import-mode=importlib``, which puts no test folder on
``sys.path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
