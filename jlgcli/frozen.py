"""What differs when jlgcli runs as the PyInstaller exe, so that it behaves like the package.

Two differences matter (PyInstaller docs, "Launching external programs" and
"Run-time information"):

* The bootloader changes the library search path for its own process
  (``LD_LIBRARY_PATH`` on Linux, ``SetDllDirectoryW`` on Windows) and leaves
  ``_PYI_*`` bookkeeping variables, and children inherit all of it: an agent
  CLI, ``git`` or ``bash`` started by the exe could load the exe's bundled
  libssl/libtinfo instead of the system's. :func:`sanitize_process` undoes
  that once at start-up (a PyInstaller runtime hook calls it), so every child
  sees the user's environment, as under the package.
* A frozen interpreter ignores ``PYTHON*`` variables, yet a rebound script is
  started with ``PYTHONIOENCODING=utf-8`` and ``PYTHONUNBUFFERED=1``.
  :func:`jlgcli.rebound.execute.run_script_command` applies them before running the script.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

# PyInstaller's private bookkeeping; a child that inherits them may take itself
# for a worker of this process and reuse (or miss) its unpacked files.
_PRIVATE_PREFIX = "_PYI_"


def is_frozen() -> bool:
    """True inside the PyInstaller build."""
    return bool(getattr(sys, "frozen", False))


def child_environment(
    environ: Mapping[str, str], *, bundle_dir: str, platform: str
) -> dict[str, str]:
    """``environ`` without what the bootloader added for its own process.

    ``platform`` is ``sys.platform``; ``bundle_dir`` is ``sys._MEIPASS``.
    """
    env = {k: v for k, v in environ.items() if not k.startswith(_PRIVATE_PREFIX)}
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "sunos", "aix")):
        variable = "LIBPATH" if platform.startswith("aix") else "LD_LIBRARY_PATH"
        original = env.pop(f"{variable}_ORIG", None)
        if original is not None:
            env[variable] = original  # the bootloader saved the user's value there
        else:
            env.pop(variable, None)  # the bootloader created it: the user had none
    separator = ";" if platform == "win32" else ":"
    for variable in ("PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
        if variable in env:
            parts = env[variable].split(separator)
            kept = [p for p in parts if not _inside(p, bundle_dir, platform)]
            if kept:
                env[variable] = separator.join(kept)
            else:
                del env[variable]
    return env


def _inside(path: str, bundle_dir: str, platform: str) -> bool:
    if not path or not bundle_dir:
        return False
    if platform == "win32":  # case-insensitive, either slash
        path, bundle_dir = (p.replace("/", "\\").rstrip("\\").lower() for p in (path, bundle_dir))
        return path == bundle_dir or path.startswith(bundle_dir + "\\")
    path, bundle_dir = path.rstrip("/"), bundle_dir.rstrip("/")
    return path == bundle_dir or path.startswith(bundle_dir + "/")


def sanitize_process(
    environ: MutableMapping[str, str] | None = None,
    *,
    bundle_dir: str | None = None,
    platform: str | None = None,
    reset_dll_directory: Any = None,
) -> None:
    """Make children of the frozen exe inherit the user's environment (runtime hook).

    The exe's own libraries are already resolved by then (the loader reads
    ``LD_LIBRARY_PATH`` at exec; Python loads extension modules with explicit
    search flags on Windows), so only children are affected.
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    bundle_dir = str(getattr(sys, "_MEIPASS", "")) if bundle_dir is None else bundle_dir
    cleaned = child_environment(environ, bundle_dir=bundle_dir, platform=platform)
    for name in [n for n in environ if n not in cleaned]:
        del environ[name]
    environ.update({k: v for k, v in cleaned.items() if environ.get(k) != v})
    if platform == "win32":
        if reset_dll_directory is None:  # pragma: no cover - exercised by the Windows release job
            if sys.platform != "win32":  # narrows for mypy: ctypes.windll (issue 35)
                raise OSError("Windows only")
            import ctypes

            reset_dll_directory = ctypes.windll.kernel32.SetDllDirectoryW
        reset_dll_directory(None)  # undo the bootloader's SetDllDirectoryW(_MEIPASS) for children


def apply_python_io_environment(
    environ: Mapping[str, str], stdout: TextIO, stderr: TextIO
) -> tuple[TextIO, TextIO]:
    """``stdout`` and ``stderr`` as ``python`` would set them up under ``environ``.

    Honours ``PYTHONIOENCODING=encoding[:errors]`` and ``PYTHONUNBUFFERED``
    (binary layer unbuffered, text layer write-through, like ``python -u``).
    """
    encoding, _, errors = environ.get("PYTHONIOENCODING", "").partition(":")
    unbuffered = bool(environ.get("PYTHONUNBUFFERED"))
    result = []
    for stream in (stdout, stderr):
        if encoding or errors:
            # errors stays as it was unless given (stderr keeps backslashreplace, as in python)
            stream.reconfigure(encoding=encoding or None, errors=errors or stream.errors)  # type: ignore[attr-defined]
        if unbuffered:
            stream.flush()
            raw = io.FileIO(stream.fileno(), "w", closefd=False)
            stream = io.TextIOWrapper(
                raw, encoding=stream.encoding, errors=stream.errors, write_through=True
            )
        result.append(stream)
    return result[0], result[1]
