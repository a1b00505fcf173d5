"""``jlgcli runs`` / ``jlgcli runs show``: the command module through its parser (F-006, US-8)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from jlgcli.artifacts.rundir import RunDirectory
from jlgcli.commands import add_common_options, runs, runs_table
from jlgcli.errors import ExitCode, JlgError

NEW, OLD = "20260103T000000Z-cccccc", "20260101T000000Z-aaaaaa"


class _Parser(argparse.ArgumentParser):
    """Like jlgcli.cli's parser: usage errors are 64, leaf commands get the common options."""

    def error(self, message: str) -> Any:
        raise JlgError(ExitCode.USAGE, message)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self._subparsers is None and self.prog != "jlgcli":
            add_common_options(self)
        return super().parse_known_args(args, namespace)


def _parse(*argv: str) -> argparse.Namespace:
    parser = _Parser(prog="jlgcli")
    sub = parser.add_subparsers(parser_class=_Parser)
    runs.register(sub)
    args = parser.parse_args(argv)
    assert args.handler == "jlgcli.commands.runs:execute"
    return args


def _record(root: Path, run_id: str, **result: Any) -> Path:
    with RunDirectory.create(root, run_id) as run:
        run.write_meta({"backend": "claude", "startedAt": "2026-01-03T00:00:00+00:00"})
        run.write_prompt(1, "p")
        run.write_final_message(1, "DONE")
        if result:
            run.write_result(result)
    return run.path


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_list_table(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = cwd / ".jlgcli" / "runs"
    _record(root, OLD, status="incomplete", stopCause="timeout", exitCode=75, backend="claude",
            iterations=1, durationMs=850)  # fmt: skip
    _record(root, NEW)  # killed: no result.json
    assert runs.execute(_parse("runs")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ID", "DATE", "BACKEND", "STATUS", "ITER", "DURATION", "COST"]
    assert out[1].split()[0] == NEW and "incomplete" in out[1].split()
    assert out[2].split()[0] == OLD and out[2].split()[-4:-1] == ["timeout", "1", "850ms"]


def test_list_json_and_limit(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = cwd / ".jlgcli" / "runs"
    _record(root, OLD, status="done", exitCode=0)
    _record(root, NEW, status="error", exitCode=1)
    assert runs.execute(_parse("runs", "--json", "--limit", "1")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["root"] == str(root)
    assert [(r["runId"], r["status"], r["exitCode"]) for r in data["runs"]] == [(NEW, "error", 1)]


def test_no_runs_is_a_clear_message_and_exit_0(
    cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert runs.execute(_parse("runs")) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no runs recorded" in captured.err and "--artifacts" in captured.err
    assert runs.execute(_parse("runs", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == []


def test_dir_option_is_relative_to_the_working_directory(
    cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(cwd / "build" / "runs", NEW, status="done")
    assert runs.execute(_parse("runs", "--dir", "build/runs", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["runId"] == NEW


def test_default_root_follows_the_artifacts_dir_setting(
    cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _record(cwd / "elsewhere", NEW, status="done")
    monkeypatch.setenv("JLGCLI_ARTIFACTS_DIR", "elsewhere")
    assert runs.execute(_parse("runs", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["root"] == str(cwd / "elsewhere")


def test_broken_config_does_not_hide_runs(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _record(cwd / ".jlgcli" / "runs", NEW, status="done")
    (cwd / ".jlgcli.json").write_text("{broken", encoding="utf-8")
    assert runs.execute(_parse("runs", "--json")) == 0
    assert len(json.loads(capsys.readouterr().out)["runs"]) == 1


def test_show_human(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _record(cwd / ".jlgcli" / "runs", NEW, status="done", exitCode=0, durationMs=61_000)
    assert runs.execute(_parse("runs", "show", NEW[:12])) == 0
    out = capsys.readouterr().out
    assert f"run         {NEW}" in out
    assert "status      done (exit 0)" in out
    assert "duration    1m01s" in out
    assert f"directory   {path}" in out
    assert "transcript  " in out and "transcript.ndjson (0 B)" in out
    assert "backend     claude" in out
    assert "{" not in out and len(out.splitlines()) <= 20  # short: the JSON is for --json
    assert f"jlgcli runs show {NEW} --json" in out  # issue 31


def test_show_incomplete_and_unreadable(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = cwd / ".jlgcli" / "runs"
    _record(root, OLD)
    (root / NEW).mkdir()
    (root / NEW / "result.json").write_text("{oops", encoding="utf-8")
    (root / NEW / "iterations" / "001").mkdir(parents=True)
    assert runs.execute(_parse("runs", "show", OLD)) == 0
    out = capsys.readouterr().out
    assert "status      incomplete" in out and "result.json:" not in out
    assert runs.execute(_parse("runs", "show", NEW)) == 0
    out = capsys.readouterr().out
    assert "status      unreadable" in out and "problem     result.json: invalid JSON" in out


def test_show_json(cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _record(cwd / ".jlgcli" / "runs", NEW, status="done", exitCode=0)
    assert runs.execute(_parse("runs", "show", NEW, "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"]["runId"] == NEW and data["result"]["status"] == "done"
    assert data["paths"]["transcript"] == str(path / "transcript.ndjson")
    assert data["iterations"][0]["n"] == 1


def test_show_with_dir_before_or_after_the_action(
    cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(cwd / "d", NEW, status="done")
    for argv in (("runs", "--dir", "d", "show", NEW), ("runs", "show", NEW, "--dir", "d")):
        assert runs.execute(_parse(*argv)) == 0
        assert NEW in capsys.readouterr().out


def test_show_unknown_id_is_exit_64_listing_recent_ids(cwd: Path) -> None:
    _record(cwd / ".jlgcli" / "runs", NEW, status="done")
    with pytest.raises(JlgError) as caught:
        runs.execute(_parse("runs", "show", "nope"))
    assert caught.value.code == ExitCode.USAGE
    assert caught.value.hint == f"recent runs: {NEW}"


@pytest.mark.parametrize("limit", ["0", "-3", "many"])
def test_bad_limit_is_a_usage_error(limit: str) -> None:
    with pytest.raises(JlgError) as caught:
        _parse("runs", "--limit", limit)
    assert caught.value.code == ExitCode.USAGE


def test_show_needs_an_id() -> None:
    with pytest.raises(JlgError):
        _parse("runs", "show")


@pytest.mark.parametrize(
    ("ms", "text"),
    [(None, "-"), (-1, "-"), (0, "0ms"), (999, "999ms"), (1000, "1.0s"), (59_949, "59.9s"),
     (60_000, "1m00s"), (3_599_000, "59m59s"), (3_600_000, "1h00m"), (90_061_000, "25h01m")],
)  # fmt: skip
def test_format_duration(ms: int | None, text: str) -> None:
    assert runs_table.format_duration(ms) == text


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (5 * 1024**2, "5.0 MiB"),
     (3 * 1024**3, "3.0 GiB")],
)  # fmt: skip
def test_format_size(size: int, text: str) -> None:
    assert runs.format_size(size) == text
