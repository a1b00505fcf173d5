"""``jlgcli dev init``: the files a first ``dev run`` needs, as short templates (issue 36).

Writes the three mandatory Phase 1 documents (FR-2.1) with their sections —
the implementation plan with one example task in the accepted format
(FR-2.3, ``docs/devloop.md``) — and ``.aidevloop.json`` (FR-3) with the
validation commands detected from the project's own files. Nothing that
exists is ever overwritten. The config's commands run only once trusted, so
the last line is the trust command to type; init never trusts for the user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.dev.config import CONFIG_NAMES
from jlgcli.dev.fsutil import write_text_atomic
from jlgcli.dev.questions import Asker, Question
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import field, record

TRUST_COMMAND = "jlgcli config trust .aidevloop.json"
# None detected: how to add one (the loop skips an unset validation step).
ADD_COMMANDS = (
    'add your checks to .aidevloop.json, e.g. "validation": {"commands": '
    '{"test": "python -m pytest", "lint": "ruff check ."}} (keys: lint, typecheck, test, '
    f"build), then let them run: {TRUST_COMMAND}"
)

REQUIREMENTS = """# Requirements

## Overview

What the project is, for whom, and why (one paragraph).

## Functional requirements

- FR-1: …

## Non-functional requirements

- NFR-1: …

## Out of scope

- …
"""

ARCHITECTURE = """# Architecture

## Components

What the parts are and what each one does.

## Data flow

How a request or a piece of data goes through the parts.

## Decisions

Choices made and why (language, libraries, layout).
"""

PLAN = """# Implementation plan

Each task is a heading with its ID, then its fields (the format: docs/devloop.md
of jlgcli). `jlgcli dev run` takes the next pending task whose dependencies are done.

## Milestone M1

### TASK-001: First task

- **ID:** TASK-001
- **Milestone:** M1
- **Status:** pending
- **Complexity:** S
- **Dependencies:** none
- **What to build:** What this task adds, in a few sentences.
- **Files in scope:** `src/module.py`, `tests/test_module.py`
- **Constraints:** What the implementation must not do.
- **Validation criteria:**
  - what must be true when the task is done
  - the tests pass
- **Context references:** `docs/requirements.md`, `docs/architecture.md`
"""

DOCUMENTS: tuple[tuple[str, str], ...] = (
    ("docs/requirements.md", REQUIREMENTS),
    ("docs/architecture.md", ARCHITECTURE),
    ("docs/implementation-plan.md", PLAN),
)


@record
class InitReport:
    """What ``dev init`` wrote and kept (the ``--json`` object)."""

    written: tuple[str, ...]
    kept: tuple[str, ...]
    commands: dict[str, str] = field(default_factory=dict)

    @property
    def trust(self) -> str | None:
        """The trust command to type, when the new config has commands to run."""
        return TRUST_COMMAND if self.commands and ".aidevloop.json" in self.written else None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": "initialised",
            "written": list(self.written),
            "kept": list(self.kept),
            "commands": dict(self.commands),
            "trust": self.trust,
            "exitCode": 0,
        }


def detect_commands(root: Path) -> dict[str, str]:
    """The validation commands the project's own files suggest (none when nothing is known)."""
    package = _read(root / "package.json")
    if package is not None:
        try:
            scripts = json.loads(package).get("scripts", {})
        except (ValueError, AttributeError):
            scripts = {}
        if not isinstance(scripts, dict):
            scripts = {}
        found = {k: f"npm run {k}" for k in ("lint", "typecheck", "build") if k in scripts}
        if "test" in scripts:
            found["test"] = "npm test"
        return found
    if (root / "go.mod").is_file():
        return {"lint": "go vet ./...", "test": "go test ./...", "build": "go build ./..."}
    if (root / "Cargo.toml").is_file():
        return {"lint": "cargo clippy", "test": "cargo test", "build": "cargo build"}
    python = [_read(root / name) for name in ("pyproject.toml", "setup.cfg", "setup.py")]
    if any(text is not None for text in python):
        return _python_commands(root, "\n".join(text or "" for text in python))
    return _bare_python_commands(root)


def _bare_python_commands(root: Path) -> dict[str, str]:
    """Python files with no packaging file (``test_calc.py`` in a folder): the tools'
    own config files, and pytest where its default discovery finds tests (issue 49)."""
    found: dict[str, str] = {}
    if any((root / name).is_file() for name in ("ruff.toml", ".ruff.toml")):
        found["lint"] = "ruff check ."
    if any((root / name).is_file() for name in ("mypy.ini", ".mypy.ini")):
        found["typecheck"] = "mypy ."
    if _pytest_finds_tests(root):
        found["test"] = "python -m pytest"
    return found


def _pytest_finds_tests(root: Path) -> bool:
    """``conftest.py``, ``pytest.ini``, or a ``test_*.py``/``*_test.py`` at the root or in
    ``tests/`` (pytest collects unittest's test cases too)."""
    if any((root / name).is_file() for name in ("conftest.py", "pytest.ini")):
        return True
    for folder in (root, root / "tests"):
        try:
            names = [entry.name for entry in folder.iterdir() if entry.is_file()]
        except OSError:
            continue
        if any(n.endswith(".py") and (n.startswith("test_") or n.endswith("_test.py"))
               for n in names):  # fmt: skip
            return True
    return False


def _python_commands(root: Path, text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    if re.search(r"\bruff\b", text):
        found["lint"] = "ruff check ."
    if re.search(r"\bmypy\b", text):
        found["typecheck"] = "mypy"
    if re.search(r"\bpytest\b", text) or (root / "conftest.py").is_file():
        found["test"] = "python -m pytest"
    elif (root / "tests").is_dir():
        found["test"] = "python -m unittest discover -s tests"
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def planned_files(root: Path, commands: dict[str, str]) -> dict[str, str]:
    """Every file init would write (path relative to ``root`` -> text); existing ones excluded."""
    files = {name: text for name, text in DOCUMENTS if not (root / name).exists()}
    if not any((root / name).exists() for name in CONFIG_NAMES):
        config = {
            "llm": "claude",
            "paths": {"docs": "docs", "context": "context", "prompts": "prompts"},
            "validation": {"maxReviewIterations": 3, "commands": commands},
            "verbose": False,
        }
        files[".aidevloop.json"] = json.dumps(config, indent=2) + "\n"
    return files


def init_project(root: Path, asker: Asker, say: Callable[[str], None]) -> InitReport:
    """Write the missing files after one question (``--yes`` answers it); returns the report."""
    commands = detect_commands(root)
    files = planned_files(root, commands)
    every = [name for name, _ in DOCUMENTS] + list(CONFIG_NAMES)
    kept = tuple(name for name in every if name not in files and (root / name).exists())
    for name in kept:
        say(f"  kept {name} (exists; never overwritten)")
    if not files:
        say("nothing to write: every file exists")
        return InitReport((), kept, commands)
    shown = "\n".join(f"  {name}" for name in files)
    detected = ", ".join(f"{k}: {v}" for k, v in commands.items()) or (
        "none detected (add them to the config after init: see its next steps)"
    )
    asker.show(f"jlgcli dev init will write:\n{shown}\nvalidation commands: {detected}")
    question = Question(
        "init", f"Write these {len(files)} file(s)?", ("y", "n"), "y", "y",
        left="nothing was written",
    )  # fmt: skip
    if asker.ask(question).choice != "y":
        raise JlgError(DevExitCode.ABORTED, "nothing written", "run again and answer y")
    for name, text in files.items():
        write_text_atomic(root / name, text)
        say(f"  wrote {name}")
    report = InitReport(tuple(files), kept, commands)
    steps = ["fill docs/requirements.md, docs/architecture.md and the plan's tasks"]
    if report.trust:
        steps.append(f"let the validation commands run: {report.trust}")
    elif ".aidevloop.json" in files:
        steps.append(ADD_COMMANDS)
    steps.append("jlgcli dev run")
    say("next:")
    for number, step in enumerate(steps, 1):
        say(f"  {number}. {step}")
    return report
