"""Every hand-kept list held by a test that fails on a miss (issue 45).

Each list below is written out by hand next to the thing it lists; these tests read
the source it lists (the package's files, the event writer's calls, the config's
permission levels) and fail when the two disagree. The task server's
``WARM_MODULES`` is held the same way in ``tests/e2e/test_task_server.py`` (it needs
a loop's real imports, measured in a subprocess); a batch's options are held by
``tests/unit/batch/test_options.py`` (every loop flag reaches the tasks).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import jlgcli
from jlgcli.config.keys import PERMISSION_LEVELS

PACKAGE = Path(jlgcli.__file__).parent
DOCS = PACKAGE.parent / "docs"


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_command_modules_are_the_modules_that_register_a_command() -> None:
    """``parser.COMMANDS``: a command module left out would be no command at all (``help`` is
    the parser's own command, no module)."""
    from jlgcli.commands.parser import COMMANDS

    registering = {
        path.stem
        for path in (PACKAGE / "commands").glob("*.py")
        if any(
            isinstance(node, ast.FunctionDef) and node.name == "register"
            for node in _tree(path).body
        )
    }
    assert sorted(COMMANDS) == sorted([*registering, "help"])
    assert len(set(COMMANDS)) == len(COMMANDS)


def _emitted_event_types() -> set[str]:
    """The literal types of every ``<...>events.emit("type", ...)`` call in jlgcli, and of the
    event writer's own ``self._write("type", ...)``."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            owner_name = (
                owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            )
            emits = node.func.attr == "emit" and owner_name == "events"
            writes = (
                node.func.attr == "_write" and path.name == "events.py" and owner_name == "self"
            )
            if (emits or writes) and node.args and isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value))
    return found


def test_event_types_are_the_types_emitted_and_the_schemas() -> None:
    """``runner.events.EVENT_TYPES`` and a batch's ``BATCH_EVENT_TYPES`` (issue 51): every
    type jlgcli writes, and the published schema's."""
    from jlgcli.batch.events import BATCH_EVENT_TYPES
    from jlgcli.runner.events import EVENT_TYPES

    known = [*EVENT_TYPES, *BATCH_EVENT_TYPES]
    emitted = _emitted_event_types()
    assert emitted, "no emit call found: the scan no longer matches the code"
    assert emitted <= set(known), sorted(emitted - set(known))
    schema = json.loads((DOCS / "schemas" / "events.schema.json").read_text(encoding="utf-8"))
    assert sorted(schema["properties"]["type"]["enum"]) == sorted(known)


@pytest.mark.parametrize(
    ("module", "mapping"),
    [
        ("jlgcli.backends.claude", "PERMISSION_MODES"),
        ("jlgcli.backends.codex", "SANDBOXES"),
        ("jlgcli.backends.copilot", "PERMISSION_FLAGS"),
        ("jlgcli.backends.gemini", "APPROVAL_MODES"),
    ],
)
def test_each_backend_maps_every_permission_level(module: str, mapping: str) -> None:
    """A level missing from a backend's table would fail only when a user asked for it."""
    import importlib

    table = getattr(importlib.import_module(module), mapping)
    assert sorted(table) == sorted(PERMISSION_LEVELS)


def test_the_permission_levels_are_one_list() -> None:
    """The backends' type and a resumed state's check say the config's levels, no other."""
    from jlgcli.runner.state_schema import _OPTION_FIELDS
    from tests.support.literals import literal_values

    assert literal_values("jlgcli.backends.base", "Permissions") == PERMISSION_LEVELS
    check, _say = _OPTION_FIELDS["permissions"]
    assert all(check(level) for level in PERMISSION_LEVELS)
    assert not any(check(other) for other in ("none", "Full", "write", ""))
