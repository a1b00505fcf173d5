"""A parser-free lint of install.ps1 / uninstall.ps1: what can be checked without pwsh (issue 9).

PowerShell is not installable here; the release workflow runs the scripts for
real on a Windows runner (installer/check-install.ps1). This checks what a text
scan can: delimiters balance, Windows PowerShell 5.1 can read and run them, no
admin, the PATH stays REG_EXPAND_SZ, the download is verified before use.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = ("install.ps1", "uninstall.ps1", "check-install.ps1")
PAIRS = {")": "(", "}": "{", "]": "["}


def code_of(text: str, *, keep_strings: bool = False) -> str:
    """The script with comments removed and string literals blanked to ``''`` (or kept).

    Knows ``#`` and ``<# #>`` comments, '...' (with ''), "..." (with a backtick
    escape) and @'...'@ / @"..."@ here-strings. Raises ValueError when a string
    or a block comment is not closed.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("<#", i):
            end = text.find("#>", i + 2)
            if end < 0:
                raise ValueError(f"unclosed <# comment at {i}")
            i = end + 2
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith(("@'", '@"'), i) and text[i + 2 : i + 3] in ("\n", "\r"):
            close = "\n" + text[i + 1] + "@"
            end = text.find(close, i + 2)
            if end < 0:
                raise ValueError(f"unclosed here-string at {i}")
            out.append(text[i : end + len(close)] if keep_strings else "''")
            i = end + len(close)
        elif c in "'\"":
            j = i + 1
            while True:
                if j >= n:
                    raise ValueError(f"unclosed string at {i}")
                if c == '"' and text[j] == "`":
                    j += 2
                    continue
                if text[j] == c:
                    if text[j + 1 : j + 2] == c:  # '' or "" inside the string
                        j += 2
                        continue
                    break
                j += 1
            out.append(text[i : j + 1] if keep_strings else "''")
            i = j + 1
        elif c == "`":  # line continuation or escaped character outside strings
            out.append(" ")
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_balanced(code: str) -> None:
    stack: list[tuple[str, int]] = []
    for line_no, line in enumerate(code.splitlines(), 1):
        for c in line:
            if c in "({[":
                stack.append((c, line_no))
            elif c in PAIRS:
                if not stack or stack[-1][0] != PAIRS[c]:
                    raise ValueError(f"unbalanced {c!r} on line {line_no}")
                stack.pop()
    if stack:
        raise ValueError(f"unclosed {stack[-1][0]!r} from line {stack[-1][1]}")


def _text(name: str) -> str:
    return (ROOT / "installer" / name).read_text(encoding="utf-8").replace("\r\n", "\n")


def _statements(name: str) -> str:
    """The script without its comments (strings kept)."""
    return code_of(_text(name), keep_strings=True)


# -- the lint's own tokenizer, so a passing lint means something ------------------------


def test_code_of_blanks_strings_and_drops_comments() -> None:
    text = "$a = 'it''s (' # a ( comment\n<# ( #>$b = \"x `\" (\"\n$c = @'\n(\n'@\n"
    assert code_of(text) == "$a = '' \n$b = ''\n$c = ''\n"


@pytest.mark.parametrize("bad", ["$a = 'open", '$a = "open', "<# open", "@'\nopen"])
def test_code_of_refuses_unclosed_things(bad: str) -> None:
    with pytest.raises(ValueError, match="unclosed"):
        code_of(bad)


@pytest.mark.parametrize("bad", ["if ($a) { $b ", "$a = @(1, 2))", "$h[0}"])
def test_check_balanced_finds_mismatches(bad: str) -> None:
    with pytest.raises(ValueError):
        check_balanced(bad)


# -- every script --------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCRIPTS)
def test_delimiters_balance(name: str) -> None:
    check_balanced(code_of(_text(name)))


@pytest.mark.parametrize("name", SCRIPTS)
def test_windows_powershell_5_can_read_it(name: str) -> None:
    # Without a BOM, Windows PowerShell 5.1 reads a script in the ANSI code page.
    assert _text(name).isascii()
    code = code_of(_text(name))
    for token in ("&&", "||", "??", "?."):  # PowerShell 7 only
        assert token not in code, token
    assert not re.search(r"\?\s*\S+\s*:", code.replace("::", "")), "ternary is PowerShell 7 only"


@pytest.mark.parametrize("name", SCRIPTS)
def test_strict_and_stop_on_errors(name: str) -> None:
    code = code_of(_text(name))
    assert re.search(r"^\s*Set-StrictMode -Version Latest$", code, re.MULTILINE)
    assert "$ErrorActionPreference = ''" in code  # value blanked; checked below on the text
    assert "$ErrorActionPreference = 'Stop'" in _text(name)


@pytest.mark.parametrize("name", ["install.ps1", "uninstall.ps1"])
def test_no_admin_and_user_scope_only(name: str) -> None:
    text = _text(name)
    code = code_of(text)
    assert "#Requires -RunAsAdministrator" not in text
    assert not re.search(r"HKLM|LocalMachine|'Machine'|RunAs", text)
    assert "Registry]::CurrentUser" in code
    assert "HKCU:" in text


@pytest.mark.parametrize("name", ["install.ps1", "uninstall.ps1"])
def test_path_stays_reg_expand_sz(name: str) -> None:
    text = _statements(name)
    assert "RegistryValueOptions]::DoNotExpandEnvironmentNames" in text  # raw value in
    assert "RegistryValueKind]::ExpandString" in text  # REG_EXPAND_SZ out
    # The classic trap: writes the expanded process PATH back as REG_SZ.
    assert not re.search(r"SetEnvironmentVariable\(\s*['\"]Path['\"]", text, re.IGNORECASE)
    assert not re.search(r"Set-ItemProperty[^\n]*-Name\s+['\"]?Path", text, re.IGNORECASE)
    assert not re.search(r"\bsetx\b", code_of(text), re.IGNORECASE)
    # ...and running programs hear about the change (WM_SETTINGCHANGE).
    assert re.search(r"SetEnvironmentVariable\('JLGCLI_INSTALLER_REFRESH', '1', 'User'\)", text)


# -- install.ps1 ---------------------------------------------------------------------------


def _function(code: str, name: str) -> str:
    start = code.index(f"function {name}")
    depth, i = 0, code.index("{", start)
    for j in range(i, len(code)):
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        if depth == 0:
            return code[i : j + 1]
    raise AssertionError(f"function {name} does not end")


def test_install_verifies_the_sha256_before_unpacking() -> None:
    text = _text("install.ps1")
    assert "Get-FileHash -LiteralPath $Path -Algorithm SHA256" in text
    body = _function(_statements("install.ps1"), "Install-Jlgcli")
    assert body.index("Assert-Sha256 $zip $expected") < body.index("Expand-Archive")
    assert body.count("Invoke-WebRequest") == 2  # the zip and its .sha256
    assert all(
        "-UseBasicParsing" in line for line in body.splitlines() if "Invoke-WebRequest" in line
    )


def test_install_is_safe_under_irm_iex() -> None:
    code = code_of(_text("install.ps1"))
    assert not re.search(r"\bexit\b", code, re.IGNORECASE)  # would close the user's window
    assert not re.search(r"Invoke-Expression|\biex\b", code, re.IGNORECASE)
    # Strict mode is set inside the function, not in the user's own session.
    assert "Set-StrictMode" in _function(code, "Install-Jlgcli")
    assert code.rstrip().endswith("Install-Jlgcli")


def test_install_defaults_and_settings() -> None:
    text = _text("install.ps1")
    assert "Join-Path $env:LOCALAPPDATA 'Programs\\jlgcli'" in text
    for variable in (
        "JLGCLI_VERSION",
        "JLGCLI_INSTALL_DIR",
        "JLGCLI_REPO",
        "JLGCLI_NO_MODIFY_PATH",
    ):
        assert variable in text
    assert re.search(r"^\$DefaultRepo = '[\w.-]+/[\w.-]+'$", text, re.MULTILINE)
    assert re.search(r"^\$DefaultVersion = 'latest'$", text, re.MULTILINE)
    assert "$AssetName = 'jlgcli-windows-x64.zip'" in text
    assert "Tls12" in text
    assert not re.search(r"http://", text)
    for param in ("Version", "InstallDir", "ArchivePath", "Sha256", "NoModifyPath"):
        assert f".PARAMETER {param}" in text
    assert "Next steps" in text


def test_install_replaces_only_the_program() -> None:
    text = _text("install.ps1")
    assert "$ProgramItems = @('_internal', 'jlgcli.exe', 'uninstall.ps1')" in text
    body = _function(_statements("install.ps1"), "Install-Jlgcli")
    assert not re.search(r"Remove-Item -LiteralPath \$dir\b", body)


def test_an_upgrade_refuses_while_jlgcli_runs_before_changing_anything() -> None:
    # issue 47: deleting _internal under a running jlgcli.exe left it half-deleted.
    body = _function(_statements("install.ps1"), "Install-Jlgcli")
    assert body.index("Assert-NotRunning $dir") < body.index("Invoke-WebRequest")
    assert body.index("Assert-NotRunning $dir") < body.index("Install-ProgramFile")
    check = _function(_statements("install.ps1"), "Get-RunningCopy")
    assert "Get-Process -Name 'jlgcli'" in check and "-ieq $exe" in check
    refusal = _function(_text("install.ps1"), "Assert-NotRunning")
    assert "Nothing was changed" in refusal


def test_an_upgrade_swaps_the_program_in_by_renames_and_rolls_back() -> None:
    swap = _function(_statements("install.ps1"), "Install-ProgramFile")
    # The new program is staged first; the old one is only ever moved, never deleted, until
    # the new one is in place.
    assert swap.index("Copy-Item") < swap.index("Move-Item")
    before_swap = swap[: swap.index("} catch {")]
    assert "Remove-Item" not in before_swap
    rollback = swap[swap.index("} catch {") :]
    assert "$movedAside" in rollback and "$movedIn" in rollback and "throw" in rollback
    body = _function(_statements("install.ps1"), "Install-Jlgcli")
    assert "Install-ProgramFile $source $dir" in body
    assert not re.search(r"Remove-Item -LiteralPath \$target", body)


def test_uninstall_refuses_while_jlgcli_runs() -> None:
    code = _statements("uninstall.ps1")
    check = code.index("Get-Process -Name 'jlgcli'")
    assert (
        check < code.index("Remove-UserPath $dir") < code.index("Remove-Item -LiteralPath $target")
    )
    assert "Nothing was changed" in code[check:]


def test_uninstall_removes_only_the_program() -> None:
    text = _text("uninstall.ps1")
    assert "@('jlgcli.exe', '_internal', 'uninstall.exe', 'uninstall.ps1')" in text
    # The folder itself goes only when nothing else is left in it.
    assert "-not (Get-ChildItem -LiteralPath $dir -Force)" in text
    assert "Remove-Item -LiteralPath $UninstallKey" in text
