"""jlgcli.frozen: what the PyInstaller exe changes so that it behaves like the package (issue 9)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli import frozen
from jlgcli.frozen import apply_python_io_environment, child_environment, sanitize_process

BUNDLE = "/opt/jlgcli/_internal"
WIN_BUNDLE = r"C:\Users\Ann\AppData\Local\Programs\jlgcli\_internal"


def test_linux_restores_the_users_library_path() -> None:
    env = {"LD_LIBRARY_PATH": f"{BUNDLE}:/opt/user/lib", "LD_LIBRARY_PATH_ORIG": "/opt/user/lib",
           "_PYI_ARCHIVE_FILE": "/opt/jlgcli/jlgcli", "_PYI_PARENT_PROCESS_LEVEL": "-1",
           "HOME": "/home/ann"}  # fmt: skip
    assert child_environment(env, bundle_dir=BUNDLE, platform="linux") == {
        "LD_LIBRARY_PATH": "/opt/user/lib",
        "HOME": "/home/ann",
    }


def test_linux_drops_a_library_path_the_bootloader_created() -> None:
    env = {"LD_LIBRARY_PATH": BUNDLE, "PATH": "/usr/bin"}
    assert child_environment(env, bundle_dir=BUNDLE, platform="linux") == {"PATH": "/usr/bin"}


def test_aix_uses_libpath() -> None:
    env = {"LIBPATH": f"{BUNDLE}:/u", "LIBPATH_ORIG": "/u"}
    assert child_environment(env, bundle_dir=BUNDLE, platform="aix7") == {"LIBPATH": "/u"}


def test_macos_keeps_ld_library_path_but_drops_bundle_entries() -> None:
    env = {"LD_LIBRARY_PATH": "/u", "DYLD_LIBRARY_PATH": f"{BUNDLE}/lib:/v",
           "PATH": f"{BUNDLE}:/usr/bin"}  # fmt: skip
    assert child_environment(env, bundle_dir=BUNDLE, platform="darwin") == {
        "LD_LIBRARY_PATH": "/u",
        "DYLD_LIBRARY_PATH": "/v",
        "PATH": "/usr/bin",
    }


def test_windows_path_entries_match_without_case_or_slash_differences() -> None:
    lower = "c:/users/ann/appdata/local/programs/jlgcli/_internal"
    path = f"{WIN_BUNDLE.upper()}\\winpty;{lower};C:\\Windows"
    env = {"PATH": path, "_PYI_APPLICATION_HOME_DIR": WIN_BUNDLE}
    assert child_environment(env, bundle_dir=WIN_BUNDLE, platform="win32") == {
        "PATH": "C:\\Windows"
    }


def test_a_sibling_folder_with_the_same_prefix_is_kept() -> None:
    env = {"PATH": f"{BUNDLE}2:{BUNDLE}"}
    assert child_environment(env, bundle_dir=BUNDLE, platform="darwin") == {"PATH": f"{BUNDLE}2"}


def test_no_bundle_dir_filters_no_path() -> None:
    env = {"PATH": "/usr/bin:/bin"}
    assert child_environment(env, bundle_dir="", platform="darwin") == env


def test_a_variable_left_empty_is_removed() -> None:
    assert child_environment({"PATH": BUNDLE}, bundle_dir=BUNDLE, platform="darwin") == {}


path_entry = st.sampled_from(["/usr/bin", "/bin", BUNDLE, f"{BUNDLE}/sub", "/opt/x", ""])


@given(
    entries=st.lists(path_entry, max_size=6),
    other=st.dictionaries(st.sampled_from(["HOME", "LANG", "_PYI_X", "TERM"]), st.text(max_size=5)),
    platform=st.sampled_from(["linux", "darwin", "win32"]),
)
def test_children_never_see_the_bundle(entries, other, platform) -> None:
    separator = ";" if platform == "win32" else ":"
    env = {**other, "PATH": separator.join(entries)}
    result = child_environment(env, bundle_dir=BUNDLE, platform=platform)
    assert not any(k.startswith("_PYI_") for k in result)
    kept = result.get("PATH", "").split(separator)
    assert BUNDLE not in kept and f"{BUNDLE}/sub" not in kept
    assert {k: v for k, v in result.items() if k != "PATH"} == {
        k: v for k, v in other.items() if not k.startswith("_PYI_")
    }


def test_sanitize_process_edits_the_environment_in_place() -> None:
    env = {"LD_LIBRARY_PATH": f"{BUNDLE}:/u", "LD_LIBRARY_PATH_ORIG": "/u", "_PYI_X": "1", "A": "b"}
    sanitize_process(env, bundle_dir=BUNDLE, platform="linux")
    assert env == {"LD_LIBRARY_PATH": "/u", "A": "b"}


def test_sanitize_process_resets_the_dll_directory_on_windows() -> None:
    calls: list[object] = []
    env = {"PATH": f"{WIN_BUNDLE};C:\\Windows"}
    sanitize_process(env, bundle_dir=WIN_BUNDLE, platform="win32", reset_dll_directory=calls.append)
    assert calls == [None]  # SetDllDirectoryW(NULL): children get the standard DLL search
    assert env == {"PATH": "C:\\Windows"}


def test_sanitize_process_defaults_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", BUNDLE, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("LD_LIBRARY_PATH", BUNDLE)
    monkeypatch.setenv("_PYI_PARENT_PROCESS_LEVEL", "-1")
    sanitize_process()
    import os

    assert "LD_LIBRARY_PATH" not in os.environ and "_PYI_PARENT_PROCESS_LEVEL" not in os.environ


def test_is_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    assert frozen.is_frozen() is False
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert frozen.is_frozen() is True


def _stream(path: Path, encoding: str = "ascii", errors: str = "strict") -> io.TextIOWrapper:
    return open(path, "w", encoding=encoding, errors=errors)


def test_python_io_encoding_is_applied(tmp_path: Path) -> None:
    out, err = _stream(tmp_path / "out"), _stream(tmp_path / "err", errors="backslashreplace")
    new_out, new_err = apply_python_io_environment({"PYTHONIOENCODING": "utf-8"}, out, err)
    new_out.write("\u00e9\u2713\n")
    new_out.flush()
    assert (tmp_path / "out").read_text(encoding="utf-8") == "\u00e9\u2713\n"
    assert new_err.errors == "backslashreplace"  # as python keeps it for stderr
    out.close(), err.close()


def test_python_io_encoding_errors_part(tmp_path: Path) -> None:
    out, err = _stream(tmp_path / "out"), _stream(tmp_path / "err")
    new_out, _ = apply_python_io_environment({"PYTHONIOENCODING": ":replace"}, out, err)
    new_out.write("\u00e9\n")
    new_out.flush()
    assert (tmp_path / "out").read_text(encoding="ascii") == "?\n"
    out.close(), err.close()


def test_unbuffered_output_reaches_the_file_at_once(tmp_path: Path) -> None:
    out, err = _stream(tmp_path / "out", "utf-8"), _stream(tmp_path / "err", "utf-8")
    new_out, new_err = apply_python_io_environment({"PYTHONUNBUFFERED": "1"}, out, err)
    new_out.write("partial line, no newline, no flush")
    assert (tmp_path / "out").read_text(encoding="utf-8") == "partial line, no newline, no flush"
    new_err.write("e")
    assert (tmp_path / "err").read_text(encoding="utf-8") == "e"
    out.close(), err.close()


def test_nothing_set_keeps_the_streams(tmp_path: Path) -> None:
    out, err = _stream(tmp_path / "out"), _stream(tmp_path / "err")
    assert apply_python_io_environment({}, out, err) == (out, err)
    out.close(), err.close()


def test_run_script_command_runs_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "hello.py"
    script.write_text("import sys\nprint('hello', sys.argv[1:])\nsys.exit(3)\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # restored after the test
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    from jlgcli.rebound.execute import run_script_command

    assert run_script_command([str(script), "a"]) == 3
    assert "hello ['a']" in capfd.readouterr().out
