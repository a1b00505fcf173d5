"""Project trust (issue 15): a project's commands run only once its file is trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.backends.registry import UntrustedBackend, all_backends, get_backend
from jlgcli.config.resolve import require_trusted, resolve_settings
from jlgcli.config.trust import CHANGED, TRUSTED, UNTRUSTED, project_files_to_trust, trust_state
from jlgcli.config.write import trust_files, untrust_files
from jlgcli.errors import ExitCode, JlgError


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


def test_the_bytes_hashed_are_the_bytes_parsed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 33: a second read (to hash) could see the trusted file while the first parsed another.
    file = project / ".jlgcli.json"
    trust_files([file])
    trusted = file.read_bytes()
    evil = trusted.replace(b'"cat"', b'"tac"')
    reads = iter([evil, trusted, trusted])
    original = Path.read_bytes

    def swapped(self: Path) -> bytes:
        return next(reads) if self.name == ".jlgcli.json" else original(self)

    monkeypatch.setattr(Path, "read_bytes", swapped)
    settings = resolve_settings(cwd=project)
    assert settings.custom_backends["mine"]["argv"] == ["tac"]
    assert settings.project_trust == CHANGED
    with pytest.raises(JlgError, match="changed since you trusted it"):
        require_trusted(settings, "mine")


def test_a_symlink_is_trusted_as_itself_not_through_its_target(project: Path) -> None:
    file = project / ".jlgcli.json"
    trust_files([file])
    other = project.parent / "other"
    other.mkdir()
    (other / ".jlgcli.json").symlink_to(file)
    assert project_files_to_trust(other) == [other.resolve() / ".jlgcli.json"]
    settings = resolve_settings(cwd=other)
    assert settings.untrusted_backends == {"mine": str(other.resolve() / ".jlgcli.json")}
    assert resolve_settings(cwd=project).untrusted_backends == {}


@pytest.mark.parametrize(
    ("program", "relative"),
    [
        ("./agent.sh", True),
        ("bin/agent", True),
        (r"..\agent.exe", True),
        ("C:agent.exe", False),  # no folder separator: looked up as a name
        (r"C:\tools\agent.exe", False),
        ("/usr/bin/agent", False),
        ("agent", False),
    ],
)
def test_relative_programs(program: str, relative: bool) -> None:
    from jlgcli.config.trust import is_relative_program

    assert is_relative_program(program) is relative


def test_a_trusted_files_relative_program_is_refused(project: Path) -> None:
    file = project / ".jlgcli.json"
    data = json.loads(file.read_text("utf-8"))
    data["backends"]["mine"]["argv"] = ["./agent.sh"]
    file.write_text(json.dumps(data), "utf-8")
    trust_files([file])
    settings = resolve_settings(cwd=project)
    with pytest.raises(JlgError, match="relative path") as info:
        require_trusted(settings, "mine")
    assert info.value.code == ExitCode.CONFIG
    assert "absolute path" in (info.value.hint or "")


def test_rebound_and_gates_from_the_project_need_trust(project: Path) -> None:
    from jlgcli.config.resolve import require_trusted_gates

    file = project / ".jlgcli.json"
    file.write_text(json.dumps({"completionMode": "rebound", "gates": ["true"]}), "utf-8")
    with pytest.raises(JlgError, match=r"gates.*and completionMode rebound"):
        require_trusted_gates(resolve_settings(cwd=project))
    trust_files([file])
    require_trusted_gates(resolve_settings(cwd=project))
    file.write_text(json.dumps({"completionMode": "json"}), "utf-8")
    require_trusted_gates(resolve_settings(cwd=project))  # runs nothing: no trust needed


@pytest.mark.parametrize(
    "data", [{"reboundNetwork": True}, {"reboundIsolation": "none"}, {"reboundIsolation": "best"}]
)
def test_a_project_setting_the_sandbox_needs_trust(project: Path, data: dict[str, object]) -> None:
    """Issue 46: a repository may not open the network, nor loosen a user's strict isolation."""
    from jlgcli.config.resolve import require_trusted_gates

    file = project / ".jlgcli.json"
    file.write_text(json.dumps(data), "utf-8")
    with pytest.raises(JlgError, match=r"rebound(Network|Isolation)") as info:
        require_trusted_gates(resolve_settings(cwd=project))
    assert info.value.code == ExitCode.CONFIG
    trust_files([file])
    require_trusted_gates(resolve_settings(cwd=project))


def test_the_sandbox_keys_from_the_user_or_env_need_no_trust(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLGCLI_REBOUND_ISOLATION", "strict")
    monkeypatch.setenv("JLGCLI_REBOUND_NETWORK", "true")
    settings = resolve_settings(cwd=project)
    assert settings["reboundIsolation"] == "strict" and settings["reboundNetwork"] is True
