"""``RunOptions`` written down and read back (issue 44).

Two uses, one format: what the user asked for a run or a batch (its gates,
backend, fallbacks, permissions, budgets — resolved, so a resume applies
exactly those again), and the options a batch hands each task (its loop
reads them instead of re-parsing a command line). Both are kept in the
user's own config folder (``jlgcli.config.asked``); read back they are
still checked field by field, and every value goes through the same parsing
as a flag (``runner.options.flag_settings``).
"""

from __future__ import annotations

from jlgcli import records

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.runner.options import RunOptions

SCHEMA = "jlgcli.run-options/1"
# Settings of the options given for this start only, never what a resume applies again.
_PER_START = frozenset({"verbosity", "artifacts_dir"})
_SCALARS = (str, int, float, bool)


def to_json(options: RunOptions) -> dict[str, Any]:
    """The options as JSON (fields left unset are left out)."""
    data: dict[str, Any] = {"schema": SCHEMA}
    for item in records.fields(options):
        value = getattr(options, item.name)
        if value is None or value == ():
            continue
        data[item.name] = (
            [list(v) if isinstance(v, tuple) else v for v in value]
            if isinstance(value, tuple)
            else value
        )
    return data


def from_json(data: dict[str, Any]) -> RunOptions:
    """The options ``to_json`` wrote; ``ValueError`` for anything else (a damaged record)."""
    from jlgcli.runner.options import RunOptions

    if data.get("schema") != SCHEMA:
        raise ValueError(f"not a record of run options ({data.get('schema')!r})")
    values: dict[str, Any] = {}
    for item in records.fields(RunOptions):
        if item.name not in data:
            continue
        value = data[item.name]
        if item.name == "known_versions":
            values[item.name] = tuple(_pair(pair) for pair in _list(item.name, value))
        elif isinstance(item.default, tuple):
            values[item.name] = tuple(_text(item.name, word) for word in _list(item.name, value))
        elif value is not None and not isinstance(value, _SCALARS):
            raise ValueError(f"field {item.name!r}: not a plain value")
        else:
            values[item.name] = value
    return RunOptions(**values)


def asked(options: RunOptions, values: dict[str, Any], session: str) -> RunOptions:
    """What a run was asked to be: every setting resolved from the flags, environment and
    config (``values``), so that a resume does not depend on a config changed meanwhile.
    No gates is recorded as ``no_gates``: a gate added to the config later stays out."""
    from pathlib import Path

    from jlgcli.runner.options import FLAG_KEYS, LIST_KEYS, RunOptions

    resolved: dict[str, Any] = {
        name: values[key] for name, key in FLAG_KEYS.items() if name not in _PER_START
    }
    resolved.update({name: tuple(values[key]) for name, key in LIST_KEYS.items()})
    resolved["max_cost"] = values["maxCostUsd"] or None  # 0: no budget
    return RunOptions(
        **resolved,
        model=options.model,
        backend_args=tuple(options.backend_args),
        session=session,
        replay=str(Path(options.replay).resolve()) if options.replay else None,
        script_timeout=options.script_timeout,
        ledger_dir=str(Path(options.ledger_dir).resolve()) if options.ledger_dir else None,
        no_gates=True if not values["gates"] else None,
        notify=tuple(options.notify),  # the flags' targets: a batch's tasks and a resume get them
    )


def describe(options: RunOptions) -> str:
    """The settings a resume applies again, in one line (what it prints)."""
    parts = [f"backend {options.backend or 'from config'}"]
    if options.fallback:
        parts.append(f"fallback {', '.join(options.fallback)}")
    parts.append(f"gates {'; '.join(options.gates)}" if options.gates else "no gates")
    if options.permissions:
        parts.append(f"permissions {options.permissions}")
    if options.max_cost is not None:
        parts.append(f"max cost ${float(options.max_cost):g}")
    if options.max_iterations is not None:
        parts.append(f"max iterations {options.max_iterations}")
    return ", ".join(parts)


def _list(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"field {name!r}: not a list")
    return value


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"field {name!r}: not a list of texts")
    return value


def _pair(value: Any) -> tuple[str, str]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise ValueError("field 'known_versions': not a list of [executable, version]")
    return value[0], value[1]
