"""Run a short command to completion and capture its output (probes like ``claude --version``).

stdin is the given text or the null device, never inherited; the child gets
its own process group/session; at the timeout the whole tree is stopped
through the kill ladder and ``timed_out`` is set. A grandchild that keeps the
pipes open cannot make it hang: after the child's exit its group is killed
and the readers are given a short drain window only.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO

from jlgcli.process.model import CaptureResult
from jlgcli.process.spawn import (
    IS_WINDOWS,
    ExecutableNotFound,
    child_env,
    group_popen_kwargs,
    resolve_argv,
    stdin_bytes,
)
from jlgcli.process.tree import ProcessTree, stop_tree, tree_alive

_DRAIN_AFTER_EXIT = 0.5  # seconds the readers may still take once the tree is gone
_PROBE_GRACE = 0.5  # grace between rungs of the kill ladder for a probe


def capture(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
) -> CaptureResult:
    """Run ``argv`` until it exits or ``timeout`` seconds pass; never raises for a failure exit.

    ``env`` holds overrides on top of ``os.environ`` (as ``Invocation.env``).
    Output is decoded as UTF-8 with replacement. Raises ``ExecutableNotFound``
    when the program cannot be found.
    """
    environ = child_env(env)
    args = resolve_argv(argv, env=environ)
    data = stdin_bytes(stdin)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=environ,
            stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **group_popen_kwargs(),
        )
    except FileNotFoundError as exc:  # removed between lookup and spawn
        raise ExecutableNotFound(argv[0]) from exc
    tree = ProcessTree(
        pid=proc.pid,
        pgid=None if IS_WINDOWS else proc.pid,
        exited=lambda: proc.poll() is not None,
        kill_child=proc.kill,
    )
    out, err = bytearray(), bytearray()
    assert proc.stdout is not None and proc.stderr is not None
    readers = [_start(_read_all, proc.stdout, out), _start(_read_all, proc.stderr, err)]
    if data is not None:
        assert proc.stdin is not None
        _start(_write_all, proc.stdin, data)
    timed_out = False
    try:
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            stop_tree(tree, grace=_PROBE_GRACE, log=_no_log)
        else:
            if tree_alive(tree):  # stragglers left in the group
                stop_tree(tree, grace=_PROBE_GRACE, log=_no_log, start_at="terminate")
    except BaseException:  # Ctrl-C while probing: leave no process behind
        stop_tree(tree, grace=0.0, log=_no_log, start_at="kill")
        raise
    for reader in readers:
        reader.join(_DRAIN_AFTER_EXIT)
    code = proc.returncode if timed_out else proc.wait()
    return CaptureResult(
        exit_code=code if code is not None and code >= 0 else None,  # None: killed by a signal
        stdout=bytes(out).decode("utf-8", errors="replace"),
        stderr=bytes(err).decode("utf-8", errors="replace"),
        timed_out=timed_out,
        duration=time.monotonic() - start,
    )


def _start(target: object, stream: IO[bytes], buffer: bytes | bytearray) -> threading.Thread:
    thread = threading.Thread(target=target, args=(stream, buffer), daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread


def _read_all(stream: IO[bytes], into: bytearray) -> None:
    # read1 returns what is available, so bytes arrive as they are written.
    with stream:
        while chunk := stream.read1(65536):  # type: ignore[attr-defined]
            into += chunk


def _write_all(stream: IO[bytes], data: bytes) -> None:
    try:
        with stream:
            stream.write(data)
    except OSError:  # the child exited without reading everything
        pass


def _no_log(_message: str) -> None:
    pass
