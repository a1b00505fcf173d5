"""Windows command lines: what may go into argv, and how long it may be.

npm installs agent CLIs as ``.cmd`` shims, and CreateProcess runs those
through cmd.exe, which re-parses the command line: it word-splits, expands
``%VAR%``, interprets ``& | < > ^`` outside quotes and cuts at the first
newline (backends.md §7: everything after the first line of a ``-p`` prompt,
including later flags, silently vanishes). So prompt text never goes into the
argv of a ``.cmd``/``.bat`` target, and the other arguments of such a target
must be plain. ``.exe`` targets get ``subprocess.list2cmdline`` quoting, which
is exactly what ``CommandLineToArgvW`` undoes. An npm shim given what cmd.exe
would mangle is run through its own program instead (``runnable_argv``,
``jlgcli.process.npm_shim``); the rule itself is never loosened. The length
limit is cmd.exe's 8191 for a script, CreateProcessW's 32766 for a program.
Every function takes ``is_windows`` so the Windows branch is tested on any OS.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import PureWindowsPath

from jlgcli.errors import ExitCode, JlgError
from jlgcli.lazy_re import lazy_text

TYPE_CHECKING = False

MAX_COMMAND_LINE = 8191  # cmd.exe's limit; longer lines are truncated (clowder-ai#284)
# CreateProcessW: "The maximum length of this string is 32,767 characters, including the
# Unicode terminating null character" (its docs): what a real .exe can be given.
MAX_EXE_COMMAND_LINE = 32766
_BATCH_SUFFIXES = frozenset({".cmd", ".bat"})
# Characters cmd.exe leaves alone inside the quotes list2cmdline adds for spaces.
_PLAIN_BATCH_ARG = lazy_text(r"[\w\-.,:/\\=+@~ ]*")

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal

    PromptDelivery = Literal["argv", "stdin-or-file"]


def is_batch_file(executable_path: str) -> bool:
    """Whether ``executable_path`` is a ``.cmd``/``.bat`` script (run through cmd.exe)."""
    return PureWindowsPath(executable_path).suffix.lower() in _BATCH_SUFFIXES


def prompt_delivery(executable_path: str, *, is_windows: bool) -> PromptDelivery:
    """How a backend may hand prompt text to ``executable_path``.

    ``"stdin-or-file"`` for a ``.cmd``/``.bat`` target on Windows (cmd.exe
    would mangle or truncate it), ``"argv"`` otherwise.
    """
    if is_windows and is_batch_file(executable_path):
        return "stdin-or-file"
    return "argv"


def command_line(argv: Sequence[str]) -> str:
    """The Windows command line CreateProcess receives for ``argv`` (list2cmdline quoting)."""
    return subprocess.list2cmdline(list(argv))


def max_command_line(executable_path: str) -> int:
    """The longest command line Windows runs ``executable_path`` with: cmd.exe's 8191 for a
    ``.cmd``/``.bat`` script, CreateProcessW's 32766 for a program."""
    return MAX_COMMAND_LINE if is_batch_file(executable_path) else MAX_EXE_COMMAND_LINE


def check_command_line_length(argv: Sequence[str], *, is_windows: bool) -> None:
    """Raise JlgError(64) when ``argv`` would exceed the Windows limit of its program."""
    if not is_windows:
        return
    length, limit = len(command_line(argv)), max_command_line(argv[0])
    if length > limit:
        raise JlgError(
            ExitCode.USAGE,
            f"command line of {PureWindowsPath(argv[0]).name} is {length} characters; "
            f"Windows cuts it at {limit}",
            hint="pass long text (the prompt) on stdin or in a file instead of as an argument",
        )


def plain_for_cmd(argv: Sequence[str]) -> bool:
    """Whether cmd.exe runs ``argv`` (a ``.cmd``/``.bat`` target) as given: plain arguments,
    a command line within its 8191 characters."""
    return all(_PLAIN_BATCH_ARG.fullmatch(arg) for arg in argv[1:]) and (
        len(command_line(argv)) <= MAX_COMMAND_LINE
    )


Unwrap = Callable[[Sequence[str]], "list[str] | None"]


def runnable_argv(
    argv: Sequence[str], *, is_windows: bool, path: str | None, unwrap: Unwrap | None = None
) -> list[str]:
    """``argv`` (resolved) as it is started: an npm shim with what cmd.exe would re-parse or
    cut is replaced by the program the shim runs (``jlgcli.process.npm_shim``).

    The argument rule is never loosened: a ``.cmd`` that is not npm's keeps it
    (``check_argv`` refuses it). ``unwrap`` is injected in tests.
    """
    if not (is_windows and argv and is_batch_file(argv[0])) or plain_for_cmd(argv):
        return list(argv)
    if unwrap is None:
        from jlgcli.process.npm_shim import direct_argv

        def unwrap(args: Sequence[str]) -> list[str] | None:
            return direct_argv(args, path=path)

    direct = unwrap(argv)
    return list(argv) if direct is None else direct


def check_batch_arguments(argv: Sequence[str], *, is_windows: bool) -> None:
    """Raise JlgError(64) when an argument of a ``.cmd``/``.bat`` target is not plain.

    cmd.exe would reinterpret newlines, quotes, ``%``, ``!`` and ``& | < > ^``;
    there is no quoting that survives every shim, so such text must travel on
    stdin or in a file.
    """
    if not (is_windows and argv and is_batch_file(argv[0])):
        return
    for arg in argv[1:]:
        if not _PLAIN_BATCH_ARG.fullmatch(arg):
            shown = arg if len(arg) <= 40 else arg[:37] + "..."
            raise JlgError(
                ExitCode.USAGE,
                f"argument {shown!r} cannot be passed safely to {PureWindowsPath(argv[0]).name}"
                " (a .cmd/.bat script re-parsed by cmd.exe, and not an npm shim whose program"
                " jlgcli could start directly)",
                hint="send prompt text on stdin or in a prompt file, not on the command line;"
                " or put the program itself (an .exe) first on PATH",
            )


def check_argv(argv: Sequence[str], *, is_windows: bool) -> None:
    """Both Windows checks, run before every spawn (no-ops elsewhere)."""
    check_command_line_length(argv, is_windows=is_windows)
    check_batch_arguments(argv, is_windows=is_windows)
