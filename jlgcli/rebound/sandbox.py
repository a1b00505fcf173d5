"""Where a ``next_action.target_script`` may point (REQ_AUTO_040).

Only an existing regular ``.py`` file strictly under ``workbench/scripts/`` of
the project root, after normalisation and symlink resolution. The lexical
prefix must be exactly ``workbench/scripts/`` (same case) on every OS: on a
case-sensitive disk ``WORKBENCH/scripts`` is another directory, and accepting
it on Windows only would make the rule differ by OS. The sandbox directory
itself is the *lexical* ``<root>/workbench/scripts``: if ``workbench`` is a
symlink, every script behind it resolves elsewhere and is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from jlgcli.rebound.paths import IS_WINDOWS, check_relative_path, path_within
from jlgcli.records import record

SCRIPTS_PARTS = ("workbench", "scripts")
SCRIPTS_DIR = "/".join(SCRIPTS_PARTS)

DecisionKind = Literal["ok", "refused", "not-found"]


@record
class ScriptDecision:
    """Whether a target script may run; ``path`` is the resolved file to run when ok.

    ``refused`` is a sandbox violation (counted toward the refusal limit);
    ``not-found`` is an ordinary failure (the model forgot the artifact).
    """

    raw: str
    kind: DecisionKind
    reason: str = ""
    path: Path | None = None
    relpath: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def resolve_target_script(root: Path, raw: str, *, is_windows: bool = IS_WINDOWS) -> ScriptDecision:
    """Decide whether ``raw`` (relative to project ``root``) names a runnable script.

    Never executes anything. The returned ``path`` is fully resolved, so the
    file that was checked is the file that runs.
    """
    verdict = check_relative_path(raw)
    if not verdict.ok:
        return _refused(raw, f"unsafe path: {verdict.reason}")
    parts = verdict.parts
    if parts[: len(SCRIPTS_PARTS)] != SCRIPTS_PARTS or len(parts) <= len(SCRIPTS_PARTS):
        return _refused(raw, f"outside {SCRIPTS_DIR}/ (only scripts under it may run)")
    if not parts[-1].endswith(".py") or parts[-1] == ".py":
        return _refused(raw, "not a .py file (only Python scripts may run)")
    try:
        root_real = root.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        return ScriptDecision(raw, "not-found", f"project root unavailable: {exc}")
    sandbox = root_real.joinpath(*SCRIPTS_PARTS)
    candidate = root_real.joinpath(*parts)
    if not _lexists(candidate):
        return ScriptDecision(
            raw, "not-found", f"{verdict.relpath} does not exist (write it as an artifact first)"
        )
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        # A dangling or looping symlink: refused rather than "missing", since
        # its target was never a script under the sandbox.
        return _refused(raw, f"symlink does not resolve: {type(exc).__name__}")
    if not path_within(real, sandbox, strict=True, is_windows=is_windows):
        return _refused(raw, f"resolves outside {SCRIPTS_DIR}/ (symlink out of the sandbox)")
    if real.is_dir():
        return _refused(raw, "is a directory, not a script")
    if not real.is_file():
        return _refused(raw, "not a regular file")
    if real.suffix != ".py":
        return _refused(raw, "resolves to a file that is not a .py script")
    return ScriptDecision(raw, "ok", path=real, relpath=verdict.relpath)


def _refused(raw: str, reason: str) -> ScriptDecision:
    return ScriptDecision(raw, "refused", reason)


def _lexists(path: Path) -> bool:
    try:
        path.lstat()
    except (OSError, ValueError):
        return False
    return True
