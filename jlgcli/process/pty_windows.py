r"""The pty transport on Windows: pywinpty's ``PtyProcess`` (ConPTY) behind the Child interface.

Why pywinpty and not wexpect: wexpect scrapes a hidden console, has not been
released since 2020 and fails to import on Python 3.12+ (``pkg_resources``);
pywinpty drives a real pseudoconsole and ships wheels for every supported
Python (ecosystem.md §E). Its ``read`` blocks and returns text, so a reader
thread feeds the run loop; its own close delays are set to 0.

The pseudoconsole is made here rather than by ``PtyProcess.spawn`` (issue 47):
winpty-rs starts the child with ``CreateProcessW(NULL, appname + " " +
cmdline)``, and ``spawn`` passes the program path unquoted, so a program under
``C:\Program Files\`` or ``C:\Users\John Smith\`` ran ``C:\Program`` (or
failed); ``spawn`` also looks the program up again with ``shutil.which``, which
searches the current folder first. The path jlgcli resolved is quoted as
``CommandLineToArgvW`` reads it (``conpty_command``). ConPTY is asked for by
name: only its command line is built that way.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jlgcli.process.channel import CHUNK, ThreadChannel
from jlgcli.process.child import Child
from jlgcli.process.job import contain_in_job
from jlgcli.process.tree import ProcessTree


def conpty_command(argv: Sequence[str]) -> tuple[str, str | None]:
    """(appname, cmdline) for winpty-rs's ConPTY spawn, which runs ``appname + " " + cmdline``.

    The program is quoted when its path has a space (``list2cmdline``), as the
    first word of a command line must be; no arguments: no cmdline.
    """
    program = subprocess.list2cmdline([argv[0]])
    return program, (subprocess.list2cmdline(list(argv[1:])) if len(argv) > 1 else None)


def start_winpty(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    dimensions: tuple[int, int],
) -> Child:  # pragma: no cover - exercised by the Windows CI job
    """Spawn ``argv`` (resolved) in a pseudoconsole of ``dimensions`` = (rows, cols)."""
    from winpty import PTY, PtyProcess
    from winpty.enums import Backend

    rows, cols = dimensions
    pty: Any = PTY(cols, rows, backend=Backend.ConPTY)
    appname, cmdline = conpty_command(argv)
    block = "\0".join(f"{key}={value}" for key, value in env.items()) + "\0"
    folder = cwd or str(Path.cwd())  # as PtyProcess.spawn does
    if cmdline is None:
        pty.spawn(appname, cwd=folder, env=block)
    else:
        pty.spawn(appname, cwd=folder, env=block, cmdline=cmdline)
    proc: Any = PtyProcess(pty)
    proc._winsize = dimensions
    proc.delayafterclose = 0
    proc.delayafterterminate = 0
    job = contain_in_job(int(proc.pid), is_windows=True)

    def read() -> bytes:
        while True:
            try:
                text = proc.read(CHUNK)
            except EOFError:
                return b""
            if text:  # "" is a keep-alive of pywinpty's reader thread, not the end
                return str(text).encode("utf-8", errors="replace")

    def write(data: bytes) -> None:
        proc.write(data.decode("utf-8", errors="replace"))

    channel = ThreadChannel({"stdout": read}, writer=write)
    tree = ProcessTree(
        pid=int(proc.pid),
        pgid=None,
        exited=lambda: not proc.isalive(),
        kill_child=lambda: proc.terminate(force=True),
        end_tree=job.terminate,
        # CTRL_BREAK_EVENT cannot reach a child on another console: Ctrl+C typed into its
        # pseudoconsole is (ConPTY turns it into CTRL_C_EVENT for the console's processes).
        interrupt=lambda: proc.write("\x03"),
    )

    def status() -> tuple[int | None, int | None]:
        return proc.exitstatus, None

    def release() -> None:
        proc.close(force=True)
        job.close()

    return Child(tree=tree, channel=channel, status=status, release=release, transport="pty")
