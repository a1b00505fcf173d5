"""One run's artifacts directory: ``<root>/<id>/`` (F-006, RG-015, RG-016, US-8).

Layout::

    <root>/<id>/meta.json            backend, versions, options, timings; never the environment
    <root>/<id>/transcript.ndjson    every output chunk and runner record, as it happens
    <root>/<id>/iterations/001/prompt.md, final.md
    <root>/<id>/result.json          the RunSummary

Everything written goes through one ``Redactor`` (RG-007), whose count the
summary reports as a warning. Every write failure is ``JlgError`` 73 naming
the path, with a hint (RG-016; F-006 "droits insuffisants").
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from jlgcli._version import __version__
from jlgcli.artifacts.atomic import atomic_write_json, atomic_write_text
from jlgcli.artifacts.ids import coerce_run_id
from jlgcli.artifacts.layout import (
    DEFAULT_ROOT,
    FINAL_FILE,
    ITERATIONS_DIR,
    META_FILE,
    PROMPT_FILE,
    RESULT_FILE,
    TRANSCRIPT_FILE,
    default_root,
    iteration_name,
)
from jlgcli.artifacts.project import require_own_folder
from jlgcli.artifacts.redact import Redactor
from jlgcli.artifacts.transcript import TranscriptSink
from jlgcli.errors import ExitCode, JlgError
from jlgcli.moments import datetime, timezone

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

HINT = "pass --artifacts-dir DIR or fix permissions"
__all__ = ["DEFAULT_ROOT", "HINT", "RunDirectory", "default_root"]

# Keys that would carry (part of) the environment: dropped from meta at any depth.
_ENV_KEYS = frozenset({"env", "environ", "environment"})


class RunDirectory:
    """The artifacts of one run; create it with ``RunDirectory.create``."""

    def __init__(self, root: Path, run_id: str, redactor: Redactor, transcript: TranscriptSink):
        self.root = root
        self.run_id = run_id
        self.path = root / run_id
        self.redactor = redactor
        self.transcript = transcript

    @classmethod
    def create(
        cls,
        root: Path,
        run_id: str | None = None,
        *,
        redactor: Redactor | None = None,
        start: float | None = None,
    ) -> RunDirectory:
        """Create ``<root>/<run_id>/`` and open its transcript; raises ``JlgError`` 73.

        An unsafe or missing ``run_id`` is replaced by a fresh one (F-006, RG-015).
        ``start``: the run's ``time.monotonic()`` start for transcript times.
        """
        root = Path(root)
        run_id = coerce_run_id(run_id)
        path = root / run_id
        require_own_folder(root)  # a symlinked .jlgcli sends the records elsewhere (issue 46)
        try:
            root_existed = root.is_dir()
            root.mkdir(parents=True, exist_ok=True)
            if not root_existed or _owned_by_jlgcli(root):
                _ignore_in_git(root)
            path.mkdir()
        except FileExistsError:
            raise JlgError(
                ExitCode.CANT_CREATE, f"run directory {path} already exists", hint=HINT
            ) from None
        except OSError as exc:
            raise _error("cannot create the artifacts directory", path, exc) from None
        redactor = Redactor() if redactor is None else redactor
        transcript = TranscriptSink(path / TRANSCRIPT_FILE, redactor=redactor, start=start)
        return cls(root, run_id, redactor, transcript)

    @property
    def redactions(self) -> int:
        """How many secrets were masked in this run's files so far (a summary warning)."""
        return self.redactor.count

    @property
    def meta_path(self) -> Path:
        return self.path / META_FILE

    @property
    def result_path(self) -> Path:
        return self.path / RESULT_FILE

    def write_meta(self, meta: Mapping[str, Any]) -> Path:
        """Write ``meta.json`` (may be called again to update timings); never the environment."""
        base: dict[str, Any] = {
            "runId": self.run_id,
            "createdAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "jlgcliVersion": __version__,
            # platform.python_version()'s answer without importing platform (~2 ms, issue 49)
            "python": sys.version.split()[0],
            "platform": sys.platform,
        }
        base.update(_without_env(meta))
        return self._write_json(self.meta_path, base)

    def write_result(self, result: Mapping[str, Any]) -> Path:
        """Write ``result.json``: the RunSummary as a JSON-ready dict."""
        return self._write_json(self.result_path, dict(result))

    def iteration_dir(self, n: int) -> Path:
        """``iterations/NNN/``, created on first use."""
        path = self.path / ITERATIONS_DIR / iteration_name(n)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _error("cannot create", path, exc) from None
        return path

    def write_prompt(self, n: int, text: str) -> Path:
        """Write the prompt sent in iteration ``n``."""
        return self._write_text(self.iteration_dir(n) / PROMPT_FILE, text)

    def write_final_message(self, n: int, text: str) -> Path:
        """Write the assistant's final message of iteration ``n``."""
        return self._write_text(self.iteration_dir(n) / FINAL_FILE, text)

    def close(self) -> None:
        """Flush and close the transcript (raises ``JlgError`` 73 if that fails)."""
        self.transcript.close()

    def __enter__(self) -> RunDirectory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
            return
        with contextlib.suppress(JlgError):  # keep the original exception
            self.close()

    def _write_text(self, path: Path, text: str) -> Path:
        try:
            atomic_write_text(path, self.redactor.redact(text))
        except OSError as exc:
            raise _error("cannot write", path, exc) from None
        return path

    def _write_json(self, path: Path, obj: dict[str, Any]) -> Path:
        try:
            atomic_write_json(path, self.redactor.redact_obj(obj))
        except OSError as exc:
            raise _error("cannot write", path, exc) from None
        return path


def _without_env(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {
            k: _without_env(v)
            for k, v in obj.items()
            if not (isinstance(k, str) and k.replace("_", "").lower() in _ENV_KEYS)
        }
    if isinstance(obj, (list, tuple)):
        return [_without_env(item) for item in obj]
    return obj


def _owned_by_jlgcli(root: Path) -> bool:
    """A root inside ``.jlgcli/`` holds only what jlgcli wrote: it may always be ignored.

    Another root that was already there may be the user's own folder, whose files
    a ``*`` would hide from git: it is left alone (issue 31).
    """
    return ".jlgcli" in root.parts


def _ignore_in_git(root: Path) -> None:
    """Transcripts may hold private code: keep a new artifacts root out of git by default
    (a ``.gitignore`` already there, jlgcli's or the user's, is kept)."""
    if (root / ".gitignore").exists():
        return
    with contextlib.suppress(OSError):
        atomic_write_text(root / ".gitignore", "# created by jlgcli: run artifacts stay local\n*\n")


def _error(what: str, path: Path, exc: OSError) -> JlgError:
    reason = exc.strerror or str(exc)
    return JlgError(ExitCode.CANT_CREATE, f"{what} {path}: {reason}", hint=HINT)
