"""The pty transport on Windows: pywinpty's ``PtyProcess`` (ConPTY) behind the Child interface.

Why pywinpty and not wexpect: wexpect scrapes a hidden console, has not been
released since 2020 and fails to import on Python 3.12+ (``pkg_resources``);
pywinpty drives a real pseudoconsole and ships wheels for every supported
Python (ecosystem.md §E). Its ``read`` blocks and returns text, so a reader
thread feeds the run loop; its own close delays are set to 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jlgcli.process.channel import CHUNK, ThreadChannel
from jlgcli.process.child import Child
from jlgcli.process.job import contain_in_job
from jlgcli.process.tree import ProcessTree


def start_winpty(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    dimensions: tuple[int, int],
) -> Child:  # pragma: no cover - exercised by the Windows CI job
    """Spawn ``argv`` (resolved) in a pseudoconsole of ``dimensions`` = (rows, cols)."""
    from winpty import PtyProcess

    proc: Any = PtyProcess.spawn(list(argv), cwd=cwd, env=dict(env), dimensions=dimensions)
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
