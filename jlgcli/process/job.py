"""Windows: each child in its own Job Object that kills every member when it closes.

A process started by a member of a job is a member too, so closing the job
(``close``, at the end of the run) ends the whole tree, including descendants
orphaned before the kill, which ``taskkill /T`` cannot find. The job is
created with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``: when jlgcli itself dies,
even by TerminateProcess, Windows closes its handles and the tree dies with it.

Limit: the child is assigned right after it starts, so a grandchild it spawns
in its first instant escapes (subprocess cannot start a child suspended).
``kernel32`` is injected in tests; there is no Windows machine here.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9
PROCESS_SET_QUOTA = 0x0100
PROCESS_TERMINATE = 0x0001


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


def contain_in_job(
    pid: int, *, is_windows: bool, kernel32: Any = None, log: Callable[[str], None] | None = None
) -> Callable[[], None]:
    """Put ``pid`` in a new kill-on-close job; returns the function that ends the job's tree.

    Off Windows, or when a call fails (an old Windows without nested jobs),
    returns a function that does nothing: the kill ladder still applies.
    """
    if not is_windows:
        return _nothing
    k32 = kernel32 if kernel32 is not None else _kernel32()  # pragma: no branch
    job = k32.CreateJobObjectW(None, None)
    if not job:
        return _warn(log, "CreateJobObjectW failed")
    limits = ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    size = ctypes.sizeof(limits)
    info_class = JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS
    if not k32.SetInformationJobObject(job, info_class, ctypes.addressof(limits), size):
        k32.CloseHandle(job)
        return _warn(log, "SetInformationJobObject failed")
    process = k32.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, False, pid)
    assigned = bool(process) and bool(k32.AssignProcessToJobObject(job, process))
    if process:
        k32.CloseHandle(process)
    if not assigned:
        k32.CloseHandle(job)
        return _warn(log, f"could not put process {pid} in a job object")

    def close() -> None:
        k32.TerminateJobObject(job, 1)
        k32.CloseHandle(job)

    return close


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
    k32.CloseHandle.argtypes = [handle]
    return k32


def _warn(log: Callable[[str], None] | None, message: str) -> Callable[[], None]:
    if log is not None:
        log(f"job object: {message}; descendants are stopped by the kill ladder only")
    return _nothing


def _nothing() -> None:
    pass
