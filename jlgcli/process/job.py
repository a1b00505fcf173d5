"""Windows: each child in its own Job Object that kills every member when it closes.

A process started by a member of a job is a member too, so closing the job
(``close``, at the end of the run) ends the whole tree, including descendants
orphaned before the kill, which ``taskkill /T`` cannot find. The job is
created with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``: when jlgcli itself dies,
even by TerminateProcess, Windows closes its handles and the tree dies with it.

No escape at start-up (issue 33): the pipe transport starts the child with
``CREATE_SUSPENDED`` (``group_popen_kwargs``), so it runs no instruction, and
spawns nothing, before it is in the job; ``contain_in_job(..., suspended=True)``
then assigns it and resumes it (``NtResumeProcess``: subprocess closed the
main thread's handle). The child is resumed whatever happens to the job (a
failure is logged; the kill ladder still applies); one that cannot be resumed
is terminated rather than left frozen. The pipe transport hands over the
``Popen`` handle, which has every access right: a child that ``OpenProcess``
could not open again was neither resumed nor terminated (issue 47). The pty
transport (pywinpty) cannot start a child suspended and gives a pid only: its
child is opened and assigned right after it starts.
The job is also the kill ladder's terminate rung (``Job.terminate``:
``TerminateJobObject`` ends every member at once).
``kernel32`` and ``ntdll`` are injected in tests; there is no Windows machine here.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from jlgcli.records import record

JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9
PROCESS_SET_QUOTA = 0x0100
PROCESS_TERMINATE = 0x0001
PROCESS_SUSPEND_RESUME = 0x0800
CREATE_SUSPENDED = 0x00000004


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", ctypes.c_uint32),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", ctypes.c_uint32),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", ctypes.c_uint32),
        ("SchedulingClass", ctypes.c_uint32),
    ]


class _IoCounters(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("r", "w", "o", "rb", "wb", "ob")]


class ExtendedLimits(ctypes.Structure):
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION."""

    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


def _no_tree() -> bool:
    return False


def _nothing() -> None:
    pass


@record
class Job:
    """A child's Job Object: ``terminate`` ends every member now (False: there is no job),
    ``close`` ends them and releases the job (at the end of the run)."""

    terminate: Callable[[], bool] = _no_tree
    close: Callable[[], None] = _nothing


NO_JOB = Job()


def contain_in_job(
    pid: int,
    *,
    is_windows: bool,
    kernel32: Any = None,
    ntdll: Any = None,
    log: Callable[[str], None] | None = None,
    suspended: bool = False,
    process_handle: int | None = None,
) -> Job:
    """Put ``pid`` in a new kill-on-close job.

    ``process_handle``: the child's handle from ``Popen`` (full access), used
    instead of opening the process again. ``suspended``: the child was started
    with ``CREATE_SUSPENDED``; it is resumed once in the job (and resumed
    anyway if the job fails). Off Windows, or when a call fails (an old Windows
    without nested jobs), returns ``NO_JOB``: the kill ladder still applies.
    """
    if not is_windows:
        return NO_JOB
    k32 = kernel32 if kernel32 is not None else _kernel32()  # pragma: no branch
    opened = None
    if process_handle is None:
        access = PROCESS_SET_QUOTA | PROCESS_TERMINATE
        opened = k32.OpenProcess(access | (PROCESS_SUSPEND_RESUME if suspended else 0), False, pid)
    process = process_handle if process_handle is not None else opened
    try:
        job, problem = _job_with(k32, process, pid)
    finally:
        if suspended:
            _resume(k32, ntdll, process, pid, log)
        if opened:
            k32.CloseHandle(opened)
    if job is None:
        _warn(log, problem)
        return NO_JOB

    def terminate() -> bool:
        return bool(k32.TerminateJobObject(job, 1))

    def close() -> None:
        k32.TerminateJobObject(job, 1)
        k32.CloseHandle(job)

    return Job(terminate=terminate, close=close)


def _job_with(k32: Any, process: Any, pid: int) -> tuple[Any, str]:
    """A new kill-on-close job holding ``process``, or (None, what failed)."""
    if not process:
        return None, f"could not open process {pid}"
    job = k32.CreateJobObjectW(None, None)
    if not job:
        return None, "CreateJobObjectW failed"
    limits = ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    size = ctypes.sizeof(limits)
    info_class = JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS
    if not k32.SetInformationJobObject(job, info_class, ctypes.addressof(limits), size):
        k32.CloseHandle(job)
        return None, "SetInformationJobObject failed"
    if not k32.AssignProcessToJobObject(job, process):
        k32.CloseHandle(job)
        return None, f"could not put process {pid} in a job object"
    return job, ""


def _resume(
    k32: Any, ntdll: Any, process: Any, pid: int, log: Callable[[str], None] | None
) -> None:
    """Resume a child started suspended; terminate it when that fails (never leave it frozen)."""
    nt = ntdll if ntdll is not None else _ntdll()  # pragma: no branch
    if process and nt.NtResumeProcess(process) == 0:  # NTSTATUS STATUS_SUCCESS
        return
    if log is not None:
        log(f"job object: could not resume process {pid}; ending it")
    if process:
        k32.TerminateProcess(process, 1)


def _ntdll() -> Any:  # pragma: no cover - Windows only
    nt = ctypes.WinDLL("ntdll")  # type: ignore[attr-defined,unused-ignore]
    nt.NtResumeProcess.argtypes = [ctypes.c_void_p]
    nt.NtResumeProcess.restype = ctypes.c_long
    return nt


def _kernel32() -> Any:  # pragma: no cover - Windows only
    k32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    handle = ctypes.c_void_p  # HANDLEs are pointer-sized: the default c_int would cut them
    k32.CreateJobObjectW.restype = handle
    k32.CreateJobObjectW.argtypes = [ctypes.c_void_p, ctypes.c_wchar_p]
    k32.OpenProcess.restype = handle
    k32.OpenProcess.argtypes = [ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32]
    k32.SetInformationJobObject.argtypes = [handle, ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32]
    k32.AssignProcessToJobObject.argtypes = [handle, handle]
    k32.TerminateJobObject.argtypes = [handle, ctypes.c_uint]
    k32.TerminateProcess.argtypes = [handle, ctypes.c_uint]
    k32.CloseHandle.argtypes = [handle]
    return k32


def _warn(log: Callable[[str], None] | None, message: str) -> None:
    if log is not None:
        log(f"job object: {message}; descendants are stopped by the kill ladder only")
