"""A started child as the run loop sees it, and the choice of transport per OS."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from jlgcli.process.spawn import IS_WINDOWS
from jlgcli.process.tree import ProcessTree
from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.process.channel import Channel
    from jlgcli.process.model import ForkServer, Transport


@record(frozen=False)
class Child:
    """A running child: its tree (for the ladder), its I/O channel, its exit status."""

    tree: ProcessTree
    channel: Channel
    status: Callable[[], tuple[int | None, int | None]]  # (exit code, signal) once exited
    release: Callable[[], None]  # close what the transport holds, after the run
    transport: Transport
    # Why the program could not start, known only once it ended (a child of the fork
    # server reports its exec failure then, jlgcli.process.warm); None: it started.
    start_error: Callable[[], str | None] = lambda: None


def start_child(
    transport: Transport,
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    stdin: bytes | None,
    dimensions: tuple[int, int],
    is_windows: bool = IS_WINDOWS,
    fork_server: ForkServer | None = None,
) -> Child:
    """Spawn ``argv`` (already resolved) through ``transport``.

    For a pipe, ``stdin`` is written and closed (or the null device is used).
    For a pty, input is typed by the caller through the channel. ``fork_server``
    (pipe, Linux): the warm process that forks the child (``Invocation.fork_server``).
    """
    if transport == "pipe":
        from jlgcli.process.pipe import start_pipe

        return start_pipe(
            argv, cwd=cwd, env=env, stdin=stdin, is_windows=is_windows, fork_server=fork_server
        )
    if is_windows:  # pragma: no cover - exercised by the Windows CI job
        from jlgcli.process.pty_windows import start_winpty

        return start_winpty(argv, cwd=cwd, env=env, dimensions=dimensions)
    from jlgcli.process.pty_posix import start_pty

    return start_pty(argv, cwd=cwd, env=env, dimensions=dimensions)
