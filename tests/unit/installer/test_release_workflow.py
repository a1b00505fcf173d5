""".github/workflows/release.yml, validated offline (issue 9).

Schema: check-jsonschema's vendored GitHub-workflow schema (no network). The
rest reads the YAML: the jobs the issue asks for, pinned actions, no template
expansion inside scripts, and only files that exist.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.environ import tool_environ

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
CHECK_JSONSCHEMA = Path(
    shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or "check-jsonschema"
)


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    loaded: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return loaded


def _steps(workflow: dict[str, Any], job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = workflow["jobs"][job]["steps"]
    return steps


def _scripts(workflow: dict[str, Any], job: str) -> str:
    return "\n".join(str(step.get("run", "")) for step in _steps(workflow, job))


@pytest.mark.skipif(not CHECK_JSONSCHEMA.exists(), reason="check-jsonschema is not installed")
def test_matches_the_github_workflow_schema() -> None:
    result = subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True, text=True, timeout=120, env=tool_environ(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_runs_on_a_version_tag(workflow: dict[str, Any]) -> None:
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1: on == True
    assert triggers["push"]["tags"] == ["v*"]
    assert "workflow_dispatch" in triggers


def test_builds_on_windows_macos_and_linux(workflow: dict[str, Any], release: ModuleType) -> None:
    include = workflow["jobs"]["build"]["strategy"]["matrix"]["include"]
    systems = {entry["os"].split("-")[0] for entry in include}
    assert systems == {"windows", "macos", "ubuntu"}
    targets = {entry["target"] for entry in include}
    assert release.WINDOWS_TARGET in targets
    for target in targets:  # every target is one release.py can name
        system, machine = target.split("-")
        assert release.target_name({"macos": "darwin"}.get(system, system), machine) == target


def test_build_freezes_smoke_tests_zips_and_installs(workflow: dict[str, Any]) -> None:
    scripts = _scripts(workflow, "build")
    order = ["installer/freeze.py --onefile", "pytest tests/frozen -m frozen",
             "installer/release.py package", "installer/install.sh --archive",
             "./installer/check-install.ps1 -Zip"]  # fmt: skip
    positions = [scripts.index(fragment) for fragment in order]
    assert positions == sorted(positions)
    smoke = next(s for s in _steps(workflow, "build") if "tests/frozen" in str(s.get("run", "")))
    assert smoke["env"]["JLGCLI_FROZEN_TESTS"] == "1"
    assert "installer/requirements-freeze.txt" in scripts
    ps = next(s for s in _steps(workflow, "build") if "check-install.ps1" in str(s.get("run", "")))
    assert ps["shell"] == "powershell"  # Windows PowerShell 5.1, what users have
    tag_check = next(
        s for s in _steps(workflow, "build") if "check-version" in str(s.get("run", ""))
    )
    assert "refs/tags/" in tag_check["if"]


def test_setup_program_is_built_and_tested(workflow: dict[str, Any]) -> None:
    assert "apt-get install -y -qq nsis" in _scripts(workflow, "setup")
    assert "installer/release.py setup" in _scripts(workflow, "setup")
    assert workflow["jobs"]["test-setup"]["runs-on"] == "windows-latest"
    assert "check-install.ps1 -Setup" in _scripts(workflow, "test-setup")


def test_publish_attaches_everything_with_checksums(workflow: dict[str, Any]) -> None:
    publish = workflow["jobs"]["publish"]
    assert set(publish["needs"]) == {"build", "python-dist", "setup", "test-setup"}
    assert publish["if"].startswith("startsWith(github.ref, 'refs/tags/v')")
    scripts = _scripts(workflow, "publish")
    for fragment in ("release.py stamp", "release.py manifests", "release.py sums",
                     "gh release create", "gh release upload"):  # fmt: skip
        assert fragment in scripts


def test_least_privilege(workflow: dict[str, Any]) -> None:
    assert workflow["permissions"] == {"contents": "read"}
    writers = [name for name, job in workflow["jobs"].items() if "permissions" in job]
    assert writers == ["publish", "pypi"]
    assert workflow["jobs"]["publish"]["permissions"] == {"contents": "write"}
    assert workflow["jobs"]["pypi"]["permissions"] == {"id-token": "write"}


def test_actions_are_pinned_to_a_commit(workflow: dict[str, Any]) -> None:
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


def test_no_template_expansion_inside_scripts(workflow: dict[str, Any]) -> None:
    # Values reach scripts through env: (template injection, STYLE habit 12).
    for name in workflow["jobs"]:
        assert "${{" not in _scripts(workflow, name), name


def test_every_installer_file_it_names_exists() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    for path in set(re.findall(r"installer/[\w.-]+", text)):
        assert (ROOT / path).is_file(), path


def test_the_wheel_is_built_tried_and_published_to_pypi(workflow: dict[str, Any]) -> None:
    # issue 19 item 1: `pip install jlgcli` needs the package on PyPI; trusted publishing
    # (OIDC in a protected environment, no token) after the GitHub release exists.
    scripts = _scripts(workflow, "python-dist")
    order = ["python -m build", "pip install dist/*.whl", 'jlgcli" demo']
    positions = [scripts.index(fragment) for fragment in order]
    assert positions == sorted(positions)
    pypi = workflow["jobs"]["pypi"]
    assert pypi["if"].startswith("startsWith(github.ref, 'refs/tags/v')")
    assert set(pypi["needs"]) == {"python-dist", "publish"}
    assert pypi["environment"]["name"] == "pypi"
    assert pypi["runs-on"].startswith("ubuntu")  # a container action
    uses = [str(step.get("uses", "")) for step in pypi["steps"]]
    assert uses[-1].startswith("pypa/gh-action-pypi-publish@")
    assert not any("password" in step.get("with", {}) for step in pypi["steps"])
