"""The rebound ledger (REQ_AUTO_050): one directory per session, one JSON file per step.

``<ledger root>/<session id>/index.json`` links the steps; ``step-NNN.json``
holds everything one step did: the prompt sent, the model's reply (with its
thought_process), the artifacts written, the next_action, the execution (argv,
stdout, stderr, return code, duration) or the refusal, and the continuation
prompt built. An auditor rebuilds ``instruction → reply → artifacts →
next_action → output → continuation → … → final`` from these files alone.

Every string is redacted before it is written, like the run artifacts. A step
file is rewritten (atomically) at each phase, so a crash mid-step still leaves
the reply and the artifacts journaled. Any write failure is exit 73.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from jlgcli.artifacts.atomic import atomic_write_bytes
from jlgcli.errors import ExitCode, JlgError
from jlgcli.moments import datetime, timezone
from jlgcli.rebound.artifacts import ArtifactRecord
from jlgcli.rebound.execute import ExecutionResult
from jlgcli.records import asdict

LEDGER_VERSION = 1
INDEX_FILE = "index.json"
MAX_TEXT_CHARS = 2_000_000  # per string in a step file: a runaway reply must not fill the disk

Redact = Callable[[str], str]


def new_session_id(now: datetime | None = None) -> str:
    """A sortable session id without ``:`` (valid as a Windows directory name)."""
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def utc_now() -> str:
    """An ISO-8601 UTC timestamp for ledger records."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sha256_text(text: str) -> str:
    """The hash that links a step's continuation prompt to the next step's prompt."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def transcript_ref(transcript: Path, iteration: int, *, root: Path | None = None) -> str:
    """A step's ``payloadRef``: where the raw exchange of its model call is kept (REQ_AUTO_050).

    ``<transcript>#iteration=<n>``: the records of the run's transcript from
    its ``iteration-start`` record for ``n``; the path is relative to ``root``
    (with ``/``) when inside it.
    """
    shown = str(transcript)
    if root is not None:
        with contextlib.suppress(ValueError):  # outside the root: the path as given
            shown = transcript.resolve().relative_to(root.resolve()).as_posix()
    return f"{shown}#iteration={iteration}"


def step_file_name(step: int) -> str:
    """``step-001.json``: numbered so a plain directory listing is in order."""
    return f"step-{step:03d}.json"


class LedgerWriter:
    """Writes one session's directory; every failure becomes ``JlgError(73)``."""

    def __init__(self, directory: Path, *, redact: Redact) -> None:
        self.directory = directory
        self._redact = redact

    def write_index(self, index: Mapping[str, Any]) -> None:
        """Replace ``index.json`` (the session's table of contents)."""
        self._write(self.directory / INDEX_FILE, index)

    def write_step(self, step: int, record: Mapping[str, Any]) -> Path:
        """Replace ``step-NNN.json`` with ``record`` (redacted)."""
        path = self.directory / step_file_name(step)
        self._write(path, record)
        return path

    def _write(self, path: Path, payload: Mapping[str, Any]) -> None:
        text = json.dumps(self._scrub(payload), indent=2, ensure_ascii=False) + "\n"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, text.encode("utf-8", "replace"))
        except OSError as exc:
            raise JlgError(
                ExitCode.CANT_CREATE,
                f"cannot write the rebound ledger at {self.directory}: {exc.strerror or exc}",
                "make the ledger directory writable, or choose another with ledgerDir",
            ) from exc

    def _scrub(self, value: Any) -> Any:
        if isinstance(value, str):
            return _cap(self._redact(value))
        if isinstance(value, Mapping):
            return {str(k): self._scrub(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._scrub(v) for v in value]
        return value


def _cap(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    dropped = len(text) - MAX_TEXT_CHARS
    return f"{text[:MAX_TEXT_CHARS]}\n[... {dropped:,} characters not journaled ...]"


def artifact_json(record: ArtifactRecord) -> dict[str, Any]:
    """An artifact record in the ledger's camelCase shape."""
    data = asdict(record)
    return {
        "path": data["path"],
        "status": data["status"],
        "relpath": data["relpath"] or None,
        "reason": data["reason"] or None,
        "bytes": data["size"],
        "sha256": data["sha256"] or None,
        "encoding": data["encoding"],
        "replaced": data["replaced"],
    }


def execution_json(target: str, result: ExecutionResult) -> dict[str, Any]:
    """A script run in the ledger's camelCase shape."""
    return {
        "targetScript": target,
        "argv": list(result.argv),
        "cwd": result.cwd,
        "returnCode": result.exit_code,
        "stopReason": result.stop_reason,
        "durationSeconds": round(result.duration, 3),
        "timeoutSeconds": result.timeout,
        "pid": result.pid,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "stdoutBytes": result.stdout_bytes,
        "stderrBytes": result.stderr_bytes,
        "stdoutTruncated": result.stdout_truncated,
        "stderrTruncated": result.stderr_truncated,
        "error": result.error,
        "isolation": result.isolation,
    }
