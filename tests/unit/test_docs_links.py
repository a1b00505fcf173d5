"""What a first-time reader follows: links that resolve and one repository placeholder (issue 19
item 1)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("examples/**/*.md")])
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
PLACEHOLDER = "OWNER/REPO"
# Where a reader meets the repository's name: docs, snippets, install scripts.
NAMED_REPOSITORY = [
    *PAGES,
    ROOT / ".pre-commit-hooks.yaml",
    ROOT / "action.yml",
    ROOT / "installer" / "install.sh",
    ROOT / "installer" / "install.ps1",
]
OWN_REPOSITORY = re.compile(r"github\.com/([\w.<>-]+/[\w.<>-]+)|uses: ([\w.<>-]+/[\w.<>-]+)@")
THIRD_PARTY = ("actions/", "pypa/", "microsoft/winget-pkgs", "./", "gitleaks/", "Yelp/")


def relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    text = re.sub(r"(`+).+?\1", "", text)  # inline code shows a link, it is not one
    targets = [m.group(1) for m in LINK.finditer(text)]
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:|#", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    missing = [
        target
        for target in relative_links(page)
        if not (page.parent / unquote(target.split("#", 1)[0])).exists()
    ]
    assert missing == [], f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[a](there.md) [b](https://x.org) [c](#top) `[d](no.md)`\n", encoding="utf-8")
    assert relative_links(page) == ["there.md"]


@pytest.mark.parametrize("path", NAMED_REPOSITORY, ids=lambda p: str(p.relative_to(ROOT)))
def test_one_placeholder_names_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    names = {a or b for a, b in OWN_REPOSITORY.findall(text)}
    others = {name for name in names if name != PLACEHOLDER and not name.startswith(THIRD_PARTY)}
    assert others == set(), f"{path.relative_to(ROOT)}: use {PLACEHOLDER}, not {others}"
    assert "<owner>" not in text


def test_the_readme_says_what_to_replace() -> None:
    install = (ROOT / "README.md").read_text(encoding="utf-8").split("## Install", 1)[1]
    assert f"`{PLACEHOLDER}` below" in install.split("\n## ", 1)[0]


def test_pypi_is_not_promised_before_a_release() -> None:
    # `pip install jlgcli` fails until a release is on PyPI: each page that says it also
    # gives the form that works from the repository.
    for page in (ROOT / "README.md", ROOT / "docs" / "install.md", ROOT / "docs" / "doors.md"):
        text = page.read_text(encoding="utf-8")
        if re.search(r"pip(?:x)? install \"?jlgcli\b(?!\[invoke\] @)", text):
            assert f"git+https://github.com/{PLACEHOLDER}" in text, page.name


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
def test_an_unstamped_install_sh_refuses_the_placeholder(tmp_path: Path) -> None:
    result = subprocess.run(
        ["sh", str(ROOT / "installer" / "install.sh"), "--prefix", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode != 0
    assert "not a release's copy" in result.stderr
    assert "--repo" in result.stderr
