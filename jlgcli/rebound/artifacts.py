"""Artifact-first writes: the reply's files land on disk before anything runs.

Each artifact is checked lexically (``paths.check_relative_path``), then on
disk: the target, with every existing symlink on the way resolved, must stay
strictly inside the project root and outside protected places (``.git``, the
ledger); an existing symlink is never written through or replaced. Content is
decoded (UTF-8 or base64), size-capped, and written atomically (temp file in
the same directory, fsync, ``os.replace``), so a reader never sees half a file.

``refused`` means a sandbox violation (counted by the session); ``failed`` is
an ordinary problem (too big, bad base64, disk error).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from jlgcli.artifacts.atomic import atomic_write_bytes
from jlgcli.rebound.paths import IS_WINDOWS, check_relative_path, path_within, protected_parts
from jlgcli.records import record

if TYPE_CHECKING:
    from jlgcli.rebound.schema import Artifact

ArtifactStatus = Literal["written", "refused", "failed"]
DEFAULT_MAX_ARTIFACT_BYTES = 1_048_576
MAX_ARTIFACTS_PER_REPLY = 200


@record
class ArtifactRecord:
    """What happened to one artifact (journaled in the ledger)."""

    path: str  # as the model wrote it
    status: ArtifactStatus
    relpath: str = ""
    reason: str = ""
    size: int = 0
    sha256: str = ""
    encoding: str = "utf-8"
    replaced: bool = False  # an existing file was overwritten


class _Problem(Exception):  # noqa: N818 - internal control flow, never escapes
    def __init__(self, status: ArtifactStatus, reason: str) -> None:
        super().__init__(reason)
        self.status: ArtifactStatus = status
        self.reason = reason


def write_artifacts(
    root: Path,
    artifacts: Sequence[Artifact],
    *,
    max_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES,
    protected: Iterable[Path] = (),
    is_windows: bool = IS_WINDOWS,
) -> list[ArtifactRecord]:
    """Write every acceptable artifact under ``root``; one record per artifact, in order.

    ``protected``: directories no artifact may land in (the ledger); the
    project's ``.git`` is always protected. Never raises for an artifact.
    """
    root_real = root.resolve(strict=True)
    guarded = [root_real / ".git", *(p.resolve() for p in protected)]
    records = []
    for index, artifact in enumerate(artifacts):
        if index >= MAX_ARTIFACTS_PER_REPLY:
            reason = f"more than {MAX_ARTIFACTS_PER_REPLY} artifacts in one reply"
            records.append(ArtifactRecord(artifact.path, "failed", reason=reason))
            continue
        try:
            records.append(_write_one(root_real, artifact, max_bytes, guarded, is_windows))
        except _Problem as problem:
            records.append(
                ArtifactRecord(
                    artifact.path,
                    problem.status,
                    reason=problem.reason,
                    encoding=artifact.encoding,
                )
            )
    return records


def _write_one(
    root: Path, artifact: Artifact, max_bytes: int, guarded: Sequence[Path], is_windows: bool
) -> ArtifactRecord:
    verdict = check_relative_path(artifact.path)
    if not verdict.ok:
        raise _Problem("refused", f"unsafe path: {verdict.reason}")
    data = _decode(artifact)
    if len(data) > max_bytes:
        raise _Problem("failed", f"{len(data):,} bytes is over the {max_bytes:,}-byte limit")
    target = root.joinpath(*verdict.parts)
    if target.is_symlink():
        raise _Problem("refused", "the path is an existing symlink (never written through)")
    try:
        real = target.resolve()
    except (OSError, RuntimeError) as exc:
        raise _Problem("refused", f"the path does not resolve: {type(exc).__name__}") from exc
    if not path_within(real, root, strict=True, is_windows=is_windows):
        raise _Problem("refused", "resolves outside the project root (a symlinked directory)")
    landed_on = protected_parts(real.relative_to(root).parts)  # through a symlinked directory
    if landed_on:
        raise _Problem("refused", f"inside a protected directory: {landed_on}")
    for place in guarded:
        if path_within(real, place, strict=False, is_windows=is_windows):
            raise _Problem("refused", f"inside a protected directory ({place.name})")
    if real.is_dir():
        raise _Problem("failed", "the path is an existing directory")
    replaced = real.exists()
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        write_file(real, data)
    except OSError as exc:
        raise _Problem("failed", f"write failed: {exc.strerror or exc}") from exc
    return ArtifactRecord(
        artifact.path,
        "written",
        relpath=verdict.relpath,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        encoding=artifact.encoding,
        replaced=replaced,
    )


def _decode(artifact: Artifact) -> bytes:
    if artifact.encoding == "utf-8":
        # surrogatepass would let lone surrogates through; "strict" refuses them.
        try:
            return artifact.content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _Problem("failed", "content is not valid Unicode (lone surrogate)") from exc
    try:
        return base64.b64decode(artifact.content, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _Problem("failed", f"invalid base64 content: {exc}") from exc


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` atomically; a replaced file keeps its permission bits (a script's +x)."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    atomic_write_bytes(path, data)
    if mode is not None:
        path.chmod(mode)
