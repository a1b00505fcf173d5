"""The environment of the tools the tests run that are not the jlgcli under test.

Coverage's subprocess patch (pyproject: ``patch = ["subprocess"]``) sets these
variables so that every Python child measures itself: right for the jlgcli the
e2e tests start, waste for pip, venv, pre-commit or check-jsonschema (pip
wheel ran ~55 % slower measured; issue 18). The fakes' launchers drop them too.
"""

from __future__ import annotations

import os

COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


def tool_environ(*drop: str, **extra: str) -> dict[str, str]:
    """``os.environ`` without coverage's subprocess variables (nor ``drop``), plus ``extra``."""
    unwanted = {*COVERAGE_VARIABLES, *drop}
    return {k: v for k, v in os.environ.items() if k not in unwanted} | extra
