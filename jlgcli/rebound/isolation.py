"""How a rebound script is isolated from jlgcli, the project and the user (issues 33, 46).

An allow-listed environment and a non-dumpable jlgcli do not stop a script
running as root: it reads ``/proc/<jlgcli>/environ`` and writes ``.git/hooks``;
and a script that keeps its capabilities undoes read-only binds (``umount2``).
So on Linux the script runs, by preference:

``bubblewrap``
    ``bwrap`` (what Flatpak and the Claude Code sandbox use): its own PID, mount,
    IPC and network namespaces (loopback only, unless ``reboundNetwork``) with a
    fresh ``/proc`` (``/proc/sys`` read-only), a private ``/dev`` and ``/tmp``,
    the whole file system read-only except the project, the user's home, config
    folder and ``/run/user/<uid>`` hidden under empty tmpfs, and inside the
    project ``.git/``, the git directories ``git rev-parse`` names, jlgcli's own
    files and the ledger bound read-only again. ``--die-with-parent``.
``unshare``
    util-linux ``unshare`` (root, or any user where user namespaces are
    allowed): the same namespaces; the same file system, made by ``confine``
    (Python inside the namespaces, paths as arguments, never as program text).
``unprivileged-user``
    neither works and jlgcli runs as root: the script runs as ``nobody``
    (``setpriv``): it cannot read a root process's ``/proc/<pid>/environ`` nor
    write root's files, which also means it cannot write the project.
``none``
    neither works and jlgcli is not root (or not Linux): the allow-listed
    environment and, on Linux, the non-dumpable jlgcli only.

At every level but ``none`` the script then starts under ``confine``: no
capability in any set, ``no_new_privs``, a seccomp filter (mount, umount,
pivot_root, ptrace, keyring, namespaces… refused), and, as root, ``/etc/shadow``
and the like covered by an unreadable file. ``confine`` checks
``/proc/self/status`` and refuses to start the script when any of it is missing;
each level is probed once per process by running ``confine`` under it, so a
level that cannot give all this is not offered (the next one is used and named).
``reboundIsolation``: ``best`` (default), ``strict`` (``bubblewrap`` or
``unshare`` only, else no script runs), or one level.

A read-only bind needs an existing path: a protected name that did not exist
before the script (``.jlgcli.json`` in a project without one) is removed if the
script created it (``remove_new_protected``). The level used is recorded in
the ledger (``isolation`` of each execution and of the session) and shown in
the step's progress line.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from jlgcli.records import record

Kind = Literal["bubblewrap", "unshare", "unprivileged-user", "none"]
LEVELS: tuple[Kind, ...] = ("bubblewrap", "unshare", "unprivileged-user", "none")
FULL_LEVELS: tuple[Kind, ...] = ("bubblewrap", "unshare")  # what reboundIsolation strict accepts
IS_LINUX = sys.platform.startswith("linux")
SYSTEM_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin")
NOBODY = "65534"
RUN_SCRIPT_COMMAND = "__jlgcli_run_script__"  # the frozen exe's hidden entry point
PRIVATE_TMP = "/tmp"  # noqa: S108 - a tmpfs of the script's own mount namespace
SCRIPT_HOME = "/tmp/home"  # noqa: S108 - HOME: a fresh folder in that tmpfs
# Names in the project root a script must not write (paths.py refuses them as artifacts).
PROTECTED_NAMES = (".git", ".jlgcli", ".jlgcli.json", ".aidevloop", ".aidevloop.json",
                   ".aidevloop.yaml", ".aidevloop.yml")  # fmt: skip
# Files root owns and may read without capabilities (owner bits): covered as root.
SECRET_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
                "/etc/security/opasswd", "/etc/ssh/ssh_host_*key")  # fmt: skip
_probed: dict[str, bool] = {}


@record
class Isolation:
    """The isolation a script runs under: ``wrap`` turns the script's argv into what runs.

    ``confine``: the JSON spec of the ``confine`` step that starts the script
    (None: the script starts directly). ``refused``: no script may run (the
    level asked for is not available), and why.
    """

    kind: Kind
    prefix: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # variables the isolated script gets instead
    confine: str | None = None
    refused: str | None = None

    def wrap(self, argv: Sequence[str]) -> list[str]:
        return [*self.prefix, *confined(argv, self.confine)]


def confined(argv: Sequence[str], spec: str | None) -> list[str]:
    """``argv`` (``[python, script…]`` or ``[exe, RUN_SCRIPT_COMMAND, script…]``) under confine."""
    if spec is None:
        return list(argv)
    if len(argv) > 1 and argv[1] == RUN_SCRIPT_COMMAND:
        return [argv[0], RUN_SCRIPT_COMMAND, "--confine", spec, *argv[2:]]
    # -I: nothing of the project (the working directory) is importable before the script runs
    return [argv[0], "-I", "-u", "-B", "-c", confine_source(), spec, *argv[1:]]


@functools.cache
def confine_source() -> str:
    """The text of ``jlgcli/rebound/confine.py``: the program that runs first, inside."""
    return Path(__file__).with_name("confine.py").read_text("utf-8")


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
    common directory holds the hooks; in a sub-folder of a repository the git
    directory is above the root: ``git rev-parse`` names them, all protected.
    """
    found = [root / name for name in PROTECTED_NAMES if (root / name).exists()]
    for path in [*git_dirs(root / ".git"), *repository_git_dirs(root), *extra]:
        if path.exists() and path not in found:
            found.append(path)
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


def repository_git_dirs(root: Path) -> list[Path]:
    """``git rev-parse --git-dir --git-common-dir`` from ``root``: wherever the loop starts."""
    from jlgcli.process import git

    found = git.run(root, "rev-parse", "--git-dir", "--git-common-dir").answer  # no git: None
    return [(root / line).resolve() for line in (found or "").splitlines() if line.strip()]


def private_folders(euid: int, env: dict[str, str] | None = None) -> list[Path]:
    """What the script must not see: the user's home, jlgcli's config folder, /root, /run/user."""
    from jlgcli.config.paths import user_config_dir
    from jlgcli.errors import JlgError

    env = dict(os.environ) if env is None else env
    found = [Path(env["HOME"])] if env.get("HOME") else []
    if sys.platform != "win32":
        import pwd

        with contextlib.suppress(KeyError):
            found.append(Path(pwd.getpwuid(euid).pw_dir))
    with contextlib.suppress(JlgError):  # a bad JLGCLI_CONFIG_DIR: the run reports it elsewhere
        found.append(user_config_dir(env))
    found += [Path("/root"), Path(f"/run/user/{euid}")]
    folders: list[Path] = []
    for folder in found:
        real = folder.resolve()
        if real.is_dir() and real != Path("/") and real not in folders:
            folders.append(real)
    return folders


def python_folders(root: Path, hidden: Sequence[Path]) -> list[Path]:
    """What runs the script (this Python, its prefixes; the frozen exe's folder), to be
    bound read-only: where it is in a hidden folder (pyenv in a home), or in the project
    (a ``.venv``: a script must not change the jlgcli that runs next), or under ``/tmp``,
    which the sandbox replaces with its own (a venv or an exe made in a temporary folder).
    jlgcli's own package is among them: an editable install runs it from its checkout."""
    places = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent]
    places.append(Path(os.path.realpath(sys.executable)).parent.parent)
    places.append(Path(__file__).resolve().parents[1])  # the jlgcli package's folder
    covered = [*hidden, root, Path(PRIVATE_TMP), Path("/dev/shm")]  # noqa: S108 - see above
    found: list[Path] = []
    for place in places:
        if place in found or not place.is_dir():
            continue
        if any(place == h or h in place.parents for h in covered):
            found.append(place)
    return found


def secret_files() -> list[str]:
    """The secret files present here (root may read them as their owner)."""
    return sorted({hit for pattern in SECRET_FILES for hit in glob.glob(pattern)})  # noqa: PTH207


@record
class Sandbox:
    """What every level needs to know: the project, what is protected, hidden, exposed."""

    root: Path
    protected: tuple[Path, ...]
    hide: tuple[Path, ...] = ()
    expose: tuple[Path, ...] = ()
    mask: tuple[str, ...] = ()
    network: bool = False

    def spec(self, *, mounts: bool) -> str:
        """The JSON spec ``confine`` reads."""
        data: dict[str, object] = {"mask": list(self.mask), "home": SCRIPT_HOME}
        if mounts:
            data |= {"mounts": True, "root": str(self.root),
                     "protected": [str(p) for p in self.protected],
                     "hide": [str(p) for p in self.hide],
                     "expose": [str(p) for p in self.expose],
                     "loopback": not self.network}  # fmt: skip
        return json.dumps(data)


def bubblewrap_prefix(bwrap: str, box: Sandbox) -> list[str]:
    """``bwrap`` options: fresh /proc, /tmp, no network, read-only but the project, no home."""
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--remount-ro", "/proc", "--tmpfs", PRIVATE_TMP]  # fmt: skip
    argv += [] if box.network else ["--unshare-net"]
    inside = [f for f in box.hide if f != box.root and box.root in f.parents]
    for folder in [f for f in box.hide if f not in inside and f != box.root]:
        argv += ["--tmpfs", str(folder)]
    within = [f for f in box.expose if f == box.root or box.root in f.parents]
    for folder in [f for f in box.expose if f not in within]:
        argv += ["--ro-bind", str(folder), str(folder)]
    argv += ["--bind", str(box.root), str(box.root)]
    for path in [*box.protected, *within]:  # a Python in the project (its .venv) too
        argv += ["--ro-bind", str(path), str(path)]
    for folder in inside:  # a folder to hide inside the project: after the project's bind
        argv += ["--tmpfs", str(folder)]
    for folder in box.hide:  # empty and read-only, once the binds made their mount points
        argv += [] if folder == box.root else ["--remount-ro", str(folder)]
    return [*argv, "--chdir", str(box.root), "--"]


def unshare_prefix(unshare: str, *, as_root: bool, network: bool) -> list[str]:
    """``unshare`` options (a user namespace when not root); ``confine`` makes the mounts."""
    user = [] if as_root else ["--user", "--map-root-user"]
    net = [] if network else ["--net"]
    return [unshare, *user, "--pid", "--fork", "--kill-child", "--mount", "--mount-proc",
            "--propagation", "private", "--ipc", "--uts", *net, "--"]  # fmt: skip


def _level(
    kind: Kind, box: Sandbox, uid: int, tool: Callable[[str], str | None]
) -> Isolation | None:
    """The isolation of ``kind`` with this sandbox, if its tools are here."""
    private = (("HOME", SCRIPT_HOME), ("TMPDIR", PRIVATE_TMP), ("TMP", PRIVATE_TMP),
               ("TEMP", PRIVATE_TMP))  # fmt: skip
    if kind == "bubblewrap":
        bwrap = tool("bwrap")
        if bwrap is None:
            return None
        return Isolation(
            kind, tuple(bubblewrap_prefix(bwrap, box)), private, box.spec(mounts=False)
        )
    if kind == "unshare":
        unshare = tool("unshare")
        if unshare is None:
            return None
        prefix = unshare_prefix(unshare, as_root=uid == 0, network=box.network)
        return Isolation(kind, tuple(prefix), private, box.spec(mounts=True))
    if kind == "unprivileged-user":
        setpriv = tool("setpriv")
        if uid != 0 or setpriv is None:
            return None
        drop = (setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--")  # fmt: skip
        return Isolation(kind, drop, (), json.dumps({"mask": []}))
    return Isolation("none")


def choose_isolation(
    root: Path,
    protected: Sequence[Path] = (),
    *,
    choice: str = "best",
    network: bool = False,
    is_linux: bool = IS_LINUX,
    euid: int | None = None,
    tool: Callable[[str], str | None] = system_tool,
    works: Callable[[str, list[str]], bool] | None = None,
    frozen: bool | None = None,
) -> Isolation:
    """The strongest isolation that works here among those ``choice`` allows (probed once each).

    ``choice``: ``best`` (any, down to ``none``), ``strict`` (``bubblewrap`` or
    ``unshare``), or one level. When none of those works the result is
    ``refused`` (no script may run) and says why.
    """
    wanted = LEVELS if choice == "best" else FULL_LEVELS if choice == "strict" else (choice,)
    if not is_linux:
        return Isolation("none") if "none" in wanted else _refused(choice, "this OS")
    uid = euid if euid is not None else _euid()
    check = works or _works
    hidden = private_folders(uid)
    box = Sandbox(
        root, tuple(protected_paths(root, protected)), tuple(hidden),
        tuple(python_folders(root, hidden)), tuple(secret_files()) if uid == 0 else (), network,
    )  # fmt: skip
    for kind in wanted:
        level = _level(kind, box, uid, tool)  # type: ignore[arg-type]
        if level is None:
            continue
        if kind == "none" or check(kind, level.wrap(probe_argv(frozen=frozen))):
            return level
    return _refused(choice, "this machine")


def _refused(choice: str, where: str) -> Isolation:
    levels = "bubblewrap or unshare" if choice == "strict" else choice
    return Isolation(
        "none", refused=f"reboundIsolation is {choice}: {levels} does not work on {where}"
    )


def probe_argv(*, frozen: bool | None = None) -> list[str]:
    """What runs a script, without the script: under confine, a probe of the level (exit 0)."""
    if getattr(sys, "frozen", False) if frozen is None else frozen:
        return [sys.executable, RUN_SCRIPT_COMMAND]
    return [sys.executable]


def _euid() -> int:
    if sys.platform == "win32":  # no uids there (and no isolation levels either)
        return -1
    return os.geteuid()


def _works(kind: str, argv: list[str]) -> bool:
    """Whether ``argv`` (confine under the level, no script) exits 0 here; once per kind."""
    if kind not in _probed:
        try:
            done = subprocess.run(
                argv,
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
