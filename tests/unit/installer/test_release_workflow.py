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
from fnmatch import fnmatch
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
    steps: list[dict[str, Any]] = workflow["jobs"][job].get("steps", [])  # none: a called workflow
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


def _triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    triggers: dict[str, Any] = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1
    return triggers


def test_runs_on_a_release_tag_and_not_on_the_major_tag_it_moves(workflow: dict[str, Any]) -> None:
    # issue 35: pushing v1 would have started this workflow, and failed its version check
    triggers = _triggers(workflow)
    assert triggers["push"]["tags"] == ["v*.*.*"]
    assert "workflow_dispatch" in triggers
    matches = [tag for tag in ("v1", "v1.2.3", "v0.1.0", "v10") if fnmatch(tag, "v*.*.*")]
    assert matches == ["v1.2.3", "v0.1.0"]


def test_builds_every_target_the_install_scripts_name(
    workflow: dict[str, Any], release: ModuleType
) -> None:
    # issue 35: only macos-arm64 and linux-x64 were built; install.sh 404'd elsewhere
    include = workflow["jobs"]["build"]["strategy"]["matrix"]["include"]
    runners = {entry["target"]: entry["os"] for entry in include}
    assert runners == {
        "windows-x64": "windows-latest", "macos-x64": "macos-15-intel",
        "macos-arm64": "macos-latest", "linux-x64": "ubuntu-22.04",
        "linux-arm64": "ubuntu-22.04-arm",
    }  # fmt: skip
    targets = set(runners)
    assert release.WINDOWS_TARGET in targets
    for target in targets:  # every target is one release.py can name
        system, machine = target.split("-")
        assert release.target_name({"macos": "darwin"}.get(system, system), machine) == target


def test_build_freezes_smoke_tests_zips_and_installs(workflow: dict[str, Any]) -> None:
    scripts = _scripts(workflow, "build")
    order = ["installer/freeze.py --onefile", "pytest tests/frozen -m frozen",
             "installer/release.py package", "installer/first_minute.py --exe",
             "installer/install.sh --print-target", "installer/install.sh --archive",
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
    assert set(publish["needs"]) == {"tests", "build", "python-dist", "setup", "test-setup"}
    assert publish["if"].startswith("startsWith(github.ref, 'refs/tags/v')")
    scripts = _scripts(workflow, "publish")
    for fragment in ("release.py stamp", "release.py manifests", "release.py sums",
                     "release.py notes", "--notes-file notes.md",
                     "gh release create", "gh release upload"):  # fmt: skip
        assert fragment in scripts


def test_the_suite_runs_before_anything_is_published(workflow: dict[str, Any]) -> None:
    # issue 35: the release did not run the test suite first
    assert workflow["jobs"]["tests"]["uses"] == "./.github/workflows/ci.yml"
    yaml = pytest.importorskip("yaml")
    ci = yaml.safe_load((WORKFLOW.parent / "ci.yml").read_text(encoding="utf-8"))
    assert "workflow_call" in _triggers(ci)
    for job in ("publish", "pypi"):  # pypi needs publish, which needs the tests
        needs = workflow["jobs"][job]["needs"]
        assert "tests" in needs or "publish" in needs


def test_the_release_job_moves_the_major_tag_through_the_api(workflow: dict[str, Any]) -> None:
    # issue 35: `uses: OWNER/REPO@v1` had no v1 tag producer
    step = next(s for s in _steps(workflow, "publish") if "major-tag" in str(s.get("run", "")))
    script = str(step["run"])
    assert "release.py major-tag --tag" in script and 'sha="$GITHUB_SHA"' in script
    assert "refs/tags/$major" in script and "force=true" in script
    assert "git push" not in script  # no credentials in the checkout (persist-credentials)
    assert step["env"]["GH_TOKEN"] == "${{ github.token }}"


def test_least_privilege(workflow: dict[str, Any]) -> None:
    assert workflow["permissions"] == {"contents": "read"}
    writers = [name for name, job in workflow["jobs"].items() if "permissions" in job]
    assert writers == ["publish", "pypi"]
    assert workflow["jobs"]["publish"]["permissions"] == {"contents": "write"}
    assert workflow["jobs"]["pypi"]["permissions"] == {"id-token": "write"}


def test_actions_are_pinned_to_a_commit(workflow: dict[str, Any]) -> None:
    for job in workflow["jobs"].values():
        for step in job.get("steps", []):
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


@pytest.mark.parametrize("name", ["release.yml", "ci.yml"])
def test_no_checkout_keeps_the_token_and_nothing_published_comes_from_a_cache(name: str) -> None:
    # issue 38: zizmor's artipacked and cache-poisoning findings (.ci/run runs zizmor itself)
    yaml = pytest.importorskip("yaml")
    loaded = yaml.safe_load((WORKFLOW.parent / name).read_text(encoding="utf-8"))
    for job in loaded["jobs"].values():
        for step in job.get("steps", []):
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
            if name == "release.yml" and str(step.get("uses", "")).startswith("actions/setup-"):
                assert "cache" not in step.get("with", {})


def test_ci_meets_the_windows_exe_as_a_user_does() -> None:
    # issue 35: the exe and its first minute were only ever tried on Linux here
    yaml = pytest.importorskip("yaml")
    ci = yaml.safe_load((WORKFLOW.parent / "ci.yml").read_text(encoding="utf-8"))
    exe = ci["jobs"]["exe"]
    assert exe["runs-on"] == "windows-latest"
    scripts = [str(step.get("run", "")) for step in exe["steps"]]
    first_minute = "python installer/first_minute.py --exe dist/jlgcli/jlgcli.exe"
    assert scripts[-2:] == ["python installer/freeze.py", first_minute]
    assert "lint" in ci["jobs"] and "mypy --platform win32" in str(ci["jobs"]["lint"]["steps"])
