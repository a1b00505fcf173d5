"""The pty transport on POSIX: ptyprocess (pexpect's pty layer) behind the Child interface.

The child is session and group leader of its own pty (pid == pgid), so the
kill ladder reaches its whole tree. pexpect's ``expect`` machinery is not
used: the run loop reads the master fd itself (one selector, ``CHUNK`` reads)
and decodes with replacement, so the codec never raises. ptyprocess's close
delays (0.1 s each) are set to 0. Echo is off so typed input is not mixed
into the output; the window size is explicit (the default 24×80 wraps TUIs).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import ptyprocess

from jlgcli.process.channel import SelectChannel
from jlgcli.process.child import Child
from jlgcli.process.descendants import Launch, die_with_parent_preexec, forget_child, spawning
from jlgcli.process.spawn import CannotStart
from jlgcli.process.tree import ProcessTree


def start_pty(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    dimensions: tuple[int, int],
) -> Child:
    """Spawn ``argv`` (resolved) on a new pty of ``dimensions`` = (rows, cols)."""
    launch = Launch(argv)
    with warnings.catch_warnings(), spawning() as register:
        # Python 3.12+ warns that forkpty() in a threaded process may deadlock the
        # child; ptyprocess's child only sets up the tty and execs (pexpect#817).
        warnings.filterwarnings("ignore", message=".*fork", category=DeprecationWarning)
        try:
            proc = ptyprocess.PtyProcess.spawn(
                launch.command if launch.supervised else list(argv),
                cwd=cwd,
                env=dict(env),
                echo=False,
                dimensions=dimensions,
                preexec_fn=None if launch.supervised else die_with_parent_preexec(),
                pass_fds=launch.pass_fds,
            )
        except OSError as exc:  # the child's exec failed: ptyprocess re-raises its error
            launch.abandon()
            raise CannotStart(argv[0], exc) from exc
        register(int(proc.pid))
    try:
        launch.started()
    except OSError as exc:  # the supervisor's exec of argv failed
        proc.close(force=True)
        forget_child(int(proc.pid))
        raise CannotStart(argv[0], exc) from exc
    proc.delayafterclose = 0
    proc.delayafterterminate = 0
    fd = int(proc.fd)
    channel = SelectChannel({fd: "stdout"}, input_fd=fd, owns_fds=False)
    tree = ProcessTree(
        pid=int(proc.pid),
        pgid=int(proc.pid),  # remembered now: getpgid fails after the reap
        exited=lambda: not proc.isalive(),
        kill_child=lambda: proc.kill(9),
    )

    def status() -> tuple[int | None, int | None]:
        return proc.exitstatus, proc.signalstatus

    def release() -> None:
        proc.close(force=True)
        forget_child(int(proc.pid))

    return Child(tree=tree, channel=channel, status=status, release=release, transport="pty")
