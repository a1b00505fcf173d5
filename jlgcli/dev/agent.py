"""How the dev loop calls an agent (FR-6): a one-method protocol and its real implementation.

``AgentCaller.call(prompt, cwd) -> AgentReply`` is all the orchestrator
knows, so tests can pass a fake. ``BackendAgent`` runs any jlgcli backend
(claude, copilot, codex, gemini or a custom command backend from the jlgcli
config) as a one-shot run of the core (``jlgcli.runner.entry``), with edit
permissions: every guardrail of a run applies (rate-limit waits, the default
total and idle timeouts, Ctrl-C), each call is a recorded, redacted run that
``jlgcli runs`` lists, and its cost and tokens come back in the reply. The
agent's text streams to the reporter (verbose) as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from jlgcli.config.backend_ids import BUILTIN_BACKENDS
from jlgcli.dev.proc import stopped
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.process.model import Limits
from jlgcli.records import record
from jlgcli.runner.console import Console


@record
class AgentReply:
    """What one agent call gave back."""

    text: str
    ok: bool
    error: str | None = None
    exit_code: int | None = None
    output_tail: str = ""
    command: str = ""  # the command line that ran, for error messages (FR-8.2)
    cost_usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    run_id: str | None = None  # the recorded run of this call (jlgcli runs show ID)


class AgentCaller(Protocol):
    """Anything that can run a prompt as an agent in a directory."""

    name: str

    def call(self, prompt: str, cwd: Path) -> AgentReply:
        """Run ``prompt`` with ``cwd`` as the working directory; never raises for a failed call.

        Raises ``Interrupted`` when Ctrl-C/SIGTERM stopped the agent.
        """
        ...


def custom_backends_for(llm: str, root: Path) -> dict[str, dict[str, Any]]:
    """The custom command backends of the jlgcli config, read only when ``llm`` is not built in."""
    if llm in BUILTIN_BACKENDS:
        return {}
    from jlgcli.config.resolve import resolve_settings

    return dict(resolve_settings(cwd=root).custom_backends)


class BackendAgent:
    """An ``AgentCaller`` over a jlgcli backend."""

    def __init__(
        self,
        backend_id: str,
        *,
        custom: Mapping[str, Mapping[str, Any]] | None = None,
        limits: Limits | None = None,
        on_text: Callable[[str], None] | None = None,
        on_line: Callable[[str], None] | None = None,
    ) -> None:
        self.name = backend_id
        self._custom = dict(custom or {})
        self._limits = limits or Limits()
        self._on_text = on_text
        self._on_line = on_line

    def check(self) -> None:
        """Probe the backend; unknown, missing, logged out or unsupported → ``JlgError`` exit 2."""
        from jlgcli.runner.entry import probe_backend

        try:
            availability = probe_backend(self.name, self._custom)
        except JlgError as exc:
            raise JlgError(DevExitCode.CONFIGURATION, exc.message, exc.hint) from None
        if availability.status in ("missing", "unauthenticated", "unsupported"):
            words = {
                "missing": "is not installed",
                "unauthenticated": "is not logged in",
                "unsupported": "is not supported",
            }
            detail = f": {availability.detail}" if availability.detail else ""
            raise JlgError(
                DevExitCode.CONFIGURATION,
                f"llm {self.name} {words[availability.status]}{detail}",
                availability.hint or "see: jlgcli backends",
            )

    def call(self, prompt: str, cwd: Path) -> AgentReply:
        from jlgcli.runner.entry import execute
        from jlgcli.runner.options import RunOptions

        def seconds(value: float | None) -> str | None:
            return None if value is None else f"{max(1, round(value))}s"

        options = RunOptions(
            prompt="(dev loop prompt)",
            prompt_text=prompt,
            cwd=str(cwd),
            backend=self.name,
            permissions="edit",
            timeout=seconds(self._limits.total_timeout),
            idle_timeout=seconds(self._limits.idle_timeout),
            artifacts=True,
        )
        try:
            summary = execute("run", options, console=_DevConsole(self._on_text, self._on_line))
        except JlgError as exc:  # e.g. a prompt the CLI cannot be given on this platform
            return AgentReply("", False, exc.message + (f" ({exc.hint})" if exc.hint else ""))
        if summary.stopCause == "interrupted":
            raise stopped()
        metrics = summary.iterationMetrics[-1] if summary.iterationMetrics else None
        error = summary.error.message if summary.error is not None else None
        tail = next((d[len("output tail: "):] for d in summary.diagnosis
                     if d.startswith("output tail: ")), "")  # fmt: skip
        return AgentReply(
            summary.text,
            summary.exitCode == 0,
            error,
            metrics.exitCode if metrics is not None else None,
            tail,
            command=f"{self.name} (run {summary.runId})",
            cost_usd=summary.costUsd,
            input_tokens=summary.inputTokens,
            output_tokens=summary.outputTokens,
            run_id=summary.runId,
        )


class _DevConsole(Console):
    """The run console of a dev-loop agent call: live text and notices go to the dev reporter."""

    def __init__(
        self, on_text: Callable[[str], None] | None, on_line: Callable[[str], None] | None
    ) -> None:
        super().__init__(1)
        self._on_text = on_text
        self._on_line = on_line

    def assistant(self, text: str) -> None:
        if text and self._on_text is not None:
            self._on_text(text)

    def end_live(self) -> None:
        """The reporter frames the agent's text itself."""

    def _line(self, message: str) -> None:
        if self._on_line is not None:
            self._on_line(message)
