"""confine: what starts a rebound script with no privilege left (issue 46).

The in-process parts are tested here; ``run`` starts Python under confine as a
child (it drops the privileges of the process it runs in) and has the script
try what the issue's attacker did.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from jlgcli.rebound import confine
from jlgcli.rebound.execute import run_script_entry
from jlgcli.rebound.isolation import confine_source, confined

linux = pytest.mark.skipif(sys.platform != "linux", reason="Linux: seccomp, capabilities")


def test_the_filter_checks_the_arch_and_refuses_each_denied_call() -> None:
    prog = confine.seccomp_program("x86_64")
    assert prog[0] == (0x20, 0, 0, 4) and prog[1][3] == 0xC000003E  # arch first
    assert (0x35, 0, 1, 0x40000000) in prog  # x32 calls refused whole
    numbers = {k for code, _, _, k in prog if code == 0x15}
    assert {165, 166, 155, 101, 250, 272, 435} <= numbers  # mount umount2 pivot_root ptrace…
    assert prog[-1] == (0x06, 0, 0, 0x7FFF0000)  # the rest is allowed
    arm = confine.seccomp_program("aarch64")
    assert (0x35, 0, 1, 0x40000000) not in arm and {40, 39, 41, 117} <= {i[3] for i in arm}
    with pytest.raises(ValueError, match="no seccomp filter"):
        confine.seccomp_program("sparc")
    assert all(len(struct.pack("HBBI", *ins)) == 8 for ins in prog)


def test_what_status_says_is_left() -> None:
    confined_status = ("CapInh:\t0000000000000000\nCapPrm:\t0\nCapEff:\t0000\nCapBnd:\t00\n"
                       "CapAmb:\t0\nNoNewPrivs:\t1\nSeccomp:\t2\n")  # fmt: skip
    assert confine.unconfined(confined_status) == []
    left = confine.unconfined("CapEff:\t000001ffffffffff\nNoNewPrivs:\t0\nSeccomp:\t0\n")
    assert "CapEff 000001ffffffffff" in left and "CapInh ?" in left
    assert "no_new_privs not set" in left and "no seccomp filter" in left


def test_the_script_runs_as_python_would_run_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    script = tmp_path / "s.py"
    cases = [("import sys; print(sys.argv[1:])", 0), ("raise SystemExit(3)", 3),
             ("raise SystemExit('bye')", 1), ("raise KeyError('k')", 1), ("pass", 0)]  # fmt: skip
    for text, code in cases:
        script.write_text(text, "utf-8")
        assert confine.run_script([str(script), "a"]) == code
    out, err = capsys.readouterr()
    assert "['a']" in out and "bye" in err and "KeyError" in err
    assert run_script_entry([]) == 2
    assert run_script_entry([str(script)]) == 0


def test_a_sandbox_that_cannot_be_made_runs_no_script(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "s.py"
    script.write_text(f"open({str(marker)!r}, 'w')", "utf-8")
    bad = json.dumps({"mounts": True, "root": str(tmp_path / "missing")})
    assert run_script_entry(["--confine", bad, str(script)]) == confine.REFUSED
    assert "its sandbox failed" in capsys.readouterr().err and not marker.exists()


@linux
@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="root: capabilities to drop"
)
def test_root_under_confine_has_nothing_left_and_is_refused_mount_and_umount(
    tmp_path: Path,
) -> None:
    attack = tmp_path / "attack.py"
    attack.write_text(
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('umount2', libc.umount2(b'/proc', 2), ctypes.get_errno())\n"
        "print('mount', libc.mount(b'x', b'/mnt', b'tmpfs', 0, None), ctypes.get_errno())\n"
        "print('unshare', libc.unshare(0x20000), ctypes.get_errno())\n"
        "print([l for l in open('/proc/self/status') if l.startswith(('CapBnd', 'Seccomp:'))])\n"
        "import subprocess; print(subprocess.run(['true']).returncode)\n",
        "utf-8",
    )
    spec = json.dumps({"mask": [], "home": str(tmp_path / "home")})
    argv = confined([sys.executable, str(attack)], spec)
    assert argv[argv.index("-c") + 1] == confine_source()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "umount2 -1 1" in done.stdout and "mount -1 1" in done.stdout  # EPERM
    assert "unshare -1 1" in done.stdout
    assert "CapBnd:\\t0000000000000000" in done.stdout and "Seccomp:\\t2" in done.stdout
    assert done.stdout.rstrip().endswith("0")  # a child process still starts (clone3 → clone)
    assert (tmp_path / "home").is_dir()


@linux
def test_the_unshare_levels_mounts_in_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-only first, then the private folders, then the project rw and its protected paths ro."""
    root, home, git = (
        tmp_path / "home" / "proj",
        tmp_path / "home",
        tmp_path / "home" / "proj" / ".git",
    )
    inner = root / "cfg"  # a folder to hide inside the project: hidden after the project's bind
    for folder in (git, inner, root / ".venv"):
        folder.mkdir(parents=True)
    done: list[tuple[str, ...]] = []

    def attr(path: str, *, recursive: bool, read_only: bool) -> None:
        done.append(("attr", path, str(recursive), str(read_only)))

    def mount(source: str, target: str, fstype: str | None, _flags: int, _data: str = "") -> None:
        done.append(("mount", source.split("/")[-1] if fstype is None else fstype, target))

    monkeypatch.setattr(confine, "_mount_attr", attr)
    monkeypatch.setattr(confine, "_mount", mount)
    monkeypatch.setattr(confine.os, "chdir", lambda path: done.append(("chdir", path)))
    spec = {"mounts": True, "root": str(root), "protected": [str(git), str(tmp_path / "gone")],
            "hide": [str(home), str(inner)],
            "expose": [str(root / ".venv"), str(tmp_path)]}  # fmt: skip
    confine.setup_mounts(spec)
    assert done[0] == ("attr", "/", "True", "True")
    assert done[1:3] == [("mount", "tmpfs", "/tmp"), ("mount", "tmpfs", "/dev/shm")]
    assert done[3] == ("mount", "tmpfs", str(home))
    binds = [(step[2], done[i + 1][3]) for i, step in enumerate(done)
             if step[0] == "mount" and step[1] != "tmpfs"]  # fmt: skip
    # a Python outside the project first (even above it), one inside it last: read-only
    assert binds == [(str(tmp_path), "True"), (str(root), "False"), (str(git), "True"),
                     (str(root / ".venv"), "True")]  # fmt: skip
    assert done.index(("mount", "tmpfs", str(inner))) > done.index(
        ("attr", str(git), "True", "True")
    )
    assert ("attr", str(home), "False", "True") in done and done[-1] == ("chdir", str(root))


@linux
def test_confine_masks_makes_home_brings_loopback_up_then_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:x", "utf-8")
    done: list[str] = []
    monkeypatch.setattr(
        confine, "_mount", lambda source, target, *_a: done.append(f"bind {target}")
    )
    monkeypatch.setattr(confine, "loopback_up", lambda: done.append("lo"))
    monkeypatch.setattr(confine, "drop_privileges", lambda: done.append("drop"))
    spec = {"mask": [str(secret), str(tmp_path / "absent")], "home": str(tmp_path / "h"),
            "loopback": True}  # fmt: skip
    with pytest.raises(RuntimeError, match="still privileged"):  # this process keeps its own
        confine.confine(spec)
    assert done == [f"bind {secret}", "lo", "drop"] and (tmp_path / "h").is_dir()
    assert not list(Path("/tmp").glob(f".jlgcli-mask-{os.getpid()}"))


@linux
def test_loopback_flags_are_read_then_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, bytes]] = []

    def ioctl(_sock: object, request: int, data: bytes) -> bytes:
        calls.append((request, data))
        return struct.pack("16sH14x", b"lo", 0x8)

    import fcntl

    monkeypatch.setattr(fcntl, "ioctl", ioctl)
    confine.loopback_up()
    assert [c[0] for c in calls] == [0x8913, 0x8914]
    assert struct.unpack("16sH14x", calls[1][1])[1] == 0x9  # IFF_UP added, the rest kept


@linux
def test_mount_points_are_made_and_mount_errors_carry_the_path(tmp_path: Path) -> None:
    confine._make_point(str(tmp_path / "a" / "dir"), directory=True)
    confine._make_point(str(tmp_path / "b" / "file"), directory=False)
    confine._make_point(str(tmp_path / "b" / "file"), directory=True)  # there: left alone
    assert (tmp_path / "a" / "dir").is_dir() and (tmp_path / "b" / "file").is_file()
    missing = str(tmp_path / "missing")  # nothing is mounted: the target does not exist
    with pytest.raises(OSError, match=r"mount .*missing"):
        confine._mount(None, missing, None, 4096)
    with pytest.raises(OSError, match=r"mount_setattr .*missing"):
        confine._mount_attr(missing, recursive=True, read_only=True)
