"""The ``replay`` backend: replays a recorded run's final messages, one per call.

``jlgcli loop task.md --backend replay --replay <run dir>`` drives the real
loop (process layer, completion, guardrails, summary, artifacts) with no agent
CLI installed: each call runs a child that prints the next recorded
``iterations/NNN/final.md``. It says plainly that it is a replay.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import Invocation, ProcessOutcome, StreamName
from jlgcli.selfcmd import PRINT_FILE_ENTRY, self_argv

TAIL_LIMIT = 1_000_000  # characters of plain output kept for completion


class PlainTextParser:
    """Plain-text output: shown live as it comes; the final message is its bounded tail."""

    def __init__(self, limit: int = TAIL_LIMIT) -> None:
        self._limit = limit
        self._stdout: list[str] = []
        self._size = 0
        self._stderr_tail = ""

    def feed(self, stream: StreamName, text: str) -> str:
        if stream == "stderr":
            self._stderr_tail = (self._stderr_tail + text)[-4000:]
            return ""
        self._stdout.append(text)
        self._size += len(text)
        if self._size > 2 * self._limit:
            joined = "".join(self._stdout)[-self._limit :]
            self._stdout, self._size = [joined], len(joined)
        return text

    def finish(self, outcome: ProcessOutcome) -> BackendResult:
        text = "".join(self._stdout)[-self._limit :]
        ok = outcome.ok
        error = None if ok else (self._stderr_tail.strip() or f"exit code {outcome.exit_code}")
        return BackendResult(
            text=text,
            ok=ok,
            exit_code=outcome.exit_code,
            error=error,
            error_kind=None if ok else "backend",
            output_tail=(text[-2000:] + self._stderr_tail)[-4000:],
        )


class ReplayBackend:
    """Serves ``<run dir>/iterations/NNN/final.md`` in order."""

    id = "replay"

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.messages = sorted((run_dir / "iterations").glob("*/final.md"))
        self._next = 0

    def probe(self, timeout: float = 2.0) -> Availability:
        if not self.messages:
            return Availability(
                self.id,
                "missing",
                path=str(self.run_dir),
                detail=f"no recorded iterations under {self.run_dir}",
                hint="pass --replay <run dir> recorded with --artifacts "
                "(it has iterations/NNN/final.md)",
            )
        return Availability(
            self.id,
            "available",
            version="recording",
            path=str(self.run_dir),
            detail=f"{len(self.messages)} recorded iterations",
        )

    def invocation(self, request: BackendRequest) -> Invocation:
        if self._next >= len(self.messages):
            raise JlgError(
                ExitCode.RUN_ERROR,
                f"the recording in {self.run_dir} has only {len(self.messages)} iterations",
                hint="record a longer run, or lower --max-iterations",
            )
        message = self.messages[self._next]
        self._next += 1
        return Invocation(argv=(*self_argv(), PRINT_FILE_ENTRY, str(message)), cwd=request.cwd)

    def parser(self) -> PlainTextParser:
        return PlainTextParser()
