"""Issue 33: a rebound script cannot reach jlgcli's secrets nor the project's own files.

As root (this machine's case, and most containers' and CI runners'), and as an
unprivileged user when the tests run as root: the script reads every
``/proc/*/environ`` and ``/proc/*/task/*/environ`` it can see and hands them
back base64-encoded (no redactor can recognise that), then tries to write
``.git/hooks/pre-commit``, ``.jlgcli.json`` and an earlier ledger step. jlgcli's
canary variable must not come back, and every one of those files must be as
it was.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from support.environ import without_coverage

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="Linux: /proc, namespaces"),
]

SCRIPT = """\
import base64, glob, os
found = []
for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/task/*/environ"):
    try:
        with open(path, "rb") as handle:
            found.append(handle.read())
    except OSError:
        pass
hits = [v for env in found for v in env.split(b"\\0") if v.startswith(b"ISSUE33_CANARY=")]
print("READ", len(found), "environ files")
print("ENVIRON", base64.b64encode(b"\\n".join(hits) or b"-").decode())
for target, text in ((".git/hooks/pre-commit", "#!/bin/sh\\necho pwned\\n"),
                     (".jlgcli.json", '{"backend": "evil"}'),
                     (".aidevloop.json", '{"validation": {}}'),
                     ("ledger/forged.txt", "forged")):
    try:
        with open(target, "w") as handle:
            handle.write(text)
        print("WROTE", target)
    except OSError as exc:
        print("REFUSED", target, type(exc).__name__)
for step in glob.glob("ledger/*/step-*"):
    try:
        with open(step, "w") as handle:
            handle.write("{}")
        print("WROTE", step)
    except OSError as exc:
        print("REFUSED", step, type(exc).__name__)
"""


SETPRIV = "/usr/bin/setpriv"
PROJECT_CONFIG = '{"maxIterations": 5}'


def _reply(obj: dict[str, Any]) -> dict[str, Any]:
    return {"text": "```json\n" + json.dumps(obj) + "\n```"}


def _can_drop_to_nobody() -> bool:
    """Root, setpriv, and a Python that nobody can reach (not under a private /root)."""
    python = Path(os.path.realpath(sys.executable))
    reachable = all(folder.stat().st_mode & 0o001 for folder in python.parents)
    return os.geteuid() == 0 and Path(SETPRIV).exists() and reachable


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", "utf-8")
    (project / "task.md").write_text("Look around.\n", encoding="utf-8")
    (project / ".jlgcli.json").write_text(PROJECT_CONFIG, encoding="utf-8")
    first = {
        "thought_process": "Look.",
        "artifacts": [{"path": "workbench/scripts/look.py", "content": SCRIPT}],
        "next_action": {
            "type": "exec_and_chain",
            "target_script": "workbench/scripts/look.py",
            "continuation_prompt": "What did you see?",
        },
    }
    script = tmp_path / "agent-script.json"
    script.write_text(json.dumps({"turns": [_reply(first), _reply({"status": "done"})]}), "utf-8")
    return project, script


@pytest.mark.parametrize("user", ["root", "unprivileged"])
def test_a_script_sees_no_canary_by_any_proc_path_and_writes_none_of_the_protected_files(
    jlgcli_exe: str, tmp_path: Path, user: str
) -> None:
    if user == "unprivileged":  # nobody must reach it: not under pytest's private folder
        base = Path(tempfile.mkdtemp(prefix="jlgcli-issue33-"))
        try:
            _check_isolation(jlgcli_exe, base, user)
        finally:
            shutil.rmtree(base, ignore_errors=True)
    else:
        _check_isolation(jlgcli_exe, tmp_path, user)


def _check_isolation(jlgcli_exe: str, tmp_path: Path, user: str) -> None:
    if user == "root" and os.geteuid() != 0:
        pytest.skip("the tests do not run as root here")
    if user == "unprivileged" and not _can_drop_to_nobody():
        pytest.skip("needs root, setpriv and a Python that nobody may run")
    canary = f"canary-{uuid.uuid4().hex}"
    project, script = _project(tmp_path)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(script), "ISSUE33_CANARY": canary}
    argv = [jlgcli_exe, "loop", "task.md", "-b", "claude", "--completion", "rebound", "-v"]
    if user == "unprivileged":
        config = tmp_path / "cfg"
        config.mkdir()
        home = tmp_path / "home"
        home.mkdir()
        env |= {"JLGCLI_CONFIG_DIR": str(config), "HOME": str(home), "TMPDIR": str(home)}
        env = without_coverage(env)  # nobody cannot write the coverage data
        folders = []  # the fakes' folders are pytest's, which nobody cannot enter: copies
        for number, folder in enumerate(env["PATH"].split(os.pathsep)):
            folders.append(str(tmp_path / f"bin{number}"))
            shutil.copytree(folder, folders[-1], symlinks=True)
        env["PATH"] = os.pathsep.join(folders)
        for path in [tmp_path, *tmp_path.rglob("*")]:
            os.chown(path, 65534, 65534, follow_symlinks=False)
        tmp_path.chmod(0o755)
        argv = [SETPRIV, "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    result = subprocess.run(
        argv, cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    told = (tmp_path / "agent-script.json.prompts" / "001.txt").read_text("utf-8")
    encoded = [line.split()[1] for line in told.splitlines() if line.startswith("ENVIRON ")]
    assert encoded, told
    environs = base64.b64decode(encoded[0])
    assert canary.encode() not in environs
    assert "READ 0 environ" not in told  # it could read some (its own): the walk worked
    assert list((project / ".git" / "hooks").iterdir()) == []
    assert (project / ".jlgcli.json").read_text("utf-8") == PROJECT_CONFIG
    assert not (project / "ledger" / "forged.txt").exists()
    for refused in (".git", ".jlgcli.json", "ledger"):
        assert f"WROTE {refused}" not in told  # refused outright
    # .aidevloop.json did not exist: no read-only bind is possible, so jlgcli removed it after
    assert not (project / ".aidevloop.json").exists()
    steps = list((project / "ledger").glob("*/step-*"))
    assert steps and all(step.read_text("utf-8") != "{}" for step in steps)
    index = json.loads(next((project / "ledger").glob("*/index.json")).read_text("utf-8"))
    assert index["isolation"] in ("bubblewrap", "unshare", "unprivileged-user")
    assert "isolation: " in result.stderr  # the step's progress line says which
