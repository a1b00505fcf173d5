"""Lexical path safety (REQ_AUTO_040): every escape spelling is refused, on every OS."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.rebound.paths import (
    MAX_COMPONENT_BYTES,
    MAX_PATH_CHARS,
    check_relative_path,
    component_problem,
    path_within,
)


@pytest.mark.parametrize(
    ("raw", "parts"),
    [
        ("a.txt", ("a.txt",)),
        ("workbench/scripts/run.py", ("workbench", "scripts", "run.py")),
        ("./src//pkg/./mod.py", ("src", "pkg", "mod.py")),
        ("workbench\\scripts\\win.py", ("workbench", "scripts", "win.py")),
        ("docs/été.md", ("docs", "été.md")),
        (".github/workflows/ci.yml", (".github", "workflows", "ci.yml")),
        ("a/.hidden", ("a", ".hidden")),
        ("con_notes.txt", ("con_notes.txt",)),  # a reserved name only when it is the stem
        ("console.py", ("console.py",)),
        ("a~b.txt", ("a~b.txt",)),
    ],
)
def test_plain_relative_paths_are_accepted_and_normalised(raw: str, parts: tuple[str, ...]) -> None:
    verdict = check_relative_path(raw)
    assert verdict.ok, verdict.reason
    assert verdict.parts == parts
    assert verdict.relpath == "/".join(parts)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (".", "empty"),
        ("./", "empty"),
        ("/etc/passwd", "absolute"),
        ("/tmp/x.py", "absolute"),
        ("\\Windows\\x.py", "absolute"),
        ("C:\\Windows\\system32\\x.py", "drive letter"),
        ("c:x.py", "drive letter"),
        ("C:/x.py", "drive letter"),
        ("\\\\server\\share\\x.py", "UNC"),
        ("//server/share/x.py", "UNC"),
        ("\\\\?\\C:\\x.py", "UNC"),
        ("\\\\.\\pipe\\x", "UNC"),
        ("../x.py", "parent directory"),
        ("workbench/scripts/../../src/x.py", "parent directory"),
        ("a\\..\\..\\x", "parent directory"),
        ("a/.../b", "dots-only"),
        ("~/x.py", "home-relative"),
        ("~root/x", "home-relative"),
        ("a\x00b.py", "NUL"),
        ("a\nb.py", "control"),
        ("a\u200bb.py", "control"),  # zero-width space: HFS+ ignores it
        (".g\u200cit/config", "control"),
        ("CON", "reserved"),
        ("con.txt", "reserved"),
        ("workbench/scripts/NUL.py", "reserved"),
        ("COM1", "reserved"),
        ("lpt9.log", "reserved"),
        ("COM¹.txt", "reserved"),
        ("Aux .txt", "reserved"),
        ("conin$", "reserved"),
        ("name.", "trailing dot"),
        ("name ", "trailing dot or space"),
        ("dir./x.py", "trailing dot"),
        (" lead", "leading space"),
        ("file.py:stream", "not allowed"),
        ("file::$DATA", "not allowed"),
        ("a|b", "not allowed"),
        ("a?b", "not allowed"),
        ("GIT~1/hooks/pre-commit", "8.3"),
        ("WORKBE~1/scripts/x.py", "8.3"),
        (".git/hooks/pre-commit", ".git"),
        (".GIT/config", ".git"),
        ("sub/.Git/config", ".git"),
        ("\uff0e\uff0e/x.py", "parent directory (..) (after Unicode normalisation)"),
        ("\uff23\uff2f\uff2e", "reserved"),  # fullwidth CON
        ("a\u2215b", "separator look-alike"),  # NFKC of U+2215 is not "/", but check fullwidth:
        ("a\uff0fb", "separator look-alike"),  # fullwidth solidus → "/"
        ("x" * (MAX_COMPONENT_BYTES + 1), "longer than"),
        ("a/" * (MAX_PATH_CHARS // 2 + 1), "longer than"),
    ],
)
def test_escape_spellings_are_refused(raw: str, why: str) -> None:
    if raw == "a\u2215b":  # U+2215 DIVISION SLASH is not folded by NFKC: a plain name
        assert check_relative_path(raw).ok
        return
    verdict = check_relative_path(raw)
    assert not verdict.ok
    assert why.lower() in (verdict.reason or "").lower()
    assert verdict.parts == ()
    assert verdict.relpath == ""


def test_component_problem_reports_the_normalised_form() -> None:
    assert component_problem("ok.py") is None
    assert component_problem("\uff0e\uff0e") == (
        "parent directory (..) (after Unicode normalisation)"
    )


def _within(child: str, parent: str, *, strict: bool, windows: bool) -> bool:
    cls = PureWindowsPath if windows else PurePosixPath
    return path_within(cls(child), cls(parent), strict=strict, is_windows=windows)


def test_path_within_posix_is_case_sensitive() -> None:
    root = "/p/workbench/scripts"
    assert _within("/p/workbench/scripts/a.py", root, strict=True, windows=False)
    assert not _within("/p/WORKBENCH/scripts/a.py", root, strict=True, windows=False)
    assert not _within(root, root, strict=True, windows=False)
    assert _within(root, root, strict=False, windows=False)
    assert not _within("/p/workbench/scriptsX/a.py", root, strict=False, windows=False)
    assert not _within("/p", root, strict=False, windows=False)


def test_path_within_windows_folds_case() -> None:
    root = "C:\\Proj\\workbench\\scripts"
    assert _within("c:\\proj\\WORKBENCH\\Scripts\\a.py", root, strict=True, windows=True)
    assert not _within("D:\\proj\\workbench\\scripts\\a.py", root, strict=True, windows=True)
    assert not _within("C:\\Proj\\workbench\\a.py", root, strict=False, windows=True)


# -- properties -------------------------------------------------------------------------

_ALPHABET = st.sampled_from(
    [*"ab.~: /\\\x00C:ONUL1\u200b\uff0e\uff0f$*?|<>\"' ", "..", "con", "git"]
)
_RAW = st.lists(_ALPHABET, max_size=24).map("".join) | st.text(max_size=40)


@given(_RAW)
def test_accepted_paths_never_escape(raw: str) -> None:
    """Whatever the spelling, an accepted path stays strictly below its root (REQ_AUTO_040)."""
    verdict = check_relative_path(raw)
    if not verdict.ok:
        assert verdict.reason
        return
    root = PurePosixPath("/root/project")
    joined = root.joinpath(*verdict.parts)
    assert path_within(joined, root, strict=True, is_windows=False)
    win_root = PureWindowsPath("C:\\project")
    win_joined = win_root.joinpath(*verdict.parts)
    assert win_joined.drive == "C:" and win_joined.is_absolute()
    assert path_within(win_joined, win_root, strict=True, is_windows=True)
    for part in verdict.parts:
        assert part not in ("", ".", "..")
        assert not set(part) & set('/\\:\x00<>"|?*')
        assert part.split(".")[0].upper() not in ("CON", "PRN", "AUX", "NUL")


@given(st.lists(st.sampled_from(["a", "b", "..", ".", ""]), min_size=1, max_size=8))
def test_dot_dot_anywhere_is_refused(parts: list[str]) -> None:
    verdict = check_relative_path("/".join(parts))
    if ".." in parts:
        assert not verdict.ok
    else:
        absolute = parts[0] == "" and len(parts) > 1
        assert verdict.ok == (not absolute and any(p in ("a", "b") for p in parts))


# --- issue 15: jlgcli's own files and .git, in every spelling the file system merges ----


@pytest.mark.parametrize(
    "raw",
    [
        ".jlgcli.json", ".JLGCLI.JSON", "sub/dir/.jlgcli.json", ".jlgcli/runs/x/result.json",
        ".Jlgcli/config", ".aidevloop.json", ".AIDEVLOOP.yaml", ".aidevloop/x",
        ".git/config", ".GIT/hooks/pre-commit", ".git./config", ".git /config", "GIT~1/config",
        "./.git/../.git/config", ".jlgcli.json::$DATA", ".jlgcli.json.", ".jlgcli.json ",
        "src\\.git\\HEAD", "．jlgcli.json",
    ],
)  # fmt: skip
def test_jlgcli_files_and_git_are_refused_in_every_spelling(raw: str) -> None:
    assert not check_relative_path(raw).ok


@pytest.mark.parametrize("raw", [".gitignore", ".jlgcliignore", "docs/jlgcli.json", "x.aidevloop"])
def test_neighbours_of_protected_names_are_fine(raw: str) -> None:
    assert check_relative_path(raw).ok


def test_protected_parts_catches_a_resolved_path() -> None:
    from jlgcli.rebound.paths import protected_parts

    assert protected_parts(("sub", ".JLGCLI", "runs")) is not None
    assert protected_parts(("sub", "ok.py")) is None
