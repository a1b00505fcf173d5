"""A rebound script's last step before it runs: no privilege left (issue 46).

This file runs *inside* the sandbox, as ``python -I -u -B -c <this file's text> SPEC
SCRIPT [ARGS]`` (the frozen exe imports it instead): standard library only, and no
import of jlgcli, so nothing of the project (whose root is the working directory)
can stand in for a module before the script is confined. In order:

1. at the ``unshare`` level (``"mounts"`` in SPEC), with the capabilities the new
   namespaces give: the whole file system read-only (``mount_setattr``
   recursive), a fresh ``/tmp`` and ``/dev/shm``, the user's home, config folder
   and ``/root`` hidden under empty tmpfs, the project bound back read-write and
   its protected paths (``.git``, the git common dir, jlgcli's files, the ledger)
   bound back read-only; bubblewrap does this part itself;
2. as root (``"mask"``): secret files root owns (``/etc/shadow``…) covered by an
   empty file of mode 000: root without capabilities is refused them;
3. the loopback interface up in a fresh network namespace (``"loopback"``);
4. every capability dropped (bounding, ambient, inheritable, permitted,
   effective), ``no_new_privs``, and a seccomp filter that refuses mount, umount,
   pivot_root, chroot, ptrace, the kernel keyring, new namespaces, module and
   kexec loading, bpf and perf events;
5. ``/proc/self/status`` checked: any capability left, no ``no_new_privs`` or no
   filter and the script does not run (exit 125).

Then the script runs as ``python script.py`` would run it (``runpy``).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import runpy
import struct
import sys
from typing import Any

REFUSED = 125  # the script did not run: the sandbox could not be made
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _PR_CAP_AMBIENT = 24, 38, 22, 47
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC = 1, 2, 4, 4096, 16384
_AT_RECURSIVE, _MOUNT_ATTR_RDONLY, _O_PATH = 0x8000, 1, 0o10000000
_NAMESPACE_FLAGS = 0x7E020080  # CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET,TIME}
# Refused syscalls, by name: (x86_64, aarch64) numbers.
DENIED = {
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),
    "unshare": (272, 97), "setns": (308, 268), "open_tree": (428, 428),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106), "bpf": (321, 280),
    "perf_event_open": (298, 241), "userfaultfd": (323, 282), "reboot": (169, 142),
    "swapon": (167, 224), "swapoff": (168, 225),
}  # fmt: skip
_CLONE, _CLONE3, _MOUNT_SETATTR = (56, 220), 435, 442
_ARCHES = {"x86_64": (0xC000003E, 0), "aarch64": (0xC00000B7, 1)}  # AUDIT_ARCH_*, column


def seccomp_program(machine: str) -> list[tuple[int, int, int, int]]:
    """The BPF filter (code, jt, jf, k) for ``machine``; ValueError on an unknown one."""
    if machine not in _ARCHES:
        raise ValueError(f"no seccomp filter for {machine}")
    audit_arch, column = _ARCHES[machine]
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, audit_arch), (ret, 0, 0, eperm), (ld, 0, 0, 0)]
    if column == 0:  # x32 calls (nr | 0x40000000) reach the same kernel: refused whole
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]
    for numbers in DENIED.values():
        prog += [(jeq, 0, 1, numbers[column]), (ret, 0, 0, eperm)]
    # clone3 hides its flags behind a pointer: ENOSYS makes libc fall back to clone
    prog += [(jeq, 0, 1, _CLONE3), (ret, 0, 0, enosys)]
    prog += [(jeq, 0, 3, _CLONE[column]), (ld, 0, 0, 16), (jset, 0, 1, _NAMESPACE_FLAGS)]
    prog += [(ret, 0, 0, eperm), (ret, 0, 0, allow)]
    return prog


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def enc(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    libc = _libc()
    _check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data) if data else None),
           f"mount {target}")  # fmt: skip


def _mount_attr(path: str, *, recursive: bool, read_only: bool) -> None:
    """``mount_setattr``: set (or clear) read-only on ``path``'s mount (and under it)."""
    attr = struct.pack("QQQQ", _MOUNT_ATTR_RDONLY if read_only else 0,
                       0 if read_only else _MOUNT_ATTR_RDONLY, 0, 0)  # fmt: skip
    buffer = ctypes.create_string_buffer(attr)
    flags = _AT_RECURSIVE if recursive else 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(_MOUNT_SETATTR, -100, os.fsencode(path), flags, buffer, len(attr))
    _check(int(result), f"mount_setattr {path}")


def _make_point(path: str, *, directory: bool) -> None:
    if os.path.lexists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if directory:
        os.mkdir(path)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def _bind(fd: int, target: str, *, read_only: bool) -> None:
    _make_point(target, directory=os.path.isdir(f"/proc/self/fd/{fd}"))
    _mount(f"/proc/self/fd/{fd}", target, None, _MS_BIND | _MS_REC)
    _mount_attr(target, recursive=read_only, read_only=read_only)


def _tmpfs(target: str, mode: str) -> None:
    if os.path.isdir(target):
        _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode={mode}")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def setup_mounts(spec: dict[str, Any]) -> None:
    """The unshare level's file system: read-only but the project and a private /tmp."""
    root = str(spec["root"])
    # what runs the script (Python may live in a home) read-only, then the project
    # read-write, then its protected paths and a Python inside it read-only
    expose = [str(p) for p in spec.get("expose", [])]
    order = [
        *(p for p in expose if not _within(p, root)), root,
        *spec.get("protected", []), *(p for p in expose if _within(p, root)),
    ]  # fmt: skip
    keep = [(p, os.open(p, _O_PATH)) for p in order if os.path.lexists(p)]
    _mount_attr("/", recursive=True, read_only=True)
    for target in ("/tmp", "/dev/shm"):  # noqa: S108 - the script's own, in its mount namespace
        _tmpfs(target, "1777")
    hide = [str(h) for h in spec.get("hide", [])]
    for folder in sorted(h for h in hide if not _within(h, root)):
        _tmpfs(folder, "0755")
    for path, fd in keep:
        _bind(fd, path, read_only=path != root)
        os.close(fd)
    for folder in sorted(h for h in hide if _within(h, root) and h != root):
        _tmpfs(folder, "0755")
    for folder in hide:  # empty and read-only, once the binds made their mount points
        if folder != root and os.path.isdir(folder):
            _mount_attr(folder, recursive=False, read_only=True)
    os.chdir(root)  # the old working directory is the read-only mount under the new one


def mask_files(paths: list[str]) -> None:
    """Cover each existing file with an empty one of mode 000 (root without caps is refused)."""
    for target in paths:
        if not os.path.isfile(target):
            continue
        blank = f"/tmp/.jlgcli-mask-{os.getpid()}"  # noqa: S108 - the sandbox's own /tmp
        os.close(os.open(blank, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0))
        os.chmod(blank, 0)
        try:
            _mount(blank, target, None, _MS_BIND)
        finally:
            os.unlink(blank)


def loopback_up() -> None:
    """Bring ``lo`` up in a fresh network namespace (``SIOCGIFFLAGS`` / ``SIOCSIFFLAGS``)."""
    if sys.platform == "win32":
        raise OSError(errno.ENOSYS, "no network namespace on Windows")
    else:  # mypy binds fcntl on this branch only
        import fcntl  # here: only the unshare level without the network needs it
        import socket

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack("16sH14x", b"lo", 0)
            flags = struct.unpack("16sH14x", fcntl.ioctl(sock, 0x8913, request))[1]
            fcntl.ioctl(sock, 0x8914, struct.pack("16sH14x", b"lo", flags | 1))  # IFF_UP


def drop_privileges(machine: str | None = None) -> None:
    """No capability in any set, ``no_new_privs``, the seccomp filter (errors are checked after)."""
    libc = _libc()
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # EPERM without CAP_SETPCAP: checked below
    libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    header = struct.pack("Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = ctypes.create_string_buffer(24)  # two {effective, permitted, inheritable}: all 0
    libc.capset(ctypes.create_string_buffer(header), data)
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if sys.platform == "win32":
        raise OSError(errno.ENOSYS, "no seccomp on Windows")
    prog = seccomp_program(machine or os.uname().machine)
    filters = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buffer = ctypes.create_string_buffer(filters)
    fprog = struct.pack("HP", len(prog), ctypes.addressof(buffer))
    _check(libc.prctl(_PR_SET_SECCOMP, 2, ctypes.create_string_buffer(fprog), 0, 0), "seccomp")


def unconfined(status: str) -> list[str]:
    """What ``/proc/self/status`` text says is still allowed (empty: confined)."""
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    left = [f"{name} {fields.get(name, '?').strip()}"
            for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")
            if fields.get(name, "x").strip().strip("0") != ""]  # fmt: skip
    if fields.get("NoNewPrivs", "").strip() != "1":
        left.append("no_new_privs not set")
    if fields.get("Seccomp", "").strip() != "2":
        left.append("no seccomp filter")
    return left


def confine(spec: dict[str, Any]) -> None:
    """Steps 1 to 5 of the module's docstring; OSError/RuntimeError when one fails."""
    if spec.get("mounts"):
        setup_mounts(spec)
    mask_files([str(p) for p in spec.get("mask", [])])
    home = spec.get("home")
    if home:
        os.makedirs(str(home), mode=0o700, exist_ok=True)
    if spec.get("loopback"):
        loopback_up()
    drop_privileges()
    with open("/proc/self/status", encoding="utf-8") as handle:
        left = unconfined(handle.read())
    if left:
        raise RuntimeError("still privileged: " + ", ".join(left))


def run_script(argv: list[str]) -> int:
    """Run ``argv[0]`` as ``python argv[0] argv[1:]`` would; its exit status."""
    script = argv[0]
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.realpath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        import traceback

        traceback.print_exc()
        return 1
    return 0


def main(argv: list[str]) -> int:
    """``SPEC [SCRIPT [ARGS]]``: confine, then run the script (none: a probe, exit 0)."""
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    try:
        confine(json.loads(argv[0]))
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"jlgcli: the script was not run, its sandbox failed: {exc}", file=sys.stderr)
        return REFUSED
    return run_script(argv[1:]) if len(argv) > 1 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
