"""Which redaction engine this machine has, and whether the tests of Hyperscan itself apply.

Hyperscan is a dependency only where it has wheels (pyproject's marker; issue 35):
elsewhere the redactor finds secrets with its exact rules alone, with the same
result. ``.ci/run`` proves that by running the redaction tests with Hyperscan
hidden (``JLGCLI_TEST_WITHOUT_HYPERSCAN=1`` and a ``hyperscan`` package that
fails to import first on ``PYTHONPATH``): every test of the result runs; the
tests marked ``hyperscan`` (the engine itself: its probes, that the finder is
used) skip, and say why. Where Hyperscan is a dependency and does not load,
they run and fail: a broken install is not skipped.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from packaging.requirements import Requirement

HIDE_VARIABLE = "JLGCLI_TEST_WITHOUT_HYPERSCAN"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def hyperscan_loads() -> bool:
    """Whether ``import hyperscan`` works here."""
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


def hyperscan_required_here(pyproject: Path = PYPROJECT) -> bool:
    """Whether pyproject's ``hyperscan`` dependency applies to this platform (its marker)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    requirement = next(r for r in map(Requirement, dependencies) if r.name == "hyperscan")
    return requirement.marker is None or requirement.marker.evaluate()


def engine_skip_reason() -> str | None:
    """Why the tests of Hyperscan itself skip here, or None when they must run."""
    if os.environ.get(HIDE_VARIABLE, "") == "1":
        return "Hyperscan hidden (.ci/run's check of the fallback engine)"
    if not hyperscan_loads() and not hyperscan_required_here():
        return "Hyperscan is optional on this platform and not installed: the exact rules answer"
    return None
