"""GitHub Actions glue: step outputs and a Markdown job summary from a RunSummary.

jlgcli writes these itself (not the Action's shell), so the logic is plain,
unit-tested Python and works the same when a user calls ``jlgcli loop`` from
their own workflow step. Outputs go to ``$GITHUB_OUTPUT`` (``name=value``, or
the ``name<<DELIM`` heredoc form with a random delimiter for multi-line
values); the summary is appended to ``$GITHUB_STEP_SUMMARY`` (GitHub caps it
at 1 MiB per step). A failure to write either is a warning, never a failed
run: the exit code decides pass/fail.

Workflow commands (issue 33): the runner obeys ``::add-mask::``, ``::error::``,
``::set-output::``… on any line of a step's log, and a model's or agent's text
reaches that log. ``workflow_commands_stopped`` brackets everything they may
write with ``::stop-commands::<random token>`` … ``::<token>::``: in between
the runner obeys nothing, and the model never sees the token.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TextIO

from jlgcli.runner.summary import RunSummary

# Outputs a workflow reads (``steps.<id>.outputs.<name>``), in this order.
OUTPUT_NAMES = ("status", "stop-cause", "exit-code", "iterations", "summary", "run-dir", "cost",
                "backend", "run-id", "question")  # fmt: skip
OUTPUT_TEXT_CAP = 64_000  # characters of the summary output (the model's text can be huge)
SUMMARY_TEXT_CAP = 60_000  # characters of the final message shown in the job summary
SUMMARY_CAP_BYTES = 1_000_000  # GitHub rejects step summaries over 1 MiB

_ICONS = {"done": "✅", "error": "❌", "incomplete": "⚠️", "interrupted": "⏹️", "parked": "❓"}


def enabled(env: Mapping[str, str], *, force: bool = False) -> bool:
    """True inside GitHub Actions (``GITHUB_ACTIONS=true``) or when forced (``--github``)."""
    return force or env.get("GITHUB_ACTIONS", "").lower() == "true"


def output_values(
    summary: RunSummary, redact: Callable[[str], str] | None = None
) -> dict[str, str]:
    """The step outputs of a run, as strings (empty when unknown, never a made-up 0); redacted."""
    redact = redact or _default_redact()
    text = redact(summary.summary or summary.text.strip())
    if len(text) > OUTPUT_TEXT_CAP:
        text = text[:OUTPUT_TEXT_CAP] + "\n… [truncated]"
    return {
        "status": summary.status,
        "stop-cause": summary.stopCause,
        "exit-code": str(summary.exitCode),
        "iterations": str(summary.iterations),
        "summary": text,
        "run-dir": redact(summary.runDir or ""),
        "cost": f"{summary.costUsd:.4f}" if summary.costUsd is not None else "",  # 1e-4 $
        "backend": summary.backend,
        "run-id": summary.runId,
        "question": redact(summary.question or ""),  # parked: what the agent asks (issue 51)
    }


def new_delimiter() -> str:
    """A delimiter a value cannot guess (GitHub's own toolkit uses ``ghadelimiter_<uuid>``)."""
    return f"ghadelimiter_{os.urandom(16).hex()}"


def format_outputs(
    values: Mapping[str, str], *, delimiter: Callable[[], str] = new_delimiter
) -> str:
    """``$GITHUB_OUTPUT`` lines for ``values``; multi-line values use a random heredoc delimiter."""
    lines: list[str] = []
    for name, raw in values.items():
        value = raw.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in value:
            lines.append(f"{name}={value}")
            continue
        mark = delimiter()
        while mark in value:  # never let the value end the heredoc early
            mark = delimiter()
        lines.extend((f"{name}<<{mark}", value, mark))
    return "".join(line + "\n" for line in lines)


def markdown_cell(text: str) -> str:
    """``text`` as one cell of a Markdown table row (pipes escaped, on one line)."""
    return text.replace("|", "\\|").replace("\n", " ")


def _inline_code(text: str) -> str:
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if len(ticks) > 1 else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _default_redact() -> Callable[[str], str]:
    from jlgcli.artifacts.redact import Redactor

    return Redactor().redact


def _quoted(text: str, *, info: str = "text") -> list[str]:
    """``text`` as a fenced code block: shown verbatim, never rendered as Markdown or HTML."""
    fence = _fence(text)
    return [f"{fence}{info}", text, fence]


def markdown_summary(summary: RunSummary, redact: Callable[[str], str] | None = None) -> str:
    """The job summary: a status line, a small table, the model's summary and final message.

    Everything is redacted; what the model wrote (summary, final message, error
    text) is quoted in fenced blocks longer than any backtick run inside them.
    """
    from jlgcli.durations import format_duration_ms
    from jlgcli.runner.report import format_cost

    redact = redact or _default_redact()

    icon = _ICONS.get(summary.status, "")
    iterations = (f"{summary.iterations}/{summary.maxIterations}" if summary.command == "loop"
                  else str(summary.iterations))  # fmt: skip
    backend = summary.backend + (f" {summary.backendVersion}" if summary.backendVersion else "")
    rows = [
        ("status", f"{summary.status} ({summary.stopCause})"),
        ("backend", backend),
        ("iterations", iterations),
        ("duration", format_duration_ms(summary.durationMs)),
        ("cost", format_cost(summary)),
        ("exit code", str(summary.exitCode)),
    ]
    if summary.runDir:
        rows.append(("artifacts", _inline_code(redact(summary.runDir))))
    title = " ".join(part for part in ("###", icon, f"jlgcli {summary.command}:", summary.status)
                     if part)  # fmt: skip
    parts = [title, "", "| | |", "| --- | --- |"]
    parts += [f"| {name} | {markdown_cell(value)} |" for name, value in rows]
    if summary.question is not None:  # parked: the question, and how to answer it
        parts += ["", "**The agent asks:**", *_quoted(redact(summary.question))]
    if summary.error is not None and summary.question is None:
        parts += ["", "**Error:**", *_quoted(redact(summary.error.message))]
    if summary.error is not None and summary.error.hint:
        parts += ["**Hint:**", *_quoted(redact(summary.error.hint))]
    if summary.summary:
        parts += ["", "**Summary:**", *_quoted(redact(summary.summary.strip()))]
    if summary.diagnosis:
        parts += ["", *_quoted("\n".join(redact(note) for note in summary.diagnosis))]
    text = redact(summary.text.strip())
    if text:
        if len(text) > SUMMARY_TEXT_CAP:
            text = "… [truncated]\n" + text[-SUMMARY_TEXT_CAP:]
        parts += ["", "<details><summary>Final message</summary>", "", *_quoted(text), "",
                  "</details>"]  # fmt: skip
    body = "\n".join(parts) + "\n\n"
    encoded = body.encode("utf-8")
    if len(encoded) > SUMMARY_CAP_BYTES:  # cannot happen with the caps above; kept as a guard
        body = encoded[:SUMMARY_CAP_BYTES].decode("utf-8", errors="ignore") + "\n"
    return body


def new_stop_token() -> str:
    """A token to resume workflow commands with, unguessable by what runs meanwhile."""
    return f"jlgcli-{os.urandom(16).hex()}"


@contextlib.contextmanager
def workflow_commands_stopped(
    out: TextIO | None = None, *, token: Callable[[], str] = new_stop_token
) -> Iterator[str]:
    """Stop workflow commands on ``out`` (stdout) for the block; resume them after it.

    Both of the step's streams go through the runner's one parser: the other
    one is flushed before commands resume.
    """
    stream = out or sys.stdout
    mark = token()
    stream.write(f"::stop-commands::{mark}\n")
    stream.flush()
    try:
        yield mark
    finally:
        for other in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                other.flush()
        stream.write(f"::{mark}::\n")
        stream.flush()


def error_markdown(title: str, message: str, hint: str | None, redact: Callable[[str], str]) -> str:
    """A job summary for a run that never started (bad inputs): the error, quoted."""
    parts = [f"### ❌ {title}", "", "**Error:**", *_quoted(redact(message))]
    if hint:
        parts += ["**Hint:**", *_quoted(redact(hint))]
    return "\n".join(parts) + "\n\n"


def write_error_summary(
    title: str, message: str, hint: str | None, *, env: Mapping[str, str] = os.environ
) -> None:
    """Append ``error_markdown`` to ``$GITHUB_STEP_SUMMARY`` (a warning when it cannot)."""
    append_summary(error_markdown(title, message, hint, _default_redact()), env=env)


def append_summary(text: str, *, env: Mapping[str, str] = os.environ) -> None:
    """Append ``text`` (Markdown, already redacted) to ``$GITHUB_STEP_SUMMARY`` if set."""
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        _append(path, text)
    except OSError as exc:
        _stderr_warning(f"cannot write GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}")


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def publish(
    summary: RunSummary,
    *,
    env: Mapping[str, str] = os.environ,
    force: bool = False,
    warn: Callable[[str], None] | None = None,
) -> None:
    """Write step outputs and the job summary when in GitHub Actions (or ``force``); else no-op.

    Never raises for an unwritable file: the run's exit code stays the verdict.
    """
    if not enabled(env, force=force):
        return
    say = warn or _stderr_warning
    redact = _default_redact()
    for variable in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        path = env.get(variable)
        if not path:
            say(f"{variable} is not set: nothing written there")
            continue
        if variable == "GITHUB_OUTPUT":
            text = format_outputs(output_values(summary, redact))
        else:
            text = markdown_summary(summary, redact)
        try:
            _append(path, text)
        except OSError as exc:
            say(f"cannot write {variable} ({path}): {exc.strerror or exc}")


def write_outputs(values: Mapping[str, str], *, env: Mapping[str, str] = os.environ) -> None:
    """Append raw outputs (e.g. ``exit-code`` for a command without a RunSummary)."""
    path = env.get("GITHUB_OUTPUT")
    if path:
        try:
            redact = _default_redact()
            _append(path, format_outputs({k: redact(v) for k, v in values.items()}))
        except OSError as exc:
            _stderr_warning(f"cannot write GITHUB_OUTPUT ({path}): {exc.strerror or exc}")


def _stderr_warning(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")
    sys.stderr.flush()
