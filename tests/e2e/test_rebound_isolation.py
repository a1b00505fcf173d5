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
import sys
import uuid
from pathlib import Path

import pytest
from support.reachable import NOBODY, Runtime, nobody_workspace
from support.rebound_turns import first_continuation, run_one_script, run_rebound_loop

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


PROJECT_CONFIG = '{"maxIterations": 5}'


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", "utf-8")
    (project / "task.md").write_text("Look around.\n", encoding="utf-8")
    (project / ".jlgcli.json").write_text(PROJECT_CONFIG, encoding="utf-8")
    script = run_one_script(tmp_path, "look.py", SCRIPT, thought="Look.")
    return project, script


def test_as_root_a_script_sees_no_canary_by_any_proc_path_nor_writes_protected_files(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the tests do not run as root here")
    _check_isolation([jlgcli_exe], tmp_path, None)


def test_as_nobody_a_script_sees_no_canary_by_any_proc_path_nor_writes_protected_files(
    system_bin: Path,
) -> None:
    with nobody_workspace(system_bin) as (runtime, folder):
        _check_isolation(runtime.jlgcli, folder, runtime)


def _check_isolation(jlgcli: list[str], tmp_path: Path, nobody: Runtime | None) -> None:
    canary = f"canary-{uuid.uuid4().hex}"
    project, script = _project(tmp_path)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(script), "ISSUE33_CANARY": canary}
    if nobody is not None:
        config = tmp_path / "cfg"
        config.mkdir()
        home = tmp_path / "home"
        home.mkdir()
        env |= {"JLGCLI_CONFIG_DIR": str(config), "HOME": str(home), "TMPDIR": str(home)}
    result = run_rebound_loop(jlgcli, project, env, nobody, tmp_path)
    assert result.returncode == 0, result.stderr
    told = first_continuation(tmp_path)
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
    if nobody is not None:  # jlgcli itself ran as nobody: it made the ledger
        assert (project / "ledger").stat().st_uid == NOBODY
