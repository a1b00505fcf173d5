"""A backend program that is found but cannot start ends the run cleanly (exit 1, why).

It was an internal error ("this is a bug") when subprocess raised for a script
whose ``#!`` interpreter is missing. Under ``setpriv`` (Linux) the same program
exits 127 with setpriv's "failed to execute"; either way the run says why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a #! script is a POSIX program")


def test_a_backend_whose_interpreter_is_missing_is_a_backend_error(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    agent = tmp_path / "agent"
    agent.write_text("#!/nonexistent/interpreter\necho hi\n", encoding="utf-8")
    agent.chmod(0o755)
    (tmp_path / "task.md").write_text("Say hi.\n", encoding="utf-8")
    config = {"backend": "broken", "backends": {"broken": {"argv": [str(agent)]}}}
    (tmp_path / ".jlgcli.json").write_text(json.dumps(config), encoding="utf-8")
    from jlgcli.config.write import trust_files  # the test's own project: trusted (issue 15)

    trust_files(
        [tmp_path / ".jlgcli.json"], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]}
    )
    done = subprocess.run(
        [jlgcli_exe, "run", "task.md", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr
    summary = json.loads(done.stdout)
    assert summary["stopCause"] == "backend-error"
    message = summary["error"]["message"]
    assert str(agent) in message
    assert "cannot start" in message or "failed to execute" in message
