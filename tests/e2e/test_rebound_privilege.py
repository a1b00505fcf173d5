"""Issue 46: a rebound script has no privilege, no home, no network, whatever the level.

The attacks of the issue, at each full level (``bubblewrap``, ``unshare``: forced
with ``JLGCLI_REBOUND_ISOLATION``), with jlgcli run as root and as ``nobody``,
the loop started in a sub-folder of a real git repository: the script
``umount2``\\s ``.git`` and then writes a hook and an alias, remounts the ledger
read-write, mounts a tmpfs, calls ``pivot_root``, writes ``core_pattern`` (the
value it already has: a sandbox that fails changes nothing), reads
``/etc/shadow``, reads a canary and credentials in the user's home, writes
``~/.config/jlgcli/config.json`` and ``~/.gitconfig``, and connects to a
listener on 127.0.0.1 outside. Every file must be as it was, ``git commit`` must
run no hook, the listener must see no connection, and nothing secret may come
back to the model.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.reachable import Runtime, nobody_workspace
from support.rebound_turns import first_continuation, run_one_script, run_rebound_loop

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="Linux: namespaces, seccomp"),
]

ATTACK = """\
import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
PATHS = {paths!r}

def say(name, ok, detail=""):
    print(("DONE " if ok else "REFUSED ") + name, detail)

def write(name, path, text, mode="w"):
    try:
        with open(path, mode) as handle:
            handle.write(text)
        say(name, True)
    except OSError as exc:
        say(name, False, type(exc).__name__)

def read(name, path):
    try:
        with open(path, "rb") as handle:
            say(name, True, handle.read().hex())
    except OSError as exc:
        say(name, False, type(exc).__name__)

status = open("/proc/self/status").read()
print("STATUS", " ".join(l.replace("\\t", "") for l in status.splitlines()
                         if l.startswith(("Cap", "NoNewPrivs", "Seccomp:"))))
say("umount2", libc.umount2(PATHS["git"].encode(), 2) == 0, ctypes.get_errno())
say("umount2-root", libc.umount2(os.getcwd().encode(), 2) == 0, ctypes.get_errno())
write("hook", PATHS["git"] + "/hooks/pre-commit", "#!/bin/sh\\ntouch " + PATHS["marker"] + "\\n")
try:
    os.chmod(PATHS["git"] + "/hooks/pre-commit", 0o755)
except OSError:
    pass
write("alias", PATHS["git"] + "/config", "\\n[alias]\\n\\tst = !touch " + PATHS["marker"], "a")
say("remount", libc.mount(None, PATHS["ledger"].encode(), None, 32 | 4096, None) == 0,
    ctypes.get_errno())
write("ledger", PATHS["ledger"] + "/forged.txt", "forged")
say("mount", libc.mount(b"none", b"/mnt", b"tmpfs", 0, None) == 0, ctypes.get_errno())
say("pivot_root", libc.syscall(155 if os.uname().machine == "x86_64" else 41,
                               b".", b".") == 0, ctypes.get_errno())
try:
    current = open("/proc/sys/kernel/core_pattern").read()
    write("core_pattern", "/proc/sys/kernel/core_pattern", current)
except OSError as exc:
    say("core_pattern", False, type(exc).__name__)
read("shadow", "/etc/shadow")
read("canary", PATHS["canary"])
read("credentials", PATHS["credentials"])
write("config", PATHS["config"], '{{"gates": ["touch ' + PATHS["marker"] + '"]}}')
write("gitconfig", PATHS["gitconfig"], "[alias]\\n\\tx = !true\\n")
write("project", "made-by-script.txt", "ok")
write("tmp", "/tmp/made-by-script.txt", "ok")
print("HOME", os.environ.get("HOME"), os.path.isdir(os.environ.get("HOME", "/nonexistent")))
sock = socket.socket()
sock.settimeout(5)
try:
    sock.connect(("127.0.0.1", PATHS["port"]))
    sock.sendall(b"hello")
    say("connect", True)
except OSError as exc:
    say("connect", False, type(exc).__name__)
"""


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP listener on 127.0.0.1 outside the sandbox; what it received."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                got.append(conn.recv(100) or b"(connected)")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], got
    stop.set()
    thread.join(5)
    server.close()


def _git(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=60)  # fmt: skip


def _attack(base: Path, port: int, nobody: Runtime | None, level: str, jlgcli: list[str]) -> None:
    repo, home, config = base / "repo", base / "home", base / "cfg"
    sub = repo / "sub"
    for folder in (sub, home / ".claude", config):
        folder.mkdir(parents=True)
    marker = base / "hook-ran"
    canary = f"canary-{uuid.uuid4().hex}"
    (home / "canary.txt").write_text(canary, "utf-8")
    (home / ".claude" / ".credentials.json").write_text(f'{{"token": "{canary}"}}', "utf-8")
    (home / ".gitconfig").write_text("[user]\n\tname = me\n", "utf-8")
    (config / "config.json").write_text("{}", "utf-8")
    git_env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    _git("init", "-q", cwd=repo, env=git_env)
    (repo / ".git" / "hooks").mkdir(exist_ok=True)  # git's templates may not make it
    (sub / "task.md").write_text("Look around.\n", "utf-8")
    watched = [
        repo / ".git" / "config",
        repo / ".git" / "HEAD",
        *(repo / ".git" / "hooks").iterdir(),
    ]
    before = {p: p.read_bytes() for p in watched}
    paths = {
        "git": str(repo / ".git"), "ledger": str(repo / "ledger"), "marker": str(marker),
        "canary": str(home / "canary.txt"),
        "credentials": str(home / ".claude" / ".credentials.json"),
        "config": str(config / "config.json"), "gitconfig": str(home / ".gitconfig"),
        "port": port,
    }  # fmt: skip
    script = run_one_script(base, "attack.py", ATTACK.format(paths=paths))
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(script), "HOME": str(home),
           "JLGCLI_CONFIG_DIR": str(config), "JLGCLI_REBOUND_ISOLATION": level}  # fmt: skip
    if nobody is not None:
        env["TMPDIR"] = str(home)
    result = run_rebound_loop(jlgcli, sub, env, nobody, base)
    assert result.returncode == 0, result.stderr
    told = first_continuation(base)
    lines = {
        line.split()[1]: line for line in told.splitlines() if line.startswith(("DONE", "REF"))
    }
    assert "DONE project" in lines["project"], told  # the script ran, and may write the project
    assert "DONE tmp" in lines["tmp"], told
    for attack in ("umount2", "umount2-root", "hook", "alias", "remount", "ledger", "mount",
                   "pivot_root", "core_pattern", "shadow", "canary", "credentials", "config",
                   "gitconfig", "connect"):  # fmt: skip
        assert lines[attack].startswith("REFUSED"), told
    status = next(line for line in told.splitlines() if line.startswith("STATUS"))
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert f"{cap}:0000000000000000" in status, status
    assert "NoNewPrivs:1" in status and "Seccomp:2" in status, status
    assert "HOME /tmp/home True" in told
    assert canary not in told and canary.encode().hex() not in told
    assert {p: p.read_bytes() for p in watched} == before  # the repository above the sub-folder
    assert sorted((repo / ".git" / "hooks").iterdir()) == sorted(watched[2:])
    assert (config / "config.json").read_text("utf-8") == "{}"
    assert (home / ".gitconfig").read_text("utf-8") == "[user]\n\tname = me\n"
    assert not (repo / "ledger" / "forged.txt").exists()
    assert (repo / "made-by-script.txt").exists()  # one root: the repository's
    assert not (sub / "ledger").exists() and (repo / "ledger").is_dir()
    index = json.loads(next((repo / "ledger").glob("*/index.json")).read_text("utf-8"))
    assert index["isolation"] == level
    assert f"isolation: {level}" in result.stderr
    git_env |= {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
                "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip
    commit = ["-c", "safe.directory=*", "commit", "-q", "--allow-empty", "-m", "after"]
    committed = _git(*commit, cwd=repo, env=git_env)
    assert committed.returncode == 0, committed.stderr
    assert not marker.exists()  # no hook, no alias, no gate ran


def _level_or_skip(level: str) -> None:
    if level == "bubblewrap" and shutil.which("bwrap", path="/usr/bin:/bin") is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")


@pytest.mark.parametrize("level", ["bubblewrap", "unshare"])
def test_as_root_the_scripts_attacks_all_fail(
    level: str, jlgcli_exe: str, tmp_path: Path, listener: tuple[int, list[bytes]]
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the tests do not run as root here")
    _level_or_skip(level)
    port, got = listener
    _attack(tmp_path, port, None, level, [jlgcli_exe])
    assert got == []


@pytest.mark.parametrize("level", ["bubblewrap", "unshare"])
def test_as_nobody_the_scripts_attacks_all_fail(
    level: str, system_bin: Path, listener: tuple[int, list[bytes]]
) -> None:
    _level_or_skip(level)
    with nobody_workspace(system_bin) as (runtime, folder):
        port, got = listener
        _attack(folder, port, runtime, level, runtime.jlgcli)
        assert got == []
