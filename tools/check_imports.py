"""The layers of jlgcli, as data, and the checker that holds the tree to them (issue 45).

DESIGN.md draws five layers: doors → ``api`` → modes → backends and process → artifacts
and base. ``LAYERS`` below is that drawing, the one place it is written down: each layer
names its parts, and each part the packages and modules it holds (a module of a package may
belong elsewhere, such as the dev program's entry: a door kept in dev/). A module belongs to
the part with the longest matching name.

Every import counts: at the top of a module, inside a function (only later), under
``if TYPE_CHECKING:`` (a cycle in the types is a cycle a reader follows all the same, and
mypy follows it), ``importlib.import_module`` with a literal name (``f"jlgcli.commands.{x}"``
counts as every ``jlgcli.commands.<name>`` whose name is a string of the same file, such as
the parser's list of commands, else as ``jlgcli.commands``), and a handler the command line
dispatches to by name (``"jlgcli.commands.loop_entry:execute_loop"``). The checker fails on

- an import from a layer to a layer above it;
- a cycle between parts (packages and top-level modules), inside a layer too;
- a cycle between modules that ``KNOWN_CYCLES`` does not hold (one there may shrink or go);
- a module that no part of the map claims (a new package must be placed in a layer);
- an import ``APART`` forbids (the dev loop reaches agents through the core only);
- an import of a module of jlgcli that does not exist (a name a move left behind).

What it cannot see: a module named by a variable (the task server imports ``WARM_MODULES``,
plain names it warms up before forking tasks) and a child process (``python -m …``).

Between modules, an import counts as above; importing ``a.b`` also runs ``a/__init__.py``,
but that edge is not drawn (every submodule would be in a cycle with its package).

Run ``python tools/check_imports.py`` (CI: ``.ci/run``; ``tests/unit/test_layers.py`` runs it
too, so the README's test command does).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGE = "jlgcli"
HERE = "tools/check_imports.py"
HANDLER = re.compile(r"jlgcli(\.\w+)+:\w+")

# Top to bottom: (layer, its parts); a part is (what it is, the names it holds). An import may
# go to its own layer (without a cycle between parts) or to any layer below.
LAYERS: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = (
    (
        "doors",
        (
            # The jlgcli program parses and dispatches; the parser gathers the commands' own
            # sub-parsers and answers `help`; tab completion and the GitHub Action read that
            # parser back. Nothing in commands/ imports the parser or what reads it.
            ("the jlgcli program", ("jlgcli.__main__", "jlgcli.cli")),
            ("the GitHub Action", ("jlgcli.integrations.action", "jlgcli.integrations.argv")),
            ("the Invoke collection", ("jlgcli.invoke_tasks",)),
            (
                "tab completion",
                ("jlgcli.commands.complete", "jlgcli.commands.complete_words"),
            ),
            ("the command line's parser", ("jlgcli.commands.parser",)),
            ("the commands", ("jlgcli.commands",)),
            ("python -m jlgcli.readme_tables", ("jlgcli.readme_tables",)),
            # `jlgcli board`'s server and pages: started by commands/board.py, below it.
            ("jlgcli board, the dashboard", ("jlgcli.board",)),
            # What the doors share to speak GitHub and pre-commit: below every door.
            ("GitHub and pre-commit glue", ("jlgcli.integrations",)),
        ),
    ),
    (
        "api",
        (
            ("what every door calls", ("jlgcli.api",)),
            ("the one error boundary of every console script", ("jlgcli.boundary",)),
        ),
    ),
    (
        "modes",
        (
            ("the dev loop", ("jlgcli.dev",)),
            ("many tasks", ("jlgcli.batch",)),
            ("rebound", ("jlgcli.rebound",)),
            ("jlgcli doctor", ("jlgcli.doctor",)),
            ("run and loop: the core", ("jlgcli.runner",)),
        ),
    ),
    (
        "backends and process",
        (
            ("the agent CLIs", ("jlgcli.backends",)),
            ("spawning and ending processes", ("jlgcli.process",)),
            ("completion parsers", ("jlgcli.completion",)),
            ("reading the prompt", ("jlgcli.prompts",)),
        ),
    ),
    (
        "artifacts and base",
        (
            ("run artifacts, redaction", ("jlgcli.artifacts",)),
            ("configuration and trust", ("jlgcli.config",)),
            ("the demo's recording", ("jlgcli.demo",)),
            ("the package", ("jlgcli", "jlgcli._version")),
            *(
                (name, (f"jlgcli.{name}",))
                for name in (
                    "ansi",
                    "cmdline",
                    "colour",
                    "crash",
                    "durations",
                    "errors",
                    "front_matter",
                    "frozen",
                    "input_limits",
                    "lazy_re",
                    "moments",
                    "money",
                    "output",
                    "records",
                    "selfcmd",
                    "startup_gc",
                )
            ),
        ),
    ),
)


# Imports the layers would allow but a part must not make: (importer, imported, why).
APART: tuple[tuple[str, str, str], ...] = (
    (
        "jlgcli.dev",
        "jlgcli.backends",
        "the dev loop reaches an agent through the core (jlgcli.runner.entry), not an adapter",
    ),
)


# The module cycles jlgcli had when the checker began to count them (issue 45), without the
# leading "jlgcli.": each may shrink or go (then its line goes too); a new one, or one that
# grows, fails. The doors (cli.py, commands/) have none.
KNOWN_CYCLES: tuple[str, ...] = (
    "artifacts.deltas artifacts.redact artifacts.streaming artifacts.wraps",
    "config.paths config.resolve config.trust",
    "process process.captured process.child process.descendants process.pipe "
    "process.pty_posix process.pty_windows process.run process.warm",
    "process.console_events process.signals",
    "process.model process.outcome",
    "runner.calls runner.iterations runner.repair runner.replies",
    "runner.options runner.options_record runner.resume_options",
)


def _kept_apart(module: str, target: str) -> str | None:
    for importer, imported, why in APART:
        if _within(module, importer) and _within(target, imported):
            return why
    return None


def _within(module: str, name: str) -> bool:
    return module == name or module.startswith(name + ".")


def module_name(root: Path, path: Path) -> str:
    """``jlgcli/runner/engine.py`` → ``jlgcli.runner.engine``; ``x/__init__.py`` → ``x``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _named_module(node: ast.expr) -> str | None:
    """``"jlgcli.x"`` → ``jlgcli.x``; ``f"jlgcli.commands.{name}"`` → ``jlgcli.commands``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value.rpartition(".")[0] or None
    return None


def _literal_import_module(node: ast.Call) -> str | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__") or not node.args:
        return None
    return _named_module(node.args[0])


def _formatted_imports(package: str, tree: ast.Module, known: set[str]) -> list[str]:
    """What ``import_module(f"{package}.{x}")`` may import: ``package.<s>`` for each string
    ``s`` of the file that names a module there (a list of commands, a lazy map), else
    ``package`` itself."""
    named = {
        f"{package}.{node.value}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    return sorted(named & known) or [package]


def imports_of(
    source: str, module: str, is_package: bool, known: set[str]
) -> Iterator[tuple[str, int]]:
    """Every module of the package ``source`` imports, with the line: anywhere in the file."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve_relative(module, is_package, node.level, node.module)
            else:
                base = node.module or ""
            for alias in node.names:
                # ``from jlgcli.config import keys`` imports the module jlgcli.config.keys
                candidate = f"{base}.{alias.name}"
                yield (candidate if candidate in known else base), node.lineno
        elif isinstance(node, ast.Call):
            named = _literal_import_module(node)
            if named is not None and isinstance(node.args[0], ast.JoinedStr):
                for each in _formatted_imports(named, tree, known):
                    yield each, node.lineno
            elif named is not None:
                yield named, node.lineno
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and HANDLER.fullmatch(node.value)
        ):  # a handler named "jlgcli.module:function", imported when it is dispatched to
            yield node.value.partition(":")[0], node.lineno


def part_of(module: str) -> tuple[int, str] | None:
    """The layer (0 = top) and the part that claims ``module``: the longest name that matches."""
    best: tuple[int, str, str] | None = None
    for rank, (_, parts) in enumerate(LAYERS):
        for label, names in parts:
            for name in names:
                inside = name != PACKAGE and module.startswith(name + ".")
                if (module == name or inside) and (best is None or len(name) > len(best[2])):
                    best = (rank, label, name)
    return None if best is None else (best[0], best[1])


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def check(root: Path) -> list[str]:
    """What is wrong with the imports of the package at ``root``; empty when the layers hold."""
    files = sorted(root.rglob("*.py"))
    modules = {module_name(root, path): path for path in files}
    known = set(modules)
    problems: list[str] = []
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    between_modules: dict[str, set[str]] = {module: set() for module in modules}
    seen: set[tuple[str, str]] = set()
    for module, path in modules.items():
        claimed = part_of(module)
        if claimed is None:
            problems.append(f"{module}: no layer claims it (add it to LAYERS in {HERE})")
            continue
        rank, part = claimed
        edges.setdefault(part, set())
        source = path.read_text(encoding="utf-8")
        for target, line in imports_of(source, module, path.name == "__init__.py", known):
            if target != PACKAGE and not target.startswith(PACKAGE + "."):
                continue
            here = f"{path.relative_to(root.parent).as_posix()}:{line}"
            if target not in known and (here, target) not in seen:
                seen.add((here, target))  # a name left behind by a move (or a typo)
                problems.append(f"{here}: {module} imports {target}, which is no module")
                continue
            if target != module:
                between_modules[module].add(target)
                where.setdefault((module, target), f"{here} imports {target}")
            other = part_of(target)
            if other is None or other[1] == part:
                continue
            why = _kept_apart(module, target)
            if why is not None and (here, target) not in seen:
                seen.add((here, target))
                problems.append(f"{here}: {module} imports {target}: {why}")
            if other[0] < rank and (here, target) not in seen:
                seen.add((here, target))
                problems.append(
                    f"{here}: {module} ({LAYERS[rank][0]}) imports {target} "
                    f"({LAYERS[other[0]][0]}), a layer above it"
                )
            edges[part].add(other[1])
            where.setdefault((part, other[1]), f"{here} imports {target}")
    for component in _cycles(edges):
        members = set(component)
        links = sorted(
            where[(a, b)] for a in component for b in edges[a] if b in members and (a, b) in where
        )
        problems.append("cycle between " + ", ".join(component) + ":\n    " + "\n    ".join(links))
    return problems + module_cycles(between_modules, where)


def module_cycles(edges: dict[str, set[str]], where: dict[tuple[str, str], str]) -> list[str]:
    """The cycles between modules that ``KNOWN_CYCLES`` does not hold, and the lines of it
    that no cycle fills any more."""
    known = [{f"{PACKAGE}.{name}" for name in line.split()} for line in KNOWN_CYCLES]
    problems: list[str] = []
    found = _cycles(edges)
    for component in found:
        if any(set(component) <= cycle for cycle in known):
            continue
        links = sorted(where[(a, b)] for a in component for b in edges[a] if b in component)
        problems.append(
            "cycle between modules " + ", ".join(component) + ":\n    " + "\n    ".join(links)
        )
    for line, cycle in zip(KNOWN_CYCLES, known, strict=True):
        there = len(cycle & edges.keys()) > 1  # (a tree without these modules: no cycle to keep)
        if there and not any(len(cycle.intersection(component)) > 1 for component in found):
            problems.append(f"no cycle left of {line!r}: delete it from KNOWN_CYCLES in {HERE}")
    return problems


def main(argv: Iterable[str] = ()) -> int:
    args = list(argv)
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent / PACKAGE
    problems = check(root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} import problem(s): see DESIGN.md, layers", file=sys.stderr)
        return 1
    print(f"imports: {PACKAGE}'s layers hold, no package cycle, no new module cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
