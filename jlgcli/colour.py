"""Whether a stream gets colour, and the few styles jlgcli paints (issue 19 item 16).

Colour only on a terminal: never in a pipe or a file, never with ``--json``.
``NO_COLOR`` (any non-empty value, https://no-color.org) turns it off;
``FORCE_COLOR`` (non-empty, not ``0``) turns it on even in a pipe, for CI logs.
A ``TERM=dumb`` terminal gets none. On Windows the console must be asked once to
understand ANSI escapes (``enable_windows_vt``); when it refuses, no colour.

Kept tiny and free of heavy imports: the CLI's ``--help`` path uses it.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Protocol

    class ConsoleModes(Protocol):
        """The two Windows console calls ``enable_windows_vt`` needs (injected in tests)."""

        def get_mode(self, std_handle: int) -> int | None: ...

        def set_mode(self, std_handle: int, mode: int) -> bool: ...


# SGR parameters per role; the integrator's run summary uses "done" and "stop".
STYLES = {
    "error": "1;31",
    "warning": "1;33",
    "hint": "36",
    "heading": "1",
    "done": "1;32",
    "stop": "1;33",
}
_RESET = "\033[0m"
_STD_HANDLES = (-11, -12)  # STD_OUTPUT_HANDLE, STD_ERROR_HANDLE
_ENABLE_VIRTUAL_TERMINAL_PROCESSING = 0x0004
_vt_enabled: bool | None = None  # the answer of the first enable_windows_vt call


def wants_colour(
    stream: object,
    *,
    json_output: bool = False,
    env: "Mapping[str, str] | None" = None,
    is_windows: bool | None = None,
) -> bool:
    """True when text written to ``stream`` should carry ANSI colour."""
    if json_output or stream is None:
        return False
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    force = env.get("FORCE_COLOR", "")
    if force and force != "0":
        return True
    if env.get("TERM") == "dumb" or not _isatty(stream):
        return False
    return enable_windows_vt(is_windows=is_windows)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def enable_windows_vt(
    *, is_windows: bool | None = None, console: "ConsoleModes | None" = None
) -> bool:
    """Ask the Windows console to interpret ANSI escapes, once; True when they work.

    Elsewhere terminals understand them already. The answer of the first call
    is kept: the console mode is process-wide.
    """
    global _vt_enabled
    if not (sys.platform == "win32" if is_windows is None else is_windows):
        return True
    if _vt_enabled is not None and console is None:
        return _vt_enabled
    api = console if console is not None else _windows_console()
    enabled = api is not None
    for handle in _STD_HANDLES:
        if api is None:
            break
        mode = api.get_mode(handle)
        if mode is None:  # not a console (redirected), or the call failed
            enabled = False
        elif not mode & _ENABLE_VIRTUAL_TERMINAL_PROCESSING:
            enabled &= api.set_mode(handle, mode | _ENABLE_VIRTUAL_TERMINAL_PROCESSING)
    if console is None:
        _vt_enabled = enabled
    return enabled


def _windows_console() -> "ConsoleModes | None":  # pragma: no cover - Windows only
    try:
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    except (ImportError, AttributeError, OSError):
        return None

    class _Kernel32Console:
        def get_mode(self, std_handle: int) -> int | None:
            mode = wintypes.DWORD()
            handle = kernel32.GetStdHandle(std_handle)
            if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
                return None
            return int(mode.value)

        def set_mode(self, std_handle: int, mode: int) -> bool:
            return bool(kernel32.SetConsoleMode(kernel32.GetStdHandle(std_handle), mode))

    return _Kernel32Console()


def paint(text: str, role: str, enabled: bool) -> str:
    """``text`` in the colour of ``role`` (a key of ``STYLES``) when ``enabled``."""
    if not enabled or not text:
        return text
    return f"\033[{STYLES[role]}m{text}{_RESET}"


class Palette:
    """The styles of one stream: ``Palette(sys.stderr).error("error:")``."""

    def __init__(self, stream: object, *, json_output: bool = False) -> None:
        self.enabled = wants_colour(stream, json_output=json_output)

    def error(self, text: str) -> str:
        return paint(text, "error", self.enabled)

    def warning(self, text: str) -> str:
        return paint(text, "warning", self.enabled)

    def hint(self, text: str) -> str:
        return paint(text, "hint", self.enabled)

    def heading(self, text: str) -> str:
        return paint(text, "heading", self.enabled)

    def stop_cause(self, cause: str, *, done: bool) -> str:
        """A run's stop cause: green when the task is done, yellow otherwise."""
        return paint(cause, "done" if done else "stop", self.enabled)


def style_help(text: str, enabled: bool) -> str:
    """``--help`` text with its section headings (``usage:``, ``options:`` …) in bold."""
    if not enabled:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not line or line[0].isspace():
            continue
        head, colon, rest = line.partition(":")
        if colon and head.replace(" ", "").isalpha() and head.islower():
            lines[index] = paint(head + colon, "heading", True) + rest
    return "\n".join(lines)
