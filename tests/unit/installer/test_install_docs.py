"""The install docs (docs/install.md, the README) name only what the release produces (issue 9)."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOCS = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
README = ROOT / "README.md"
WORKFLOW = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
ASSET = re.compile(r"\bjlgcli[\w.-]*\.(?:zip|exe|json|sha256)\b|\bjlgcli-[\w-]+-onefile\b")
ONE_LINER = re.compile(r'powershell -ExecutionPolicy ByPass -c "irm (\S+) \| iex"')


def produced(release: ModuleType) -> set[str]:
    """Every asset name the release workflow attaches."""
    targets = set(re.findall(r"target: ([\w-]+)", WORKFLOW))
    names = {release.SETUP_NAME}
    for target in targets:
        names |= {release.zip_name(target), release.onefile_name(target)}
    names |= {f"{name}.sha256" for name in names}
    names |= set(re.findall(r"assets/(jlgcli[\w.-]+)", WORKFLOW))  # the manifests
    return names


def _asset_names(text: str) -> set[str]:
    return {n for n in ASSET.findall(text) if n not in ("jlgcli.exe", "jlgcli.json")}


def test_docs_name_only_real_assets(release: ModuleType) -> None:
    names = _asset_names(DOCS)
    assert {"jlgcli-setup.exe", "jlgcli-windows-x64.zip", "jlgcli.scoop.json"} <= names
    assert names <= produced(release), names - produced(release)


def test_docs_one_liner_is_the_scripts_own(release: ModuleType) -> None:
    script = (ROOT / "installer" / "install.ps1").read_text(encoding="utf-8")
    [url] = set(ONE_LINER.findall(DOCS))
    assert url == "https://github.com/OWNER/REPO/releases/latest/download/install.ps1"
    assert ONE_LINER.findall(script) == [url]
    assert "install.ps1" in {Path(p).name for p in release.INSTALL_SCRIPTS}


def test_docs_default_locations_match_the_installers() -> None:
    assert "%LOCALAPPDATA%\\Programs\\jlgcli" in DOCS
    assert "Join-Path $env:LOCALAPPDATA 'Programs\\jlgcli'" in (
        ROOT / "installer" / "install.ps1"
    ).read_text(encoding="utf-8")
    assert '"$LOCALAPPDATA\\Programs\\${APP}"' in (ROOT / "installer" / "jlgcli.nsi").read_text(
        encoding="utf-8"
    )


def test_readme_names_only_real_assets(release: ModuleType) -> None:
    if not README.exists():
        pytest.fail("README.md is missing")
    text = README.read_text(encoding="utf-8")
    assert _asset_names(text) <= produced(release), _asset_names(text) - produced(release)
    for url in ONE_LINER.findall(text):  # the README's Windows one-liner, when it has one
        assert url.endswith("/releases/latest/download/install.ps1")
