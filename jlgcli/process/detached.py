"""A jlgcli of its own, started from a long-running door (issue 52: the board's Retry).

The child runs a command of jlgcli itself (``selfcmd.self_argv``: the same
interpreter or exe, never a name looked up on PATH), in its own session or
process group so that the door's Ctrl-C is not its, with ``stdin`` (or nothing)
on its stdin and its output in a log file. It outlives the door: it is a batch the user asked for,
and the board shows it, stops its tasks, or ``jlgcli loop --resume`` continues it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from jlgcli.process.spawn import child_env, group_popen_kwargs


def start_self(args: list[str], *, cwd: Path, log: Path, stdin: bytes | None = None) -> int:
    """Start ``jlgcli ARGS`` in ``cwd`` with stdout and stderr appended to ``log`` and
    ``stdin`` written to its stdin (then closed); its pid."""
    from jlgcli.selfcmd import self_argv

    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        child = subprocess.Popen(  # jlgcli's own argv, no shell
            [*self_argv(), *args],
            cwd=cwd,
            env=child_env(),
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            **group_popen_kwargs(),
        )
    import threading

    def feed_then_reap() -> None:  # in a thread: a long text never blocks the door
        if child.stdin is not None:
            try:
                child.stdin.write(stdin or b"")
                child.stdin.close()
            except OSError:
                pass  # it ended first: its log says why
        child.wait()  # no zombie

    threading.Thread(target=feed_then_reap, name="jlgcli-detached", daemon=True).start()
    return child.pid
