"""How the dev loop calls an agent (FR-6): a one-method protocol and its real implementation.

``AgentCaller.call(prompt, cwd) -> AgentReply`` is all the orchestrator
knows, so tests can pass a fake. ``BackendAgent`` runs any jlgcli backend
(claude, copilot, codex, gemini or a custom command backend from the jlgcli
config) through the backend registry and the process layer, with edit
permissions, streaming the agent's text to the reporter (verbose) as it
arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from jlgcli.backends.ids import BUILTIN_BACKENDS
from jlgcli.dev.proc import Interrupted
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.process.model import Limits, OutputEvent, StopReason

if TYPE_CHECKING:
    from jlgcli.backends.base import Backend


@dataclass(frozen=True)
class AgentReply:
    """What one agent call gave back."""

    text: str
    ok: bool
    error: str | None = None
    exit_code: int | None = None
    output_tail: str = ""
    command: str = ""  # the command line that ran, for error messages (FR-8.2)


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
    from jlgcli.config import resolve_settings

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
    ) -> None:
        self.name = backend_id
        self._custom = dict(custom or {})
        self._limits = limits or Limits()
        self._on_text = on_text
        self._backend: Backend | None = None

    def backend(self) -> Backend:
        """The backend object (looked up once); unknown id → ``JlgError`` exit 2."""
        if self._backend is None:
            from jlgcli.backends.registry import get_backend

            try:
                self._backend = get_backend(self.name, custom=self._custom)
            except JlgError as exc:
                raise JlgError(DevExitCode.CONFIGURATION, exc.message, exc.hint) from None
        return self._backend

    def check(self) -> None:
        """Probe the backend; missing, logged out or unsupported → ``JlgError`` exit 2."""
        availability = self.backend().probe()
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
        from jlgcli.backends.base import BackendRequest
        from jlgcli.process import ExecutableNotFound, run_invocation

        backend = self.backend()
        request = BackendRequest(prompt=prompt, cwd=str(cwd), permissions="edit")
        try:
            invocation = backend.invocation(request)
        except JlgError as exc:  # e.g. a prompt the CLI cannot be given on this platform
            return AgentReply("", False, exc.message + (f" ({exc.hint})" if exc.hint else ""))
        parser = backend.parser()

        def show(event: OutputEvent) -> None:
            text = parser.feed(event.stream, event.text)
            if text and self._on_text is not None:
                self._on_text(text)

        command = " ".join(invocation.argv)
        try:
            outcome = run_invocation(invocation, limits=self._limits, sinks=[show])
        except ExecutableNotFound as exc:
            return AgentReply("", False, f"{exc.name}: command not found", command=command)
        except JlgError as exc:  # an argv Windows would mangle, a missing directory
            return AgentReply("", False, exc.message, command=command)
        if outcome.stop_reason is StopReason.CANCELLED:
            raise Interrupted(self.name)
        result = parser.finish(outcome)
        error = result.error
        if not result.ok and error is None:
            error = f"{self.name} stopped ({outcome.stop_reason.value}, exit {outcome.exit_code})"
        return AgentReply(
            result.text, result.ok, error, result.exit_code, result.output_tail, command
        )
