"""Project trust, like direnv's ``allow``: a repository's commands run only once you trusted them.

A project file (``.jlgcli.json`` with command backends, ``.aidevloop.*`` with
validation commands) can name programs to run. Anyone who can write to the
repository (a cloned project, a model's reply) can write those files, so
jlgcli runs such commands only after ``jlgcli config trust`` recorded the
file's absolute path and SHA-256 in the USER config (``trustedProjects``); a
file changed since then needs trusting again. Settings that run nothing
(``maxIterations``, timeouts…) apply whether the file is trusted or not.

Issue 33: the bytes hashed are the bytes parsed (``resolve_settings`` reads the
file once and hashes that copy, so swapping the file mid-read cannot pair a
trusted hash with untrusted contents); a file is trusted for the path where it
is found, never through a symlink's target (a repository's ``.jlgcli.json``
linking to a trusted file elsewhere is not trusted); and a trusted file may not
name a *relative* program (``./agent.sh``, ``bin/agent``): its hash would not
cover the script it runs, which belongs to whatever repository the command
runs in, so such a backend is refused (exit 78) and the hint says to give an
absolute path or a program on PATH.

Stdlib only and cheap to import: ``config get`` imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PureWindowsPath

from jlgcli.errors import ExitCode, JlgError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TRUST_KEY = "trustedProjects"  # user config: {"/abs/path/.jlgcli.json": "sha256:<hex>"}
# Put by ``resolve_settings`` into a custom backend's settings when its file is not
# trusted; ``get_backend`` refuses to build such a backend (exit 78).
UNTRUSTED_MARK = "untrustedFile"
UNTRUSTED_STATE = "untrustedState"
AIDEVLOOP_NAMES: tuple[str, ...] = (".aidevloop.json", ".aidevloop.yaml", ".aidevloop.yml")

TRUSTED, UNTRUSTED, CHANGED = "trusted", "not trusted", "changed since trusted"
RELATIVE = "names a relative program"  # a trusted file whose backend is ./script: refused


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` of the file's bytes."""
    return bytes_digest(path.read_bytes())


def bytes_digest(raw: bytes) -> str:
    """``sha256:<hex>`` of ``raw``: what was parsed is what is compared (issue 33)."""
    import hashlib  # here: only files that hold commands are hashed

    return "sha256:" + hashlib.sha256(raw).hexdigest()


def trust_key(path: Path) -> str:
    """How a file is named in ``trustedProjects``: the absolute path where it is found.

    The folders are resolved, the file's own name is not: a ``.jlgcli.json``
    that is a symlink is trusted (or not) as itself, never through its target.
    """
    found = path.absolute()
    return str(found.parent.resolve() / found.name)


def is_relative_program(program: str) -> bool:
    """``./agent.sh``, ``bin/agent``, ``..\\x.exe``: a path, but not an absolute one."""
    has_folder = "/" in program or "\\" in program
    absolute = Path(program).is_absolute() or PureWindowsPath(program).is_absolute()
    return has_folder and not absolute


def relative_program_backends(backends: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The custom backends whose ``argv[0]`` is a relative path (refused even when trusted)."""
    found = []
    for name, settings in backends.items():
        argv = settings.get("argv")
        program = argv[0] if isinstance(argv, list) and argv else None
        if isinstance(program, str) and is_relative_program(program):
            found.append(name)
    return found


def trusted_map(user_data: Mapping[str, Any]) -> dict[str, str]:
    """The ``trustedProjects`` entries of the user config (validated by ``check_trusted_map``)."""
    value = user_data.get(TRUST_KEY, {})
    return dict(value) if isinstance(value, Mapping) else {}


def check_trusted_map(value: Any) -> str | None:
    """What is wrong with a ``trustedProjects`` value, or ``None``."""
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return f"has an invalid '{TRUST_KEY}': expected {{file path: \"sha256:…\"}}"
    return None


def trust_state(path: Path, user_data: Mapping[str, Any], *, raw: bytes | None = None) -> str:
    """``trusted``, ``not trusted`` or ``changed since trusted``.

    ``raw``: the bytes the caller parsed; pass them, so that the file is not read
    a second time (a file swapped in between would borrow the first one's trust).
    """
    recorded = trusted_map(user_data).get(trust_key(path))
    if recorded is None:
        return UNTRUSTED
    try:
        digest = bytes_digest(raw) if raw is not None else file_digest(path)
    except OSError:
        return UNTRUSTED
    return TRUSTED if recorded == digest else CHANGED


def untrusted_error(what: str, path: str | Path, state: str = UNTRUSTED) -> JlgError:
    """Exit 78: ``what`` comes from a project file that was not trusted (or changed since)."""
    if state == RELATIVE:
        return JlgError(
            ExitCode.CONFIG,
            f"{what} from {path} cannot run: its program is a relative path, which would run "
            "a script of the repository that trust does not cover",
            hint="name the program by an absolute path, or a program on PATH, in that file; "
            f"then run: jlgcli config trust {path}",
        )
    reason = "changed since you trusted it" if state == CHANGED else "is not trusted"
    return JlgError(
        ExitCode.CONFIG,
        f"{what} from {path} cannot run: the file {reason} (jlgcli runs a project's "
        "commands only once you trusted the file)",
        hint=f"read that file, then run: jlgcli config trust {path}",
    )


def mark_untrusted(
    backends: Mapping[str, Mapping[str, Any]], path: Path, state: str = UNTRUSTED
) -> dict[str, dict[str, Any]]:
    """The custom backends of an untrusted file, each marked with the file it comes from."""
    mark = {UNTRUSTED_MARK: str(path), UNTRUSTED_STATE: state}
    return {name: {**settings, **mark} for name, settings in backends.items()}


def untrusted_file_of(settings: Mapping[str, Any]) -> str | None:
    """The project file an untrusted custom backend comes from, or ``None`` when it may run."""
    value = settings.get(UNTRUSTED_MARK)
    return value if isinstance(value, str) else None


def untrusted_state_of(settings: Mapping[str, Any]) -> str:
    """``not trusted`` or ``changed since trusted``, for a marked custom backend."""
    value = settings.get(UNTRUSTED_STATE)
    return value if value in (CHANGED, RELATIVE) else UNTRUSTED


def without_mark(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A custom backend's settings without the trust mark (what ``parse_settings`` validates)."""
    marks = (UNTRUSTED_MARK, UNTRUSTED_STATE)
    return {key: value for key, value in settings.items() if key not in marks}


def project_files_to_trust(target: Path) -> list[Path]:
    """The files ``jlgcli config trust [PATH]`` records.

    A file is itself; a folder (the cwd by default) gives the nearest
    ``.jlgcli.json`` (walking up, as reading does) and the ``.aidevloop.*``
    files in that folder.
    """
    from jlgcli.config.resolve import find_project_config

    if target.is_file():
        return [Path(trust_key(target))]
    found = [p for p in (find_project_config(target),) if p is not None]
    found += [target / name for name in AIDEVLOOP_NAMES if (target / name).is_file()]
    return [Path(trust_key(p)) for p in found]
