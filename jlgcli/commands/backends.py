"""``jlgcli backends``: which agent CLIs are installed, logged in, supported (F-002, RG-004/005)."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli backends                 a table: id, status, version, what to do
  jlgcli backends --json          the same as one JSON object (docs/schemas/backends.schema.json)

statuses: available · missing (not on PATH) · unauthenticated (not logged in) ·
unsupported (version outside the supported range) · unknown (the probe did not answer)
exit codes: 0 at least one backend is available, 2 none is, 78 invalid config.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``backends``."""
    parser = subparsers.add_parser(
        "backends",
        help="list the agent CLIs and whether they are ready",
        description="Probe every backend (quickly, without sending a prompt) and say which "
        "are available, missing, not logged in or unsupported.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler="jlgcli.commands.backends:execute")


def execute(args: argparse.Namespace) -> int:
    """Probe all backends; print the table or the JSON report; 0 if any is available, else 2."""
    from jlgcli.backends.registry import all_backends, probe_all
    from jlgcli.backends.report import build_report
    from jlgcli.commands import quiet
    from jlgcli.config.resolve import resolve_settings
    from jlgcli.output import emit_json, err, print_table

    settings = resolve_settings()
    configured = settings.values.get("backend")
    availabilities = probe_all(all_backends(settings.custom_backends))
    report = build_report(availabilities, configured if isinstance(configured, str) else None)
    if getattr(args, "json", False):
        emit_json(report.to_json())
    elif quiet(args):  # -q: the ready backends' ids, one a line, for scripts (issue 38)
        for entry in report.backends:
            if entry.status == "available":
                print(entry.id)
    else:
        rows = [[e.id, e.status, e.version or "-", e.hint or e.detail] for e in report.backends]
        print_table(rows, ["BACKEND", "STATUS", "VERSION", "NOTES"])
        if report.default:
            print(f"\ndefault: {report.default}")
    if report.error is not None:
        err(f"error: {report.error.message}")
        if report.error.hint:
            err(f"hint: {report.error.hint}")
        return report.error.code
    if report.default is None and configured not in (None, "auto"):
        err(f"warning: the configured backend {configured!r} is not available")
    return 0
