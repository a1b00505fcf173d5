"""The pipe transport: subprocess with stdout/stderr pipes and an explicit stdin.

POSIX multiplexes the pipes with a selector in the calling thread; Windows
(whose pipes cannot be selected) uses reader threads. The pipe fds are
duplicated away from the Popen file objects so the channel alone owns them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence

from jlgcli.process import descendants
from jlgcli.process.channel import CHUNK, SelectChannel, ThreadChannel
from jlgcli.process.child import Child
from jlgcli.process.descendants import Launch, forget_child, spawning
from jlgcli.process.spawn import CannotStart, group_popen_kwargs
from jlgcli.process.tree import ProcessTree

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import IO

    from jlgcli.process.channel import Channel
    from jlgcli.process.job import Job
    from jlgcli.process.model import ForkServer, Started

PIPE_SIZE = 1 << 20  # Linux's default /proc/sys/fs/pipe-max-size: allowed without privileges


def start_pipe(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    stdin: bytes | None,
    is_windows: bool,
    threaded: bool | None = None,
    fork_server: ForkServer | None = None,
) -> Child:
    """Spawn ``argv`` in its own process group with piped output.

    ``threaded`` forces the reader-thread channel (default: only on Windows).
    Linux, the jlgcli program: under a supervisor, forked by the fork server
    (``jlgcli.process.warm``) when it runs; the first child's release starts it.
    ``fork_server`` (Linux): forked by that server instead (a batch's task), or
    started as above when it cannot serve.
    """
    supervised = not is_windows and descendants.supervisor_wanted()
    spawned = None
    if supervised:
        spawned = _start_warm(argv, cwd=cwd, env=env, stdin=stdin, server=fork_server)
    if spawned is None:
        spawned = _start_cold(argv, cwd=cwd, env=env, stdin=stdin, is_windows=is_windows)
    proc, (out, err, stdin_fd) = spawned.proc, spawned.fds
    end_tree: Callable[[], bool] | None = None
    close_job = _nothing
    if is_windows:  # pragma: no cover - Windows only
        job = _job_of(proc)
        end_tree, close_job = job.terminate, job.close
    use_threads = is_windows if threaded is None else threaded
    channel = (_thread_channel if use_threads else _select_channel)(out, err, stdin_fd)
    if stdin is not None:
        channel.send(stdin)
        channel.end_input()
    exit_fd = _pidfd(proc.pid) if supervised else None
    tree = ProcessTree(
        pid=proc.pid,
        pgid=None if is_windows else proc.pid,  # start_new_session: pid == pgid
        exited=lambda: proc.poll() is not None,
        kill_child=proc.kill,
        exit_fd=exit_fd,
        end_tree=end_tree,
    )

    def release() -> None:
        close_job()
        spawned.close()
        if exit_fd is not None:
            os.close(exit_fd)
        forget_child(proc.pid)
        if supervised:  # the next child's supervisor comes from the fork server
            _prestart()

    def start_error() -> str | None:
        error = spawned.exec_error()
        return None if error is None else str(CannotStart(argv[0], error))

    return Child(
        tree=tree,
        channel=channel,
        status=lambda: _status(proc),
        release=release,
        transport="pipe",
        start_error=start_error,
    )


if TYPE_CHECKING:
    Fds = tuple[int, int, int | None]  # jlgcli's ends: the child's stdout, stderr, stdin (or None)


def _no_error() -> OSError | None:
    return None


def _nothing() -> None:
    return None


class Spawned:
    """A started child, jlgcli's ends of its pipes, and (fork server) its late exec error."""

    __slots__ = ("close", "exec_error", "fds", "proc")

    def __init__(
        self,
        proc: Started,
        fds: Fds,
        exec_error: Callable[[], OSError | None] = _no_error,  # once it ended
        close: Callable[[], None] = _nothing,  # what holds that error, after the run
    ) -> None:
        self.proc = proc
        self.fds = fds
        self.exec_error = exec_error
        self.close = close


def _start_cold(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    stdin: bytes | None,
    is_windows: bool,
) -> Spawned:
    launch = Launch(argv)  # Linux: under the supervisor, or dying with its parent
    with spawning() as register:
        try:
            proc = subprocess.Popen(
                launch.command,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                preexec_fn=launch.preexec,
                pass_fds=launch.pass_fds,
                **group_popen_kwargs(is_windows=is_windows, suspended=is_windows),
            )
        except OSError as exc:  # found, yet not startable (subprocess reaped the attempt)
            launch.abandon()
            raise CannotStart(argv[0], exc) from exc
        register(proc.pid)
    try:
        launch.started()
    except OSError as exc:  # the supervisor's exec of argv failed
        proc.wait()
        forget_child(proc.pid)
        raise CannotStart(argv[0], exc) from exc
    stdin_fd = _take_fd(proc.stdin) if proc.stdin is not None else None
    return Spawned(proc, (_take_fd(proc.stdout), _take_fd(proc.stderr), stdin_fd))


def _start_warm(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    stdin: bytes | None,
    server: ForkServer | None = None,
) -> Spawned | None:
    """Start ``argv`` through ``server`` or the supervisors' fork server; None when there
    is none or it could not serve (start cold)."""
    if not sys.platform.startswith("linux"):  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("Linux only")
    from jlgcli.process import warm

    if server is None:
        server = warm.server()
    if server is None:
        return None
    out, child_out = os.pipe()
    err, child_err = os.pipe()
    if stdin is None:
        child_in, ours_in = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC), None
    else:
        child_in, ours_in = os.pipe()
    ours = (out, err, ours_in)
    started = None
    try:
        started = server.start(argv, env=env, cwd=cwd, stdio=(child_in, child_out, child_err))
    except OSError as exc:
        raise CannotStart(argv[0], exc) from exc
    finally:
        for fd in (child_in, child_out, child_err, *(ours if started is None else ())):
            if fd is not None:
                os.close(fd)
    if started is None:
        return None
    return Spawned(started, ours, started.exec_error, started.close)


def _pidfd(pid: int) -> int | None:
    """A pidfd of ``pid`` (Linux 5.3+), readable once it exits; None where there is none."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:  # pragma: no cover - Python built without it, or not Linux
        return None
    try:
        return int(opener(pid))
    except OSError:  # an older kernel (ENOSYS), or the pid was reaped already
        return None


def _prestart() -> None:
    if not sys.platform.startswith("linux"):  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("Linux only")
    from jlgcli.process import warm

    warm.prestart()


def _job_of(proc: Started) -> Job:  # pragma: no cover - Windows only
    from jlgcli.process.job import contain_in_job  # ctypes structures: Windows only

    handle = getattr(proc, "_handle", None)  # Popen's: every access right (issue 47)
    return contain_in_job(
        proc.pid,
        is_windows=True,
        suspended=True,  # started CREATE_SUSPENDED
        process_handle=None if handle is None else int(handle),
    )


def _status(proc: Started) -> tuple[int | None, int | None]:
    code = proc.returncode
    if code is None:
        return None, None
    return (code, None) if code >= 0 else (None, -code)


def _take_fd(stream: IO[bytes] | None) -> int:
    # The channel owns a duplicate; closing the original keeps Popen from closing ours.
    assert stream is not None
    fd = os.dup(stream.fileno())
    stream.close()
    return fd


def widen_pipe(fd: int, size: int = PIPE_SIZE) -> int | None:
    """Ask for a ``size``-byte buffer on the pipe ``fd`` (Linux); its new size, or None.

    A pipe holds 64 KiB by default, so a fast writer is read 64 KiB at a time:
    each read is an event, a transcript record and a redaction pass. Reading up
    to ``CHUNK`` at a time made the pipe + transcript + redaction path ~25% faster
    (issue 18). None where the system has no ``F_SETPIPE_SZ`` (macOS) or refuses
    the size (``/proc/sys/fs/pipe-max-size``, the user's pipe quota): the
    default buffer then stays, and only throughput differs.
    """
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    import fcntl  # POSIX only, like the select channel

    option = getattr(fcntl, "F_SETPIPE_SZ", None)
    if option is None:
        return None
    try:
        return int(fcntl.fcntl(fd, option, size))
    except OSError:
        return None


def _select_channel(out: int, err: int, stdin_fd: int | None) -> Channel:
    widen_pipe(out)
    widen_pipe(err)
    return SelectChannel({out: "stdout", err: "stderr"}, stdin_fd)


def _thread_channel(out: int, err: int, stdin_fd: int | None) -> Channel:
    writer: Callable[[bytes], None] | None = None
    close_input: Callable[[], None] | None = None
    if stdin_fd is not None:
        input_fd = stdin_fd

        def writer(data: bytes) -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(input_fd, view) :]

        def close_input() -> None:
            os.close(input_fd)

    return ThreadChannel(
        {"stdout": _reader(out), "stderr": _reader(err)}, writer=writer, close_input=close_input
    )


def _reader(fd: int) -> Callable[[], bytes]:
    def read() -> bytes:
        data = os.read(fd, CHUNK)
        if not data:
            os.close(fd)
        return data

    return read
