"""The ``installer/`` scripts are not a package: load them by path (issue 9)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
INSTALLER = ROOT / "installer"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"jlgcli_installer_{name}", INSTALLER / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def release() -> ModuleType:
    """``installer/release.py``."""
    return _load("release")


@pytest.fixture(scope="session")
def freeze() -> ModuleType:
    """``installer/freeze.py``."""
    return _load("freeze")
