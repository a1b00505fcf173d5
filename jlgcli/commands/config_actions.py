"""What ``jlgcli config …`` does; kept apart from ``config.py`` so ``--help`` imports nothing."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from jlgcli.config import describe_config_files, resolve_settings, set_value, unset_value
from jlgcli.config_keys import KEYS, lookup_key, unknown_key_message
from jlgcli.errors import ExitCode, JlgError
from jlgcli.output import emit_json, err, print_table


def _display(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def get(args: argparse.Namespace) -> int:
    """``config get <key>``: the effective value (source on stderr with -v)."""
    spec = lookup_key(args.key)
    if spec is None:
        raise JlgError(
            ExitCode.USAGE, unknown_key_message(args.key), hint="list them with: jlgcli config show"
        )
    settings = resolve_settings()
    value = settings.values[spec.name]
    if args.json:
        emit_json(
            {
                "key": spec.name,
                "value": value,
                "source": settings.sources[spec.name],
                "origin": settings.origins[spec.name] or None,
            }
        )
    else:
        print(_display(value))
        if (args.verbosity or 0) >= 2:
            err(f"source: {settings.sources[spec.name]} {settings.origins[spec.name]}".rstrip())
    return 0


def set_(args: argparse.Namespace) -> int:
    """``config set <key> <value>``: validate, then write atomically."""
    spec, value, path = set_value(args.key, args.value, project=args.project)
    if args.json:
        emit_json({"key": spec.name, "value": value, "file": str(path)})
    else:
        print(f"{spec.name} = {_display(value)}  ({path})")
    _warn_if_shadowed(spec.name, args.project)
    return 0


def _warn_if_shadowed(name: str, project: bool) -> None:
    spec = lookup_key(name)
    assert spec is not None
    if os.environ.get(spec.env_var):
        err(f"warning: {spec.env_var} is set in the environment and overrides this value")
    elif not project:
        settings = resolve_settings()
        if settings.sources[name] == "project":
            err(f"warning: the project file {settings.origins[name]} overrides this value here")


def unset(args: argparse.Namespace) -> int:
    """``config unset <key>``: remove the key from the file (back to the default)."""
    spec, path, removed = unset_value(args.key, project=args.project)
    if args.json:
        emit_json({"key": spec.name, "removed": removed, "file": str(path)})
    elif removed:
        print(f"{spec.name} removed from {path}")
    else:
        print(f"{spec.name} was not set in {path}")
    return 0


def show(args: argparse.Namespace) -> int:
    """``config show``: every key, its value and its source."""
    settings = resolve_settings()
    if args.json:
        emit_json(
            {
                "settings": {
                    spec.name: {
                        "value": settings.values[spec.name],
                        "source": settings.sources[spec.name],
                        "origin": settings.origins[spec.name] or None,
                    }
                    for spec in KEYS
                },
                "customBackends": sorted(settings.custom_backends),
                "files": _files_json(),
            }
        )
        return 0
    rows = [
        [
            spec.name,
            _display(settings.values[spec.name]),
            f"{settings.sources[spec.name]} {settings.origins[spec.name]}".rstrip(),
        ]
        for spec in KEYS
    ]
    print_table(rows, ["KEY", "VALUE", "SOURCE"])
    if settings.custom_backends:
        print(f"\ncustom backends: {', '.join(sorted(settings.custom_backends))}")
    return 0


def _files_json() -> list[dict[str, Any]]:
    return [
        {"scope": f.scope, "path": str(f.path), "exists": f.exists, "error": f.error}
        for f in describe_config_files(Path.cwd())
    ]


def path(args: argparse.Namespace) -> int:
    """``config path``: the user and project file paths and whether they exist."""
    files = _files_json()
    if args.json:
        emit_json({"files": files})
        return 0
    for entry in files:
        state = "exists" if entry["exists"] else "not created yet"
        if entry["error"]:
            state = f"INVALID: {entry['error']}"
        print(f"{entry['scope']:8} {entry['path']}  ({state})")
    return 0


__all__ = ["path", "set_", "show", "unset"]
