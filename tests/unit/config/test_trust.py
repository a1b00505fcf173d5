"""Project trust (issue 15): a project's commands run only once its file is trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.backends.registry import UntrustedBackend, all_backends, get_backend
from jlgcli.config import require_trusted, resolve_settings
from jlgcli.config_write import trust_files, untrust_files
from jlgcli.errors import ExitCode, JlgError
from jlgcli.trust import CHANGED, TRUSTED, UNTRUSTED, project_files_to_trust, trust_state


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(tmp_path / "cfg"))
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    backends = {"mine": {"argv": ["cat"], "prompt": "stdin"}}
    (root / ".jlgcli.json").write_text(
        json.dumps({"maxIterations": 8, "backend": "mine", "backends": backends}), "utf-8"
    )
    return root


def test_untrusted_backends_are_marked_and_refused(project: Path) -> None:
    settings = resolve_settings(cwd=project / "sub")
    assert settings["maxIterations"] == 8 and settings["backend"] == "mine"  # keys still apply
    assert settings.untrusted_backends == {"mine": str(project / ".jlgcli.json")}
    for refuse in (
        lambda: require_trusted(settings, "mine"),
        lambda: get_backend("mine", custom=settings.custom_backends),
    ):
        with pytest.raises(JlgError) as info:
            refuse()
        assert info.value.code == ExitCode.CONFIG
        assert "jlgcli config trust" in (info.value.hint or "")
    require_trusted(settings, "claude")  # built-ins are never held back
    listed = all_backends(settings.custom_backends)[-1]
    assert isinstance(listed, UntrustedBackend)
    assert "not trusted" in listed.probe().detail


def test_trust_records_the_hash_and_a_change_revokes_it(project: Path) -> None:
    file = project / ".jlgcli.json"
    assert project_files_to_trust(project / "sub") == [file.resolve()]
    assert trust_state(file, {}) == UNTRUSTED
    trust_files([file])
    settings = resolve_settings(cwd=project / "sub")
    assert settings.untrusted_backends == {}
    assert get_backend("mine", custom=settings.custom_backends).id == "mine"
    file.write_text(file.read_text("utf-8").replace("cat", "tac"), "utf-8")
    settings = resolve_settings(cwd=project / "sub")
    with pytest.raises(JlgError, match="changed since you trusted it"):
        require_trusted(settings, "mine")
    user = json.loads((project.parent / "cfg" / "config.json").read_text("utf-8"))
    assert trust_state(file, user) == CHANGED
    trust_files([file])
    user = json.loads((project.parent / "cfg" / "config.json").read_text("utf-8"))
    assert trust_state(file, user) == TRUSTED
    assert untrust_files([file]) == [str(file.resolve())]
    assert "trustedProjects" not in json.loads(
        (project.parent / "cfg" / "config.json").read_text("utf-8")
    )


def test_a_project_file_cannot_trust_itself(project: Path) -> None:
    file = project / ".jlgcli.json"
    data = json.loads(file.read_text("utf-8"))
    data["trustedProjects"] = {str(file.resolve()): "sha256:whatever"}
    file.write_text(json.dumps(data), "utf-8")
    with pytest.raises(JlgError, match="unknown config key 'trustedProjects'"):
        resolve_settings(cwd=project)
