"""The layers DESIGN.md draws hold in jlgcli's imports (issue 45): ``tools/check_imports.py``.

The first test runs the checker on the package, so the README's test command fails on a new
cycle between packages or an import from a lower layer up; the others build small trees and
show what the checker counts (imports inside functions, under ``TYPE_CHECKING``, by name
through ``importlib``, a dispatched ``"module:function"``) and what it reports.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

import jlgcli

ROOT = Path(__file__).resolve().parents[2]


def _load_checker() -> ModuleType:
    path = ROOT / "tools" / "check_imports.py"
    spec = importlib.util.spec_from_file_location("check_imports", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


checker = _load_checker()


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package named ``jlgcli`` under ``tmp_path`` with ``files`` (path → source)."""
    root = tmp_path / "jlgcli"
    for name, source in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def test_jlgcli_holds_its_layers(capsys: pytest.CaptureFixture[str]) -> None:
    assert checker.main([str(Path(jlgcli.__file__).parent)]) == 0, capsys.readouterr().err


def test_every_module_of_jlgcli_has_a_layer() -> None:
    root = Path(jlgcli.__file__).parent
    unclaimed = [
        name
        for path in root.rglob("*.py")
        if checker.part_of(name := checker.module_name(root, path)) is None
    ]
    assert unclaimed == []


INSIDE_A_FUNCTION = {
    "errors.py": "def f():\n    from jlgcli.runner import engine\n",
    "runner/__init__.py": "",
    "runner/engine.py": "",
}
# issue 45: dev/agent.py looked backends up itself; modes call agents through the core
DEV_TO_AN_ADAPTER = {
    "dev/__init__.py": "",
    "dev/agent.py": "def check():\n    from jlgcli.backends.registry import get_backend\n",
    "backends/__init__.py": "",
    "backends/registry.py": "",
}
UNDER_TYPE_CHECKING = {
    "process/__init__.py": "",
    "process/model.py": "",
    "artifacts/__init__.py": "",
    "artifacts/transcript.py": (
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from jlgcli.process.model import Event\n"
    ),
}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            INSIDE_A_FUNCTION,
            "jlgcli/errors.py:2: jlgcli.errors (artifacts and base) imports "
            "jlgcli.runner.engine (modes), a layer above it",
        ),
        (
            DEV_TO_AN_ADAPTER,
            "jlgcli/dev/agent.py:2: jlgcli.dev.agent imports jlgcli.backends.registry: the dev "
            "loop reaches an agent through the core (jlgcli.runner.entry), not an adapter",
        ),
        (
            {"cli.py": "def f():\n    from jlgcli.batch.command import finisher\n"},
            "jlgcli/cli.py:2: jlgcli.cli imports jlgcli.batch.command, which is no module",
        ),
        (
            {"brand_new/__init__.py": ""},
            "jlgcli.brand_new: no layer claims it (add it to LAYERS in tools/check_imports.py)",
        ),
        (
            UNDER_TYPE_CHECKING,
            "jlgcli/artifacts/transcript.py:3: jlgcli.artifacts.transcript (artifacts and base) "
            "imports jlgcli.process.model (backends and process), a layer above it",
        ),
    ],
    ids=[
        "inside-a-function",
        "dev-to-an-adapter",
        "moved-away",
        "unclaimed",
        "under-type-checking",
    ],
)
def test_each_problem_is_named_where_it_is(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    assert checker.check(_tree(tmp_path, files)) == [expected]


def test_a_cycle_between_packages_of_one_layer_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "runner/__init__.py": "",
            "runner/engine.py": "from jlgcli.batch import child\n",
            "batch/__init__.py": "",
            "batch/child.py": "def f():\n    from ..runner import engine\n",  # relative
        },
    )
    problem, between_modules = checker.check(root)
    assert problem.startswith("cycle between many tasks, run and loop: the core")
    assert "jlgcli/runner/engine.py:1 imports jlgcli.batch.child" in problem
    assert "jlgcli/batch/child.py:2 imports jlgcli.runner.engine" in problem
    assert between_modules.startswith("cycle between modules jlgcli.batch.child, jlgcli.runner")


def test_imports_by_name_and_dispatched_handlers_count(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "runner/__init__.py": "",
            "runner/a.py": (
                "import importlib\n"
                'importlib.import_module(f"jlgcli.dev.{name}")\n'
                'HANDLER = "jlgcli.commands.loop:execute"\n'
            ),
            "dev/__init__.py": "",
            "dev/b.py": "from jlgcli.runner import a\n",
            "commands/__init__.py": "",
            "commands/loop.py": "",
        },
    )
    upward, cycle = checker.check(root)
    assert upward.startswith("jlgcli/runner/a.py:3: jlgcli.runner.a (modes) imports")
    assert upward.endswith("jlgcli.commands.loop (doors), a layer above it")
    assert cycle.startswith("cycle between run and loop: the core, the dev loop")
    assert "jlgcli/runner/a.py:2 imports jlgcli.dev\n" in cycle + "\n"


def test_imports_inside_one_part_without_a_cycle_are_its_own(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "runner/__init__.py": "",
            "runner/a.py": "from jlgcli.runner import b\n",
            "runner/b.py": "def f():\n    from jlgcli.runner import c\n",
            "runner/c.py": "",
            "errors.py": "import os\nfrom collections import abc\n",
        },
    )
    assert checker.check(root) == []


# The command line's own cycle (issue 45): the parser imported every command by name, `help`
# read the parser back; all of it one part of the doors, so no cycle between parts showed.
PARSER_AND_HELP = {
    "cli.py": "def main():\n    from jlgcli.commands.parser import build_parser\n",
    "commands/__init__.py": "",
    "commands/parser.py": (
        'COMMANDS = ("run", "help")\n'
        "def build_parser():\n"
        "    import importlib\n"
        "    for name in COMMANDS:\n"
        '        importlib.import_module(f"jlgcli.commands.{name}").register()\n'
    ),
    "commands/run.py": "",
    "commands/other.py": "",  # named nowhere in parser.py: not imported by it
    "commands/help.py": "def execute():\n    from jlgcli.commands import parser\n",
}


def test_a_new_cycle_between_modules_fails(tmp_path: Path) -> None:
    between_parts, problem = checker.check(_tree(tmp_path, PARSER_AND_HELP))
    assert between_parts.startswith("cycle between the command line's parser, the commands:")
    assert problem == (
        "cycle between modules jlgcli.commands.help, jlgcli.commands.parser:\n"
        "    jlgcli/commands/help.py:2 imports jlgcli.commands.parser\n"
        "    jlgcli/commands/parser.py:5 imports jlgcli.commands.help"
    )


def test_a_formatted_import_counts_the_modules_its_file_names(tmp_path: Path) -> None:
    source = PARSER_AND_HELP["commands/parser.py"]
    known = {"jlgcli.commands", "jlgcli.commands.run", "jlgcli.commands.help", "jlgcli.x"}
    found = set(checker.imports_of(source, "jlgcli.commands.parser", False, known))
    assert found == {("importlib", 3), ("jlgcli.commands.run", 5), ("jlgcli.commands.help", 5)}
    unnamed = 'import importlib\nimportlib.import_module(f"jlgcli.commands.{x}")\n'
    assert list(checker.imports_of(unnamed, "jlgcli.x", False, known))[1:] == [
        ("jlgcli.commands", 2)
    ]


def test_known_module_cycles_pass_and_one_gone_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = {"runner/__init__.py": "", "runner/a.py": "from jlgcli.runner import b\n"}
    looped = {**cycle, "runner/b.py": "def f():\n    from jlgcli.runner import a\n"}
    monkeypatch.setattr(checker, "KNOWN_CYCLES", ("runner.a runner.b runner.c",))
    assert checker.check(_tree(tmp_path / "1", looped)) == []  # held, smaller than the line
    gone = checker.check(_tree(tmp_path / "2", {**cycle, "runner/b.py": ""}))
    assert gone == [
        "no cycle left of 'runner.a runner.b runner.c': "
        "delete it from KNOWN_CYCLES in tools/check_imports.py"
    ]
    # a cycle that grows past its line fails
    grown = {**looped, "runner/b.py": "from jlgcli.runner import d\n", "runner/d.py":
             "from jlgcli.runner import a\n"}  # fmt: skip
    (problem,) = checker.check(_tree(tmp_path / "3", grown))
    assert problem.startswith("cycle between modules jlgcli.runner.a, jlgcli.runner.b, ")


def test_no_door_is_in_a_known_module_cycle() -> None:
    """No line of ``KNOWN_CYCLES`` holds a door: a new cycle among them fails at once."""
    held = [f"jlgcli.{name}" for line in checker.KNOWN_CYCLES for name in line.split()]
    parts = [checker.part_of(name) for name in held]
    assert held and None not in parts  # each line names modules the map claims
    assert [name for name, part in zip(held, parts, strict=True) if part and part[0] == 0] == []
