"""The registry: ids, custom backends, parallel probes, auto selection (F-002, RG-004, RG-006)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from jlgcli.backends.base import Availability
from jlgcli.backends.command import CommandBackend
from jlgcli.backends.registry import BUILTINS, all_backends, auto_select, get_backend, probe_all
from jlgcli.config.backend_ids import BUILTIN_BACKENDS
from jlgcli.errors import ExitCode, JlgError

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import Backend

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_builtins_follow_the_auto_order() -> None:
    assert tuple(BUILTINS) == BUILTIN_BACKENDS
    for name in BUILTIN_BACKENDS:
        assert get_backend(name).id == name


@pytest.mark.parametrize(("wrong", "suggestion"), [("cluade", "'claude'"), ("gemni", "'gemini'")])
def test_unknown_id_is_a_usage_error_with_a_suggestion(wrong: str, suggestion: str) -> None:
    with pytest.raises(JlgError) as caught:
        get_backend(wrong)
    assert caught.value.code == ExitCode.USAGE
    assert "known: claude, codex, copilot, gemini" in caught.value.message
    assert suggestion in (caught.value.hint or "")


@pytest.mark.parametrize("name", ["replay", "auto"])
def test_special_ids_are_not_built_here(name: str) -> None:
    with pytest.raises(JlgError) as caught:
        get_backend(name)
    assert caught.value.code == ExitCode.USAGE and "runner" in (caught.value.hint or "")


def test_custom_backends() -> None:
    custom = {"ollama": {"argv": ["ollama", "run", "llama3"]}, "aider": {"argv": ["aider"]}}
    b = get_backend("ollama", custom=custom)
    assert isinstance(b, CommandBackend) and b.id == "ollama"
    assert [x.id for x in all_backends(custom)] == [*BUILTIN_BACKENDS, "aider", "ollama"]
    with pytest.raises(JlgError) as caught:
        get_backend("nope", custom=custom)
    assert "aider, ollama" in caught.value.message


def test_custom_backend_errors() -> None:
    with pytest.raises(JlgError) as bad:
        get_backend("x", custom={"x": {"argv": "not a list"}})
    assert bad.value.code == ExitCode.CONFIG and "backends.x.argv" in bad.value.message
    with pytest.raises(JlgError) as clash:
        get_backend("claude", custom={"claude": {"argv": ["my-claude"]}})
    assert clash.value.code == ExitCode.CONFIG


class Stub:
    """A backend whose probe blocks until released, or raises."""

    def __init__(
        self,
        name: str,
        status: str = "available",
        *,
        block: threading.Event | None = None,
        boom: bool = False,
    ) -> None:
        self.id, self.status, self.block, self.boom = name, status, block, boom

    def probe(self, timeout: float = 2.0) -> Availability:
        if self.boom:
            raise RuntimeError("probe bug")
        if self.block is not None:
            self.block.wait()
        return Availability(self.id, self.status)  # type: ignore[arg-type]

    def invocation(self, request: object) -> object:  # pragma: no cover - not used
        raise NotImplementedError

    def parser(self) -> object:  # pragma: no cover - not used
        raise NotImplementedError


def test_probe_all_keeps_order_and_survives_a_hang_and_a_bug() -> None:
    release = threading.Event()
    backends: list[Backend] = [
        Stub("a", "missing"),
        Stub("b", block=release),  # type: ignore[list-item]
        Stub("c", boom=True),
        Stub("d"),
    ]
    try:
        results = probe_all(backends, timeout=0.2)
    finally:
        release.set()
    assert [(r.id, r.status) for r in results] == [
        ("a", "missing"),
        ("b", "unknown"),
        ("c", "unknown"),
        ("d", "available"),
    ]
    assert results[1].hint and "probe did not finish" in results[1].detail
    assert "probe bug" in results[2].detail


def test_probe_all_through_the_fakes_with_a_hanging_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """RG-004: one CLI that never answers does not stall the others' statuses."""
    monkeypatch.setenv("JLGCLI_FAKE_PROBE_HANG", "1")
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    results = probe_all([get_backend(name) for name in BUILTIN_BACKENDS], timeout=0.5)
    assert [r.status for r in results] == ["unknown"] * 4


def test_probe_all_through_the_fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "github_pat_x")
    statuses = {r.id: r.status for r in probe_all(all_backends())}
    assert statuses == {
        "claude": "available",
        "codex": "available",
        "copilot": "available",
        "gemini": "unauthenticated",
    }


@pytest.mark.parametrize(
    ("statuses", "chosen"),
    [
        ({"gemini": "available", "codex": "available"}, "codex"),
        ({"claude": "unauthenticated", "copilot": "available"}, "copilot"),
        ({"claude": "unknown", "mine": "available"}, None),  # custom backends are never auto
        ({}, None),
    ],
)
def test_auto_select(statuses: dict[str, str], chosen: str | None) -> None:
    items = [Availability(name, status) for name, status in statuses.items()]  # type: ignore[arg-type]
    assert auto_select(items) == chosen


def test_listing_backends_without_agent_clis_imports_no_adapter(tmp_path: Path) -> None:
    """Issue 18: ``jlgcli backends`` on a machine with no agent CLI loads none of the four."""
    import subprocess
    import sys

    probe = (
        "import json, sys\n"
        "from jlgcli.backends.registry import all_backends, probe_all\n"
        "print(json.dumps([a.status for a in probe_all(all_backends())]))\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('jlgcli.backends.')]))\n"
    )
    env = {**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    ).stdout.splitlines()
    assert json.loads(out[0]) == ["missing"] * 4
    loaded = set(json.loads(out[1]))
    assert not loaded & {f"jlgcli.backends.{name}" for name in BUILTIN_BACKENDS}
    assert "jlgcli.backends.probing" not in loaded


def test_a_listed_builtin_is_the_adapter_once_its_cli_is_found() -> None:
    """The fake claude is on PATH: the listed backend probes, runs and parses as the adapter."""
    from jlgcli.backends.base import BackendRequest
    from jlgcli.backends.claude import ClaudeBackend
    from jlgcli.backends.cli_facts import CLAUDE, not_on_path

    (listed,) = [b for b in all_backends() if b.id == "claude"]
    availability = listed.probe()
    assert availability == ClaudeBackend().probe()
    assert availability.status != "missing"
    request = BackendRequest(prompt="hi", cwd=".")
    assert listed.invocation(request) == ClaudeBackend().invocation(request)
    assert type(listed.parser()) is type(ClaudeBackend().parser())
    assert not_on_path(CLAUDE).hint == "install it: npm install -g @anthropic-ai/claude-code"


def test_a_listed_builtin_not_on_path_is_missing_as_the_probe_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from jlgcli.backends.codex import CodexBackend

    monkeypatch.setenv("PATH", str(tmp_path))
    (listed,) = [b for b in all_backends() if b.id == "codex"]
    assert listed.probe() == CodexBackend().probe()
    assert listed.probe().status == "missing"


def test_one_row_per_backend() -> None:
    """Issue 34: the registry and --max-cost read cli_facts' one table of built-in CLIs."""
    from jlgcli.backends.cli_facts import BUILTIN_CLIS
    from jlgcli.backends.registry import BUILTINS
    from jlgcli.config.backend_ids import BUILTIN_BACKENDS
    from jlgcli.runner.select import COST_REPORTING

    assert tuple(BUILTIN_CLIS) == tuple(BUILTINS) == BUILTIN_BACKENDS
    for name, make in BUILTINS.items():
        assert make().id == name == BUILTIN_CLIS[name].id
    assert {n for n, info in BUILTIN_CLIS.items() if info.reports_cost} == COST_REPORTING
