"""Every failure reading or writing the trail has its documented code (issue 31).

73 when the trail cannot be written, 65/66 for damaged input, 78 for a bad
config file; never 70 ("this is a bug" with a crash log). DESIGN "Decisions".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

script = fake_script


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Say done.\n", encoding="utf-8")
    return path


def user_config(data: object) -> None:
    import os

    folder = Path(os.environ["JLGCLI_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(data), encoding="utf-8")


def test_a_state_that_cannot_be_written_is_73_without_artifacts(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # issue 31: the state write (every loop, with or without --artifacts) crashed with 70
    (tmp_path / "blocker").write_text("a file where the runs folder should be", "utf-8")
    env = script(tmp_path, {"text": "ok\nDONE"})
    result = jlg("loop", str(task), "-b", "claude", "--artifacts-dir", "blocker/runs", env=env)
    assert result.returncode == 73, result.stderr
    assert "blocker" in result.stderr and "bug" not in result.stderr


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"timeoutMs": {}}, "timeoutMs"),
        ({"idleTimeoutMs": []}, "idleTimeoutMs"),
        ({"backends": {"mine": {"argv": ["mine"], "env": {"A=B": "c"}}}}, "backends.mine.env"),
    ],
)
def test_a_bad_user_config_value_is_78(
    jlg: Runner, task: Path, tmp_path: Path, config: object, named: str
) -> None:
    # issue 31: {"timeoutMs": {}} and a custom backend's "env": {"A=B": "c"} gave 70
    user_config(config)
    backend = "mine" if "backends" in json.dumps(config) else "claude"
    (tmp_path / "mine").write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    (tmp_path / "mine").chmod(0o755)
    env = script(tmp_path, {"text": "ok\nDONE"})
    env["PATH"] = f"{tmp_path}{__import__('os').pathsep}{__import__('os').environ['PATH']}"
    result = jlg("loop", str(task), "-b", backend, "-n", "1", env=env)
    assert result.returncode == 78, result.stderr
    assert named in result.stderr and "bug" not in result.stderr
