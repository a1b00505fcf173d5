"""pre-commit glue: the change under review (files + size-capped diff) → a prompt, and the verdict.

``jlgcli hook`` runs inside a git hook: no TTY, nobody to answer a question,
and its output is shown only when it fails. So this module reads the change
itself (``git diff --cached``, or the pushed range pre-commit names in
``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``), caps the diff it puts in the
prompt (streamed: a huge diff never sits whole in memory, and git is stopped
once the cap is reached), and renders a verdict that fits on one screen.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError
from jlgcli.process import git
from jlgcli.process.result import CommandResult
from jlgcli.records import record
from jlgcli.runner.summary import RunSummary

DEFAULT_PROMPT = Path(__file__).with_name("hook_prompt.md")
DEFAULT_MAX_DIFF_BYTES = 100_000
MAX_LISTED_FILES = 200
REPORT_MAX_LINES = 20
REPORT_WIDTH = 100


@record
class Change:
    """What the agent is asked to review."""

    files: tuple[str, ...]
    diff: str
    truncated: bool  # the diff was cut at the byte cap
    source: str  # "staged" or "<from>...<to>" (pre-push)

    @property
    def empty(self) -> bool:
        return not self.files and not self.diff.strip()


def diff_range(env: Mapping[str, str]) -> tuple[str, str] | None:
    """The ref range pre-commit gives a pre-push (or ``--from-ref/--to-ref``) hook, if any."""
    start, end = env.get("PRE_COMMIT_FROM_REF", ""), env.get("PRE_COMMIT_TO_REF", "")
    return (start, end) if start and end else None


def _base_args(refs: tuple[str, str] | None) -> list[str]:
    args = ["-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff"]
    return args + ([f"{refs[0]}...{refs[1]}"] if refs else ["--cached"])


def _git(args: Sequence[str], cwd: Path, limit: int) -> CommandResult:
    """git ``args``, keeping the first ``limit`` bytes of stdout; stopped once past the cap
    (``truncated``). Ctrl-C raises ``Interrupted``; no git or a timeout, ``JlgError``."""
    result = git.run(cwd, *args, env=git.C_LOCALE, limit=limit)
    if result.missing:
        hint = "jlgcli hook reads the change with git: install git"
        raise JlgError(ExitCode.USAGE, "git is not on PATH", hint)
    if result.timed_out:
        raise JlgError(ExitCode.TIMEOUT, f"git did not answer within {git.GIT_TIMEOUT_S:.0f}s",
                       hint="is the repository locked by another git process?")  # fmt: skip
    return result


def collect_change(
    cwd: Path,
    files: Sequence[str] = (),
    *,
    max_diff_bytes: int = DEFAULT_MAX_DIFF_BYTES,
    env: Mapping[str, str] = os.environ,
) -> Change:
    """The files and diff to review: ``files`` (from pre-commit) or every staged file.

    ``max_diff_bytes`` caps the diff in the prompt (0: no diff, files only).
    Raises ``JlgError`` (64) outside a git work tree.
    """
    refs = diff_range(env)
    base = _base_args(refs)
    if files:
        names = tuple(files)
    else:
        listed = _git([*base, "--name-only", "-z"], cwd, 4_000_000)
        _check(listed, cwd)
        names = tuple(name for name in listed.stdout.split("\0") if name)
    diff, truncated = "", False
    if max_diff_bytes > 0 and names:
        # Pathspecs only for files pre-commit chose: thousands of staged names would
        # overflow a Windows command line (32k characters), and git knows them anyway.
        pathspecs = ["--", *names] if files else []
        found = _git([*base, *pathspecs], cwd, max_diff_bytes)
        _check(found, cwd)
        diff, truncated = found.stdout, found.truncated
        if truncated and "\n" in diff:  # end on a whole line
            diff = diff[: diff.rindex("\n") + 1]
    return Change(names, diff, truncated, f"{refs[0]}...{refs[1]}" if refs else "staged")


def _check(result: CommandResult, cwd: Path) -> None:
    if result.exit_code in (0, None) or result.truncated:
        return
    # Outside a work tree `git diff --cached` prints its usage text: ask git plainly instead.
    inside = _git(["rev-parse", "--is-inside-work-tree"], cwd, 1000)
    if inside.exit_code != 0 or inside.stdout.strip() != "true":
        raise JlgError(
            ExitCode.USAGE,
            f"not inside a git work tree ({cwd}): there is no change to review",
            hint="run jlgcli hook inside a git repository (pre-commit does)",
        )
    raise JlgError(
        ExitCode.USAGE,
        f"cannot read the change with git: {git_problem(result.stderr)}",
        hint="run jlgcli hook inside a git work tree (pre-commit does)",
    )


def git_problem(stderr: str) -> str:
    """The line of git's stderr that says what is wrong; never a fragment of its usage text."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for prefix in ("fatal:", "error:"):
        for line in lines:
            if line.lower().startswith(prefix):
                return line[len(prefix) :].strip() or line
    usage = next((n for n, line in enumerate(lines) if line.lower().startswith("usage:")), None)
    before_usage = lines if usage is None else lines[:usage]
    return before_usage[0] if before_usage else "git failed"


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def compose_prompt(task: str, change: Change) -> str:
    """The task followed by the change: the file list and the (capped) diff."""
    what = "staged for commit" if change.source == "staged" else f"in {change.source}"
    lines = [task.rstrip(), "", "## The change", "",
             f"{len(change.files)} file(s) {what}:"]  # fmt: skip
    lines += [f"- {name}" for name in change.files[:MAX_LISTED_FILES]]
    if len(change.files) > MAX_LISTED_FILES:
        lines.append(f"- … and {len(change.files) - MAX_LISTED_FILES} more")
    lines.append("")
    if change.diff.strip():
        fence = _fence(change.diff)
        lines += [f"{fence}diff", change.diff.rstrip("\n"), fence]
        if change.truncated:
            lines.append("[the diff was cut at the size limit: read the files for the rest]")
    else:
        lines.append("(no diff shown: read the files themselves)")
    return "\n".join(lines) + "\n"


def _wrapped(text: str, budget: int) -> list[str]:
    out: list[str] = []
    for paragraph in text.strip().splitlines():
        out += textwrap.wrap(paragraph, REPORT_WIDTH - 2) or [""]
    if len(out) > budget:
        out = [*out[: budget - 1], "…"]
    return ["  " + line for line in out]


def _labelled(label: str, text: str) -> list[str]:
    """``label: text`` wrapped at the report width, never cut mid-sentence."""
    return textwrap.wrap(
        f"{label}: {text}", REPORT_WIDTH, subsequent_indent="  ", break_on_hyphens=False
    )


def hook_report(summary: RunSummary, change: Change) -> str:
    """One screen at most: the verdict, why, and how to see more or skip once."""
    diff = "cut at the size limit" if change.truncated else "complete"
    reviewed = f"{len(change.files)} file(s), diff {diff}"
    if summary.exitCode == 0:
        about = f" — {summary.summary.strip().splitlines()[0]}" if summary.summary else ""
        return f"jlgcli hook: passed ({summary.backend}, {reviewed}){about}\n"
    lines = [f"jlgcli hook: FAILED ({summary.stopCause}, exit {summary.exitCode}, "
             f"backend {summary.backend})"]  # fmt: skip
    reason = summary.summary or (summary.error.message if summary.error else "") or summary.text
    lines += _wrapped(reason or "(no message)", REPORT_MAX_LINES - 6)
    if summary.error is not None and summary.error.hint:
        lines += _labelled("hint", summary.error.hint)
    lines.append(f"reviewed: {reviewed}")
    if summary.runDir:
        lines.append(f"artifacts: {summary.runDir}")  # a path: never wrapped or cut
    lines.append("more output: add -v to the hook's args · skip once: SKIP=jlgcli-run git commit …")
    return "\n".join(lines[:REPORT_MAX_LINES]) + "\n"
