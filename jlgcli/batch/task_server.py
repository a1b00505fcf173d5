"""The task server: a warm jlgcli that forks a batch's tasks (issue 37, Linux).

A batch ran each task as a fresh ``python -m jlgcli loop`` under a supervisor:
an interpreter start-up, ~100 jlgcli modules imported again (~0.15 s of CPU per
task, four at once on a 2-core machine) and ~14 MB of private memory per task
(its own copy of every module, plus the supervisor's interpreter). Now the batch
starts one server (``__jlgcli_task_server__ PARENT CONTROL_FD``) that imports
what a loop needs once, freezes it (``gc.freeze``: the collector never writes
to those objects; every record's ``__init__`` compiled) and forks each task from
that state: the task starts in a millisecond and shares every page it does not
write with the server and the other tasks. The task forks its own supervisors'
server from itself too (``fork_supervisor_server``), not a new interpreter, and
the batch's own gits get their supervisors from this server while the batch
runs (unmarked requests, ``TaskForker`` marks a task's).

What it still pays (issue 45, ``benchmarks/fanout.py --cold``, the same batch with each
task started cold, paired): ~3 MB less private memory per running task, whatever the
calls' length (~9 MB of jlgcli per task against ~12: only the warm start meets the
10 MB target), and ~40 ms less CPU per task; in wall time nothing a user feels (0.15 s
on a batch of 2-s calls under load, noise once calls last 30 s or 2 min). The batch
reaches it through one seam, ``jlgcli.batch.child.task_server``.

It speaks the supervisors' fork-server protocol (``jlgcli.process.warm``,
``jlgcli.process.supervisor.receive``): the batch's task thread sends the
task's argv and environment (marshalled, over a Unix socket, never on disk) with
its stdin, stdout, stderr, working directory and status pipe; the server forks
twice and the grandchild, adopted by the batch (a subreaper) once the middle
process exits, is the task: its own session (the group the kill ladder
signals), SIGKILL as its parent-death signal once the batch is its parent (its
agents' supervisors then end their trees, as for any jlgcli), a new
``JLGCLI_TREE`` mark, the request's environment, stdio and directory; then
``+PID+`` on the status pipe and ``jlgcli.cli.main`` on the task's arguments,
ending like the program (``SystemExit``: ``atexit``, flushed streams).

The server's own environment keeps what the interpreter needs to start and find
jlgcli (``SERVER_ENVIRONMENT``), not the user's secrets (a task's ``/proc`` environment
is the server's: the request's is set in ``os.environ``); it runs in ``/``. It dies with
the batch (its parent-death signal) and is ended at the batch's end. A request
it cannot serve (it died) makes the task start as before (``jlgcli.process.pipe``).
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Mapping, Sequence

assert sys.platform.startswith("linux"), "the task server forks: Linux only"

from jlgcli.process import warm  # noqa: E402
from jlgcli.process.descendants import renew_token, spawning  # noqa: E402 - Linux's only
from jlgcli.process.supervisor import (  # noqa: E402
    Request,
    fork_supervisor,
    fork_twice,
    prctl,
    receive,
)
from jlgcli.process.supervisor import main as supervisor_main  # noqa: E402
from jlgcli.process.warm import STARTED, Adopted, Server, end_server  # noqa: E402
from jlgcli.selfcmd import self_argv  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jlgcli.process.supervisor import Prctl

ENTRY = "__jlgcli_task_server__"
TASK_MARK = "\0jlgcli-task"  # argv[0] of a task's request (no program's name starts with NUL)
SERVER_ENVIRONMENT = ("HOME", "LANG", "LANGUAGE", "LD_LIBRARY_PATH", "PATH", "TMPDIR")
# The locale; PYTHONPATH finds an uninstalled jlgcli; coverage.py follows jlgcli's children.
SERVER_ENVIRONMENT_PREFIXES = ("LC_", "PYTHON", "COVERAGE_PROCESS_")
# What a task's ``jlgcli loop`` imports, with the standard library's modules it loads
# later (the rest comes with these): imported once by the server, shared by every task
# (each module a task imports itself costs it private memory): every backend's, whichever
# the tasks use. tests/e2e/test_task_server.py holds the list both ways: a task's loop on
# each backend imports no other module of jlgcli or of the standard library, and each name
# here is imported by one of them (a stale name would cost the server memory for nothing).
WARM_MODULES = (
    "jlgcli.api",
    "jlgcli.artifacts.atomic",
    "jlgcli.artifacts.ids",
    "jlgcli.artifacts.layout",
    "jlgcli.artifacts.oslock",
    "jlgcli.artifacts.project",
    "jlgcli.artifacts.rundir",
    "jlgcli.artifacts.streaming",
    "jlgcli.artifacts.transcript",
    "jlgcli.backends.asks",
    "jlgcli.backends.claude",
    "jlgcli.backends.codex",
    "jlgcli.backends.copilot",
    "jlgcli.backends.gemini",
    "jlgcli.backends.login_watch",
    "jlgcli.backends.node_engine",
    "jlgcli.backends.registry",
    "jlgcli.backends.startup",
    "jlgcli.backends.stream",
    "jlgcli.boundary",
    "jlgcli.cli",
    "jlgcli.commands.loop",
    "jlgcli.commands.loop_entry",
    "jlgcli.commands.parser",
    "jlgcli.cmdline",
    "jlgcli.commands.run_actions",
    "jlgcli.completion.marker",
    "jlgcli.config.asked",
    "jlgcli.config.keys",
    "jlgcli.config.paths",
    "jlgcli.config.resolve",
    "jlgcli.config.spec",
    "jlgcli.config.started",
    "jlgcli.config.trust",
    "jlgcli.durations",
    "jlgcli.process.pipe",
    "jlgcli.process.std_streams",
    "jlgcli.process.warm",
    "jlgcli.runner.denials",
    "jlgcli.runner.engine",
    "jlgcli.runner.entry",
    "jlgcli.runner.gates",
    "jlgcli.runner.iterations",
    "jlgcli.runner.notify",
    "jlgcli.runner.options_record",
    "jlgcli.runner.recorder",
    "jlgcli.runner.resume",
    "jlgcli.runner.select",
    "jlgcli.runner.snapshots",
    "jlgcli.runner.tree_proof",
    "jlgcli.runner.state_keeper",
    "jlgcli.runner.state_writes",
    "jlgcli.runner.worktree",
    "jlgcli.startup_gc",
    "encodings.utf_8_sig",
    "shlex",
    "tempfile",
)
PR_SET_PDEATHSIG = 1
ENOEXEC = 8  # errno of a request that is not a task


def start_server() -> Server | None:
    """Start the task server for this batch (main thread: its parent-death signal follows
    the thread that starts it); None when it cannot start (the tasks then start cold)."""
    command = [*self_argv(), ENTRY, str(os.getpid())]
    return warm.start_server(command, server_environment(os.environ))


class TaskForker:
    """The task server as ``Invocation.fork_server`` of a task: its requests are marked
    (``TASK_MARK``); unmarked ones are the batch's own spawns, run under a supervisor."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def start(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None, stdio: Sequence[int]
    ) -> Adopted | None:
        return self.server.start([TASK_MARK, *argv], env=env, cwd=cwd, stdio=stdio)


def retire_server(server: Server, *, grace: float = 2.0) -> None:
    """End the task server (the batch is over): what it forked is the batch's. Its socket's
    end-of-file ends it as a program does (its ``atexit``); killed after ``grace``."""
    server.control.close()
    deadline = time.monotonic() + grace
    while server.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    end_server(server)


def server_environment(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """What the server's environment keeps of the batch's: how Python starts, no secret."""
    return {
        name: value
        for name, value in environ.items()
        if name in SERVER_ENVIRONMENT or name.startswith(SERVER_ENVIRONMENT_PREFIXES)
    }


def serve(args: list[str], program: Callable[[list[str]], int]) -> int:
    """``__jlgcli_task_server__ PARENT CONTROL_FD``: warm up, then fork a task per request.

    ``program`` is what each task runs on its arguments: ``jlgcli.cli.main``, handed down by
    the command line that started this server (the batch is below the doors: it never
    imports them)."""
    parent, control_fd = int(args[0]), int(args[1])
    call = prctl()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the batch passes Ctrl-C on to each task
    call(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the batch died while this started
        return 1
    for name in WARM_MODULES:
        importlib.import_module(name)
    from jlgcli.records import compile_pending

    compile_pending()  # each record's __init__: compiled once here, not in every task
    gc.collect()
    gc.freeze()  # the tasks' collections never write to what is shared
    os.set_inheritable(control_fd, False)
    control = socket.socket(fileno=control_fd)
    while (request := receive(control)) is not None:
        if request.argv[:1] == [os.fsencode(TASK_MARK)]:
            request.argv = request.argv[1:]
            fork_task(parent, control, request, call, program)
        else:  # the batch's own spawn (a git): as the supervisors' fork server would
            fork_supervisor(parent, control_fd, request, call)
    return 0


def fork_task(
    parent: int,
    control: socket.socket,
    request: Request,
    call: Prctl,
    program: Callable[[list[str]], int],
) -> None:
    """Fork twice (``supervisor.fork_twice``); the grandchild, adopted by the batch, runs
    the task and never comes back here: it ends with ``SystemExit``, as the program."""
    middle = fork_twice(control.fileno(), request)
    if middle is None:
        return
    control.detach()  # closed by fork_twice: the socket object must not close it again
    try:
        code = run_task(parent, middle, request, call, program)
    except SystemExit:  # the program's own exit (argparse's, for --help): as it ends
        raise
    except BaseException:  # anything else never goes back into the server's loop
        os._exit(127)
    raise SystemExit(code)


def run_task(
    parent: int, middle: int, request: Request, call: Prctl, program: Callable[[list[str]], int]
) -> int:
    """In the grandchild: become the task once the batch is the parent; its exit code."""
    while os.getppid() == middle:  # the middle process is exiting: the batch adopts us then
        os.sched_yield()
    os.setsid()  # its own session and group: the one the kill ladder signals
    signal.signal(signal.SIGINT, signal.default_int_handler)
    call(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the batch died meanwhile
        os._exit(128 + int(signal.SIGKILL))
    os.write(request.status_fd, STARTED + b"%d" % os.getpid() + STARTED)
    prefix = len(self_argv())
    arguments = [os.fsdecode(arg) for arg in request.argv[prefix:]]
    if arguments[:1] != ["loop"]:  # as an exec failure: the batch reports it, nothing runs
        os.write(request.status_fd, b"%d" % ENOEXEC)
        os._exit(127)
    try:
        for target, fd in enumerate(request.stdio):
            os.dup2(fd, target)
        os.fchdir(request.cwd_fd)
    except OSError as exc:  # reported as an exec failure would be
        os.write(request.status_fd, b"%d" % (exc.errno or 0))
        os._exit(127)
    _reopen_standard_streams()
    os.environb.clear()
    os.environb.update(request.env)
    renew_token()
    request.close()  # the status pipe's end-of-file: started
    sys.argv = ["jlgcli", *arguments]
    from jlgcli.process import adopt_orphans
    from jlgcli.startup_gc import run_console

    adopt_orphans()  # as the command will: its children are supervised, orphans adopted
    own = fork_supervisor_server()  # the task's first spawn is warm too
    if own is not None:
        warm.serve_from(own)

    return run_console(lambda: program(arguments))


def _reopen_standard_streams() -> None:
    """``sys.stdin``/``stdout``/``stderr`` anew on the task's 0, 1, 2, as Python makes them.

    The server's were made for its null device (seekable, never a terminal); the
    task's are pipes. Same encoding and error handler as the server's (its locale).
    """
    for name, fd in (("stdin", 0), ("stdout", 1), ("stderr", 2)):
        old = getattr(sys, name)
        new = open(  # noqa: SIM115 - the process's own stream
            fd, "r" if fd == 0 else "w", encoding=old.encoding, errors=old.errors, closefd=False
        )
        if fd:
            new.reconfigure(line_buffering=os.isatty(fd), write_through=fd == 2)
        setattr(sys, name, new)
        setattr(sys, f"__{name}__", new)


def fork_supervisor_server() -> Server | None:
    """The task's own supervisors' fork server, forked from the task as it starts.

    What ``jlgcli.process.warm.prestart`` starts as a new interpreter (~3.6 MB private
    while no supervisor it forked runs, ~15 ms of CPU) is here a fork of the task, still
    single-threaded: it shares its pages with the task and the task server, and serves
    the same protocol (``supervisor.serve``): its own session, the task's parent-death
    signal, no other descriptor than its socket, no collector. Its ``/proc`` environment
    is the task server's, without secrets. None when it cannot fork (then as usual).
    """
    parent = os.getpid()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with spawning() as register:
            pid = os.fork()
            if pid == 0:
                _serve_supervisors(parent, theirs.fileno())
            register(pid)
    except OSError:
        ours.close()
        return None
    finally:
        theirs.close()
    return Server(Adopted(pid), ours, ahead=True)


def _serve_supervisors(parent: int, control_fd: int) -> None:
    """In the forked server: as ``supervisor.py PARENT --serve FD`` would; never returns."""
    code = 1
    try:
        gc.disable()  # nothing of the task's heap is freed or finalised here
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, control_fd)
        os.closerange(control_fd + 1, os.sysconf("SC_OPEN_MAX"))
        code = supervisor_main([str(parent), "--serve", str(control_fd)])
    finally:
        os._exit(code)
