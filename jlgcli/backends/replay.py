"""The ``replay`` backend: replays a recorded run's final messages, one per call.

``jlgcli loop task.md --backend replay --replay <run dir>`` drives the real
loop (process layer, completion, guardrails, summary, artifacts) with no agent
CLI installed: each call runs a child that prints the next recorded
``iterations/NNN/final.md``. It says plainly that it is a replay.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli.backends.base import Availability, BackendRequest
from jlgcli.backends.command import CommandParser
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import Invocation
from jlgcli.selfcmd import PRINT_FILE_ENTRY, self_argv


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

    def parser(self) -> CommandParser:
        # The recorded message is plain text, exactly like a command backend's output.
        return CommandParser(self.id, clean=False)
