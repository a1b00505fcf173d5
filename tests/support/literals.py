"""The values of a ``Literal`` type alias, read from its module's source.

jlgcli's run path imports no ``typing`` (issue 49): its ``Literal`` aliases exist for
type checkers only (``if TYPE_CHECKING:``), so a test that holds such a type equal to
a run-time table reads the alias where it is written.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path


def literal_values(module: str, alias: str) -> tuple[object, ...]:
    """The values of ``alias = Literal[...]`` in ``module`` (at any depth of its source)."""
    path = Path(str(importlib.import_module(module).__file__))
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == alias:
            value = node.value
            assert isinstance(value, ast.Subscript), f"{alias} is not a Literal[...]"
            assert isinstance(value.value, ast.Name) and value.value.id == "Literal"
            items = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            return tuple(ast.literal_eval(item) for item in items)
    raise AssertionError(f"no {alias} = Literal[...] in {path}")


def type_only_names(module: str) -> dict[str, object]:
    """``module``'s namespace as a type checker sees it: its globals plus what its
    ``if TYPE_CHECKING:`` blocks import or define (``typing.get_type_hints(…, localns=)``)."""
    loaded = importlib.import_module(module)
    namespace: dict[str, object] = dict(vars(loaded))
    tree = ast.parse(Path(str(loaded.__file__)).read_text("utf-8"))
    for node in tree.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name)):
            continue
        if node.test.id != "TYPE_CHECKING":
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                source = statement.module
                for alias in statement.names:
                    namespace[alias.asname or alias.name] = _type_only(source, alias.name)
            else:
                code = compile(ast.Module([statement], []), str(loaded.__file__), "exec")
                exec(code, namespace)
    return namespace


def _type_only(module: str, name: str) -> object:
    loaded = importlib.import_module(module)
    if hasattr(loaded, name):
        return getattr(loaded, name)
    return type_only_names(module)[name]
