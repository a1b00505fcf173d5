"""Automated validation (FR-4.2 steps 4 and 6): lint, typecheck, test, build.

Each configured command runs through ``proc.run_command`` (argv, no shell);
an unset command is skipped (``notices.py`` says so, once per project:
FR-8.1); a failure keeps the command and an output excerpt for the error
summary and the agents' prompts (FR-8.2).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from jlgcli.cmdline import shell_tokens, split_command
from jlgcli.dev.config import DevConfig
from jlgcli.dev.proc import CommandResult, run_command
from jlgcli.dev.report import Reporter
from jlgcli.records import record

Runner = Callable[..., CommandResult]


@record
class CheckResult:
    """One validation command: its kind, its command line, and what it did (None: skipped)."""

    kind: str
    command: str
    result: CommandResult | None

    @property
    def failed(self) -> bool:
        return self.result is not None and not self.result.ok


@record
class ValidationReport:
    """The results of one validation run."""

    checks: tuple[CheckResult, ...]

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if c.failed]

    def summary(self) -> str:
        """``lint passed, test FAILED (exit 1), build skipped``."""
        words = []
        for check in self.checks:
            if check.result is None:
                words.append(f"{check.kind} skipped")
            elif check.result.ok:
                words.append(f"{check.kind} passed")
            else:
                words.append(f"{check.kind} FAILED ({check.result.describe()})")
        return ", ".join(words) or "no validation command configured"

    def details(self) -> str:
        """The summary, then every failure with its command and output (the prompts)."""
        return "\n\n".join(filter(None, (self.summary(), self.failures_text())))

    def failures_text(self) -> str:
        """Every failure with its command and output excerpt (FR-8.2)."""
        blocks = []
        for check in self.failures:
            assert check.result is not None
            excerpt = check.result.excerpt() or "(no output)"
            blocks.append(
                f"{check.kind} failed: `{check.command}` ({check.result.describe()})\n"
                f"```\n{excerpt}\n```"
            )
        return "\n\n".join(blocks)


def display(argv: Sequence[str]) -> str:
    """A command line as shown to people."""
    return shlex.join(argv)


def run_validation(
    kinds: Sequence[str],
    config: DevConfig,
    root: Path,
    reporter: Reporter,
    *,
    runner: Runner = run_command,
) -> ValidationReport:
    """Run the configured commands of ``kinds`` in order (all of them, even after a failure)."""
    checks: list[CheckResult] = []
    commands = config.validation.commands
    for kind in kinds:
        argv = split_command(getattr(commands, kind))
        if not argv:  # skipped; said once per project at the start (notices.py, FR-8.1)
            checks.append(CheckResult(kind, "", None))
            continue
        shown = display(argv)
        odd = shell_tokens(argv)
        if odd:
            reporter.warn(
                f"validation.commands.{kind} has {', '.join(odd)}: no shell runs the command, "
                "so they are plain arguments; put shell syntax in a script"
            )
        reporter.file_op("run", shown)
        result = runner(
            argv, root, timeout=config.validation.timeout_seconds, on_output=reporter.live
        )
        checks.append(CheckResult(kind, shown, result))
        state = "passed" if result.ok else f"FAILED ({result.describe()})"
        reporter.info(f"{kind}: {state}: {shown} ({result.duration:.1f}s)")
        if not result.ok:
            excerpt = result.excerpt(10)
            if excerpt:
                reporter.info("  " + excerpt.replace("\n", "\n    "))
    return ValidationReport(tuple(checks))
