"""Backend ids the config keys and flags accept, known without importing any adapter."""

from __future__ import annotations

# The agent CLIs jlgcli drives, in auto-selection order (first ``available`` wins).
BUILTIN_BACKENDS: tuple[str, ...] = ("claude", "codex", "copilot", "gemini")
# Backends that need no agent CLI: ``replay`` replays a recorded run.
SPECIAL_BACKENDS: tuple[str, ...] = ("replay",)
AUTO = "auto"


def known_backend_ids(custom: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every id ``--backend`` accepts: built-ins, special ones, ``auto``, custom backends."""
    return (*BUILTIN_BACKENDS, *SPECIAL_BACKENDS, *custom, AUTO)
