"""What ``run`` and ``loop`` do: resolve settings, build the RunSpec, execute, report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from jlgcli.errors import ExitCode, JlgError

if TYPE_CHECKING:
    from jlgcli.runner.spec import Command, RunSpec


def execute_run(args: argparse.Namespace) -> int:
    """``jlgcli run``."""
    return _execute(args, "run")


def execute_loop(args: argparse.Namespace) -> int:
    """``jlgcli loop``."""
    return _execute(args, "loop")


def _cwd(args: argparse.Namespace) -> Path:
    if not args.cwd:
        return Path.cwd()
    cwd = Path(args.cwd).expanduser().resolve()
    if not cwd.is_dir():
        raise JlgError(
            ExitCode.USAGE,
            f"--cwd {args.cwd} is not a directory",
            hint="pass an existing directory",
        )
    return cwd


def build_spec(args: argparse.Namespace, command: Command) -> tuple[RunSpec, int]:
    """The RunSpec of these arguments (flags > env > project > user > defaults)."""
    from jlgcli.commands._run_options import flag_settings
    from jlgcli.config import parse_flag_value, resolve_settings
    from jlgcli.durations import parse_duration_ms
    from jlgcli.prompts import read_prompt
    from jlgcli.runner.spec import RunSpec

    cwd = _cwd(args)
    flags = flag_settings(args)
    settings = resolve_settings(cwd=cwd, flags=flags)
    values = settings.values
    if "backend" in flags:  # validated here, now that custom backends are known
        values["backend"] = parse_flag_value(
            "backend", flags["backend"], tuple(settings.custom_backends)
        )
    prompt = read_prompt(args.prompt)
    script_timeout = getattr(args, "script_timeout", None)
    ledger_dir = getattr(args, "ledger_dir", None)
    return RunSpec(
        command=command,
        prompt=prompt,
        backend=values["backend"],
        cwd=cwd,
        completion_mode=values["completionMode"],
        max_iterations=values["maxIterations"],
        timeout_ms=values["timeoutMs"],
        iteration_timeout_ms=values["iterationTimeoutMs"],
        idle_timeout_ms=values["idleTimeoutMs"],
        no_progress_limit=values["noProgressLimit"],
        session_mode=getattr(args, "session", "fresh"),
        model=args.model,
        permissions=args.permissions,
        extra_args=tuple(args.backend_arg),
        artifacts=values["artifacts"],
        artifacts_dir=Path(values["artifactsDir"]),
        replay_dir=Path(args.replay).resolve() if args.replay else None,
        custom_backends=settings.custom_backends,
        options={key: values[key] for key in sorted(values)}
        | {
            "model": args.model,
            "permissions": args.permissions,
            "session": getattr(args, "session", "fresh"),
            "backendArgs": len(args.backend_arg),
        },
        script_timeout_s=parse_duration_ms(script_timeout) / 1000 if script_timeout else 60.0,
        ledger_dir=Path(ledger_dir).resolve() if ledger_dir else None,
    ), int(values["verbosity"])


def _execute(args: argparse.Namespace, command: Command) -> int:
    from jlgcli.output import emit_json
    from jlgcli.process import install_termination_handlers
    from jlgcli.runner.console import Console
    from jlgcli.runner.engine import execute
    from jlgcli.runner.report import human_summary

    spec, verbosity = build_spec(args, command)
    console = Console(verbosity, json_mode=bool(args.json))
    with install_termination_handlers():
        summary = execute(spec, console)
    from jlgcli.integrations.github import publish

    publish(summary, force=bool(getattr(args, "github", False)))
    if args.json:
        emit_json(summary.model_dump(mode="json"))
    else:
        console.summary(human_summary(summary))
    return summary.exitCode
