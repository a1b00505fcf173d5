"""``jlgcli doctor``: diagnose the environment (seed 001 §12.5; F-002 probes, F-001 config)."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli doctor                   every check, one line each, with what to do
  jlgcli doctor --json            the same as one JSON object

checks: jlgcli and how it runs, Python, OS, config files and whether the project file
is trusted, every backend (installed, logged in, supported), the configured backend,
PATH (duplicate CLIs, .cmd shims), .jlgcli/runs writable, terminal.
exit codes: 0 nothing broken, 78 invalid config or the configured backend not trusted,
2 no backend available or the configured one missing, 6 the configured one not logged
in, 73 .jlgcli/runs not writable.
"""
_MARKS = {"ok": "[ok]  ", "warn": "[warn]", "fail": "[FAIL]"}


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``doctor``."""
    parser = subparsers.add_parser(
        "doctor",
        help="diagnose the environment: config, backends, PATH, terminal",
        description="Check what jlgcli runs on and what would stop a run, with a hint for "
        "each problem. Sends no prompt.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler="jlgcli.commands.doctor:execute")


def execute(args: argparse.Namespace) -> int:
    """Run every check; print them (or one JSON object); non-zero when something is broken."""
    from pathlib import Path

    from jlgcli.doctor import exit_code, run_checks
    from jlgcli.output import emit_json

    checks, availabilities = run_checks(Path.cwd())
    code = exit_code(checks)
    if getattr(args, "json", False):
        emit_json(
            {
                "ok": code == 0,
                "exitCode": code,
                "checks": [c.to_json() for c in checks],
                "backends": [
                    {
                        "id": a.id,
                        "status": a.status,
                        "version": a.version,
                        "path": a.path,
                        "detail": a.detail,
                        "hint": a.hint,
                    }
                    for a in availabilities
                ],
            }
        )
        return code
    from jlgcli.commands import quiet

    width = max(len(c.label) for c in checks)
    for check in checks:
        if quiet(args) and check.status == "ok":  # -q: only what needs attention (issue 38)
            continue
        print(f"{_MARKS[check.status]} {check.label:<{width}}  {check.summary}")
        if check.hint and check.status != "ok":
            print(f"{'':<{width + 9}}hint: {check.hint}")
    verdict = "nothing broken" if code == 0 else f"something is broken (exit code {code})"
    print(verdict if quiet(args) else f"\n{verdict}")
    return code
