"""The environment of the tools the tests run that are not the jlgcli under test.

Coverage's subprocess patch (pyproject: ``patch = ["subprocess"]``) sets these
variables so that every Python child measures itself. The jlgcli the e2e tests
start is measured only when ``JLGCLI_TEST_SUBPROCESS_COVERAGE=1`` (``.ci/run``
sets it): a measured child costs 2-3 times the CPU, and the README's test
command, which measures the tests' own process, ran in 2m32 instead of 3m54
(issue 18). pip, venv, pre-commit or check-jsonschema are never measured (pip
wheel ran ~55 % slower measured), nor are the fakes (their launchers drop the
variables).

A process that is sent a signal it turns into an exception (jlgcli, a Python
child of a test) must not be measured either: coverage's tracer takes its data
lock in Python code, and an exception raised there between acquire and release
leaves the lock held, so every thread of the process hangs on it for good
(seen in CI: jlgcli stuck in ``Collector.lock_data`` after SIGQUIT; coverage
7.17, CPython 3.11).
"""

from __future__ import annotations

import os

COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")
SUBPROCESS_COVERAGE = os.environ.get("JLGCLI_TEST_SUBPROCESS_COVERAGE", "") == "1"


def without_coverage(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default ``os.environ``) without coverage's subprocess variables."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if k not in COVERAGE_VARIABLES}


def tool_environ(*drop: str, **extra: str) -> dict[str, str]:
    """``without_coverage()``, also without ``drop``, plus ``extra``."""
    return {k: v for k, v in without_coverage().items() if k not in drop} | extra
