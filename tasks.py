"""The project's own Invoke tasks (``pip install -e '.[test,lint]'``, then ``invoke --list``).

Dev tasks: ``test``, ``lint``, ``typecheck``, ``bench``, ``freeze``. Next to them, the
same user-facing collection any repository gets from ``jlgcli.invoke_tasks``:
``invoke loop --task task.md`` runs jlgcli in-process, exactly like ``jlgcli loop``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from invoke import Collection, task

from jlgcli.invoke_tasks import dev, loop, run

ROOT = Path(__file__).resolve().parent
PY = f'"{sys.executable}"'  # the Python running invoke: its venv has the tools


@task(help={"args": "more pytest arguments, e.g. '-m \"not slow\" -x'"})
def test(c, args=""):
    """Run the test suite with branch coverage (as CI does)."""
    c.run(f"{PY} -m pytest --cov --cov-report=term {args}", pty=False)


@task(help={"fix": "apply ruff's fixes and format the code"})
def lint(c, fix=False):
    """ruff check and ruff format --check (or fix both), then the layers' import check."""
    if fix:
        c.run(f"{PY} -m ruff check --fix .")
        c.run(f"{PY} -m ruff format .")
        return
    c.run(f"{PY} -m ruff check .")
    c.run(f"{PY} -m ruff format --check .")
    c.run(f"{PY} tools/check_imports.py")


@task
def typecheck(c):
    """mypy --strict over jlgcli/ (configured in pyproject.toml)."""
    c.run(f"{PY} -m mypy")


@task(help={"args": "arguments for every benchmark, e.g. '--rounds 10'"})
def bench(c, args=""):
    """Run every benchmarks/*.py (short runs: the machine may be shared)."""
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        print(f"== {script.name}", flush=True)
        c.run(f'{PY} "{script}" {args}')


@task(help={"onefile": "also build the single-file executable"})
def freeze(c, onefile=False):
    """Build the standalone executable with PyInstaller (installer/jlgcli.spec)."""
    c.run(f'{PY} "{ROOT / "installer" / "freeze.py"}"' + (" --onefile" if onefile else ""))


ns = Collection(test, lint, typecheck, bench, freeze, run, loop, dev)
