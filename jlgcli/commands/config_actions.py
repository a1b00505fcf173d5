"""What ``jlgcli config …`` does; kept apart from ``config.py`` so ``--help`` imports nothing."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from jlgcli.commands import quiet
from jlgcli.config.keys import KEYS, lookup_key, unknown_key_message
from jlgcli.config.resolve import describe_config_files, resolve_settings
from jlgcli.config.trust import TRUSTED
from jlgcli.errors import ExitCode, JlgError
from jlgcli.output import emit_json, err, print_table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
        print(spec.display(value))
        if (args.verbosity or 0) >= 2:
            err(f"source: {settings.sources[spec.name]} {settings.origins[spec.name]}".rstrip())
    return 0


def set_(args: argparse.Namespace) -> int:
    """``config set <key> <value>``: validate, then write atomically."""
    from jlgcli.config.write import set_value

    file = Path(args.file) if args.file else None
    spec, value, path = set_value(args.key, args.value, project=args.project, file=file)
    if args.json:
        emit_json({"key": spec.name, "value": value, "file": str(path)})
    else:
        if not quiet(args):  # -q: a write that worked says nothing (issue 38)
            print(f"{spec.name} = {spec.display(value)}  ({path})")
    _warn_if_shadowed(spec.name, args.project or file is not None)
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
    from jlgcli.config.write import unset_value

    file = Path(args.file) if args.file else None
    spec, path, removed = unset_value(args.key, project=args.project, file=file)
    if args.json:
        emit_json({"key": spec.name, "removed": removed, "file": str(path)})
    elif not removed:
        print(f"{spec.name} was not set in {path}")
    elif not quiet(args):  # -q: a write that worked says nothing (issue 38)
        print(f"{spec.name} removed from {path}")
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
                "untrustedBackends": sorted(settings.untrusted_backends),
                "files": _files_json(),
            }
        )
        return 0
    rows = [
        [
            spec.name,
            spec.display(settings.values[spec.name]),
            f"{settings.sources[spec.name]} {settings.origins[spec.name]}".rstrip(),
        ]
        for spec in KEYS
    ]
    print_table(rows, ["KEY", "VALUE", "SOURCE"])
    if settings.custom_backends:
        print(f"\ncustom backends: {', '.join(sorted(settings.custom_backends))}")
    _print_project_trust()
    return 0


def _print_project_trust() -> None:
    project = describe_config_files(Path.cwd())[1]
    if project.trust is None:
        return
    print(f"\nproject file {project.path}: {project.trust}")
    if project.trust != TRUSTED:
        print(f"  its commands do not run until you trust it: jlgcli config trust {project.path}")


def _files_json() -> list[dict[str, Any]]:
    return [
        {
            "scope": f.scope,
            "path": str(f.path),
            "exists": f.exists,
            "error": f.error,
            "trust": f.trust,
        }
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
        elif entry["trust"]:
            state += f", {entry['trust']}"
        print(f"{entry['scope']:8} {entry['path']}  ({state})")
    return 0


def trust(args: argparse.Namespace) -> int:
    """``config trust [PATH]``: record the project files' paths and hashes in the user config."""
    from jlgcli.config.write import trust_files

    files = _trust_targets(args.path)
    recorded = trust_files(files) if files else {}
    if args.json:
        emit_json({"trusted": [{"file": k, "sha256": v} for k, v in recorded.items()]})
    elif not quiet(args):  # -q: a write that worked says nothing (issue 38)
        for name in recorded:
            print(f"trusted {name}")
    return 0


def untrust(args: argparse.Namespace) -> int:
    """``config untrust [PATH]``: forget those files; their commands stop running."""
    from jlgcli.config.write import untrust_files

    removed = untrust_files(_trust_targets(args.path))
    if args.json:
        emit_json({"untrusted": removed})
    elif not removed:
        print("nothing to forget: those files were not trusted")
    elif not quiet(args):  # -q: a write that worked says nothing (issue 38)
        for name in removed:
            print(f"no longer trusted: {name}")
    return 0


def _trust_targets(raw: str | None) -> list[Path]:
    from jlgcli.config.trust import project_files_to_trust

    target = Path(raw) if raw else Path.cwd()
    if not target.exists():
        raise JlgError(
            ExitCode.NO_INPUT, f"{target} does not exist", hint="give a project file or folder"
        )
    files = project_files_to_trust(target)
    if not files:
        raise JlgError(
            ExitCode.NO_INPUT,
            f"no project file to trust in {target}: no .jlgcli.json here or above, "
            "no .aidevloop.* here",
            hint="give the file: jlgcli config trust PATH",
        )
    return files


__all__ = ["get", "path", "set_", "show", "trust", "unset", "untrust"]
