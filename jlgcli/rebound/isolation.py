"""How a rebound script is isolated from jlgcli and the project's own files (issue 33).

An allow-listed environment and a non-dumpable jlgcli do not stop a script
running as root: it reads ``/proc/<jlgcli>/environ`` and writes ``.git/hooks``.
So on Linux the script runs, by preference:

``bubblewrap``
    ``bwrap`` (what Flatpak and the Claude Code sandbox use): its own PID, mount
    and IPC namespaces with a fresh ``/proc`` (jlgcli and its environment are
    not in it), a private ``/dev`` and ``/tmp``, the whole file system
    read-only except the project, and inside the project ``.git/``, jlgcli's
    own files (``.jlgcli.json``, ``.jlgcli/``, ``.aidevloop*``) and the ledger
    bound read-only again. ``--die-with-parent``: it ends with its step.
``unshare``
    util-linux ``unshare`` (root, or any user where user namespaces are
    allowed): the same PID and mount namespaces with a fresh ``/proc``; the
    protected paths are bound read-only by a fixed ``sh`` program (paths are its
    arguments, never its text). The rest of the file system stays as writable
    as it is for the user.
``unprivileged-user``
    neither works and jlgcli runs as root: the script runs as ``nobody``
    (``setpriv``): it cannot read a root process's ``/proc/<pid>/environ`` nor
    write root's files, which also means it cannot write the project.
``none``
    neither works and jlgcli is not root (or not Linux): the allow-listed
    environment and, on Linux, the non-dumpable jlgcli only.

A read-only bind needs an existing path: a protected name that did not exist
before the script (``.jlgcli.json`` in a project without one) is removed if the
script created it (``remove_new_protected``). The level used is recorded in
the ledger (``isolation`` of each execution and of the session) and shown in
the step's progress line. Each level is probed once per process by starting Python
under it (namespaces may be forbidden in a container).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from jlgcli.records import record

Kind = Literal["bubblewrap", "unshare", "unprivileged-user", "none"]
IS_LINUX = sys.platform.startswith("linux")
SYSTEM_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin")
NOBODY = "65534"
PRIVATE_TMP = "/tmp"  # noqa: S108 - a tmpfs of the script's own mount namespace
# Names in the project root a script must not write (paths.py refuses them as artifacts).
PROTECTED_NAMES = (".git", ".jlgcli", ".jlgcli.json", ".aidevloop", ".aidevloop.json",
                   ".aidevloop.yaml", ".aidevloop.yml")  # fmt: skip
# Bind each argument read-only onto itself, then run the rest: "$@" only, no text of ours.
_BIND_READ_ONLY = (
    'mount=$1; n=$2; shift 2; while [ "$n" -gt 0 ]; do '
    '"$mount" --bind -- "$1" "$1" && "$mount" -o remount,bind,ro -- "$1" "$1" || exit 125; '
    "shift; n=$((n - 1)); done; "
    'exec "$@"'
)
_probed: dict[str, bool] = {}


@record
class Isolation:
    """The isolation a script runs under: ``argv`` prefixes the script's own argv."""

    kind: Kind
    prefix: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # variables the isolated script gets instead

    def wrap(self, argv: Sequence[str]) -> list[str]:
        return [*self.prefix, *argv]


def system_tool(name: str, dirs: Sequence[str] = SYSTEM_DIRS) -> str | None:
    """``name`` in the system directories only (never PATH: a repository could shadow it)."""
    for folder in dirs:
        path = f"{folder}/{name}"
        if os.access(path, os.X_OK):
            return path
    return None


def protected_paths(root: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """The existing paths a script may not write: .git, jlgcli's files, ``extra``.

    In a git worktree ``.git`` is a file naming the real git directory, whose
    common directory holds the hooks: both are protected too.
    """
    found = [root / name for name in PROTECTED_NAMES if (root / name).exists()]
    found += [p for p in [*git_dirs(root / ".git"), *extra] if p.exists()]
    return found


def git_dirs(dot_git: Path) -> list[Path]:
    """The directories a ``.git`` *file* (a worktree, a submodule) points to, if any."""
    try:
        text = dot_git.read_text("utf-8") if dot_git.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return []
    if not text.startswith("gitdir:"):
        return []
    gitdir = (dot_git.parent / text[len("gitdir:") :].strip()).resolve()
    found = [gitdir]
    try:
        common = (gitdir / "commondir").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return found
    return [*found, (gitdir / common).resolve()]


def bubblewrap_prefix(bwrap: str, root: Path, protected: Sequence[Path]) -> list[str]:
    """``bwrap`` options: fresh /proc in a new PID namespace, read-only but the project."""
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--new-session",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", PRIVATE_TMP,
            "--bind", str(root), str(root)]  # fmt: skip
    for path in protected:
        argv += ["--ro-bind", str(path), str(path)]
    return [*argv, "--chdir", str(root), "--"]


def unshare_prefix(
    unshare: str, mount: str, protected: Sequence[Path], *, as_root: bool
) -> list[str]:
    """``unshare`` options and the read-only binds (a user namespace when not root)."""
    user = [] if as_root else ["--user", "--map-root-user"]
    return [unshare, *user, "--pid", "--fork", "--kill-child", "--mount", "--mount-proc",
            "--propagation", "private", "--", "/bin/sh", "-c", _BIND_READ_ONLY, "sh",
            mount, str(len(protected)), *(str(p) for p in protected)]  # fmt: skip


def choose_isolation(
    root: Path,
    protected: Sequence[Path] = (),
    *,
    is_linux: bool = IS_LINUX,
    euid: int | None = None,
    tool: Callable[[str], str | None] = system_tool,
    works: Callable[[str, list[str]], bool] | None = None,
) -> Isolation:
    """The strongest isolation that works here (each level probed once per process)."""
    if not is_linux:
        return Isolation("none")
    uid = euid if euid is not None else _euid()
    check = works or _works
    guarded = protected_paths(root, protected)
    bwrap = tool("bwrap")
    if bwrap is not None:
        prefix = bubblewrap_prefix(bwrap, root, guarded)
        if check("bubblewrap", bubblewrap_prefix(bwrap, root, [])):
            temp = (("TMPDIR", PRIVATE_TMP), ("TMP", PRIVATE_TMP), ("TEMP", PRIVATE_TMP))
            return Isolation("bubblewrap", tuple(prefix), temp)
    unshare, mount = tool("unshare"), tool("mount")
    if unshare is not None and mount is not None:
        prefix = unshare_prefix(unshare, mount, guarded, as_root=uid == 0)
        if check("unshare", unshare_prefix(unshare, mount, [], as_root=uid == 0)):
            return Isolation("unshare", tuple(prefix))
    setpriv = tool("setpriv")
    if uid == 0 and setpriv is not None:
        drop = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        if check("unprivileged-user", drop):  # nobody may not reach this Python (/root)
            return Isolation("unprivileged-user", tuple(drop))
    return Isolation("none")


def probe_argv(*, frozen: bool | None = None) -> list[str]:
    """A quick run of what will run the script: this Python, or the frozen exe."""
    if getattr(sys, "frozen", False) if frozen is None else frozen:
        return [sys.executable, "--version"]
    return [sys.executable, "-I", "-S", "-c", ""]


def _euid() -> int:
    if sys.platform == "win32":  # no uids there (and no isolation levels either)
        return -1
    return os.geteuid()


def _works(kind: str, prefix: list[str]) -> bool:
    """Whether Python starts under ``prefix`` (namespaces may be forbidden here); once per kind."""
    if kind not in _probed:
        try:
            done = subprocess.run(
                [*prefix, *probe_argv()],  # the program that will run the script
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=30,
                check=False,
            )
            _probed[kind] = done.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _probed[kind] = False
    return _probed[kind]


def existing_protected(root: Path) -> set[str]:
    """The protected names present in ``root`` now (before a script runs)."""
    return {name for name in PROTECTED_NAMES if os.path.lexists(root / name)}


def remove_new_protected(root: Path, before: set[str]) -> list[str]:
    """Remove the protected names a script created in ``root``; returns them.

    They did not exist before the script, so removing them restores the project.
    """
    created = sorted(existing_protected(root) - before)
    for name in created:
        path = root / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return created
