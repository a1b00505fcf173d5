"""The registry: ids, custom backends, parallel probes, auto selection (F-002, RG-004, RG-006)."""

from __future__ import annotations

import threading

import pytest

from jlgcli.backends.base import Availability, Backend
from jlgcli.backends.command import CommandBackend
from jlgcli.backends.ids import BUILTIN_BACKENDS
from jlgcli.backends.registry import BUILTINS, all_backends, auto_select, get_backend, probe_all
from jlgcli.errors import ExitCode, JlgError


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
