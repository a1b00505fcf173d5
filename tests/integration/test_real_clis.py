"""The real claude and codex CLIs, logged out: probes say ``unauthenticated`` and do not hang.

Opt-in (``JLGCLI_REAL_CLI_TESTS=1``): installs ``@anthropic-ai/claude-code`` and
``@openai/codex`` from the npm registry into a cache outside the test's temp
HOME (``JLGCLI_REAL_CLI_CACHE``, default ``~/.cache/jlgcli-test-npm``), puts its
``node_modules/.bin`` first on PATH with the empty temp HOME of the isolation
fixture, and probes. No prompt is sent and no credentials are used (F-002, RG-004).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jlgcli.backends.registry import get_backend, probe_all

# Computed at import, before the isolation fixture replaces HOME, PATH and JLGCLI_*.
ENABLED = os.environ.get("JLGCLI_REAL_CLI_TESTS") == "1"
CACHE = Path(os.environ.get("JLGCLI_REAL_CLI_CACHE") or Path.home() / ".cache" / "jlgcli-test-npm")
NPM = shutil.which("npm")
NODE = shutil.which("node")
PACKAGES = ("@anthropic-ai/claude-code", "@openai/codex")

pytestmark = [
    pytest.mark.realcli,
    pytest.mark.slow,
    pytest.mark.skipif(not ENABLED, reason="opt-in: set JLGCLI_REAL_CLI_TESTS=1"),
]


@pytest.fixture(scope="module")
def real_bin() -> Path:
    """``node_modules/.bin`` of the cache, installing the CLIs on first use."""
    if NPM is None or NODE is None:
        pytest.skip("npm and node are needed to install the real CLIs")
    bin_dir = CACHE / "node_modules" / ".bin"
    if not all((bin_dir / name).exists() for name in ("claude", "codex")):
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [NPM, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", *PACKAGES],
            check=True,
            timeout=900,
            stdin=subprocess.DEVNULL,
        )
    _warm(bin_dir)
    return bin_dir


def _warm(bin_dir: Path) -> None:
    """Start each CLI once, so a probe's budget measures the probe and not a cold disk.

    A cold start reads a ~250 MB binary: under a full parallel suite on a loaded
    machine the first probe took more than 8 s (seen in CI). The result is not
    checked; an empty temp HOME keeps the user's own config untouched.
    """
    import tempfile

    assert NODE is not None
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, DISABLE_AUTOUPDATER="1", NO_COLOR="1")
        env["PATH"] = os.pathsep.join([str(bin_dir), os.path.dirname(NODE), env.get("PATH", "")])
        for name in ("claude", "codex"):
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                subprocess.run(
                    [str(bin_dir / name), "--version"],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=120,
                )


def test_logged_out_real_clis_are_unauthenticated(
    real_bin: Path, system_bin: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert NODE is not None
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(real_bin), os.path.dirname(NODE), str(system_bin)])
    )
    monkeypatch.setenv("DISABLE_AUTOUPDATER", "1")
    # A loaded CI machine can be slow to start a 250 MB binary: a roomier budget than the default.
    results = probe_all([get_backend("claude"), get_backend("codex")], timeout=8.0)
    by_id = {a.id: a for a in results}
    for name in ("claude", "codex"):
        found = by_id[name]
        assert found.status == "unauthenticated", found
        assert found.version and found.path and Path(found.path).parent == real_bin
        assert found.hint and "login" in found.hint


def test_logged_out_real_claude_run_is_an_auth_error(
    real_bin: Path, system_bin: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream-json parser on the real CLI's output (backends.md §3: fails fast, rc 1)."""
    from jlgcli.backends.base import BackendRequest
    from jlgcli.process import run_invocation
    from jlgcli.process.model import Limits

    assert NODE is not None
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(real_bin), os.path.dirname(NODE), str(system_bin)])
    )
    backend = get_backend("claude")
    parser = backend.parser()
    request = BackendRequest(prompt="say hi", cwd=str(isolated_env), permissions="full")
    outcome = run_invocation(
        backend.invocation(request),
        limits=Limits(total_timeout=60, idle_timeout=30),
        sinks=(lambda event: parser.feed(event.stream, event.text),),
    )
    result = parser.finish(outcome)
    assert not result.ok and result.error_kind == "auth", result
    assert result.session_id and result.extra.get("apiKeySource") == "none"
