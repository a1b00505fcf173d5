"""The pydantic model of the configuration keys (F-001), used by the runner and for the schema.

``jlgcli.config.keys.KEYS`` holds the same keys as plain data for the fast
paths (``config get`` must not import pydantic); ``tests/unit/test_settings.py``
checks that both agree on names, defaults, bounds and descriptions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from jlgcli.config.keys import KEYS

_DESCRIPTIONS = {spec.name: spec.description for spec in KEYS}


class Settings(BaseModel):
    """Effective jlgcli settings after precedence (flags > env > project > user > defaults)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: str = Field("auto", description=_DESCRIPTIONS["backend"])
    maxIterations: int = Field(20, ge=1, le=1000, description=_DESCRIPTIONS["maxIterations"])
    timeoutMs: int = Field(
        1_800_000, ge=1000, le=604_800_000, description=_DESCRIPTIONS["timeoutMs"]
    )
    iterationTimeoutMs: int = Field(
        0, ge=0, le=604_800_000, description=_DESCRIPTIONS["iterationTimeoutMs"]
    )
    idleTimeoutMs: int = Field(
        600_000, ge=0, le=604_800_000, description=_DESCRIPTIONS["idleTimeoutMs"]
    )
    permissions: Literal["read-only", "edit", "full"] = Field(
        "edit", description=_DESCRIPTIONS["permissions"]
    )
    completionMode: Literal["marker", "json", "rebound"] = Field(
        "marker", description=_DESCRIPTIONS["completionMode"]
    )
    noProgressLimit: int = Field(3, ge=1, le=100, description=_DESCRIPTIONS["noProgressLimit"])
    verbosity: int = Field(1, ge=0, le=3, description=_DESCRIPTIONS["verbosity"])
    artifacts: bool = Field(False, description=_DESCRIPTIONS["artifacts"])
    artifactsDir: str = Field(
        ".jlgcli/runs", min_length=1, description=_DESCRIPTIONS["artifactsDir"]
    )
    fallback: list[str] = Field([], description=_DESCRIPTIONS["fallback"])
    gates: list[str] = Field([], description=_DESCRIPTIONS["gates"])
    maxCostUsd: float = Field(0.0, ge=0, description=_DESCRIPTIONS["maxCostUsd"])
    maxPromptBytes: int = Field(
        4 * 1024 * 1024, ge=1024, le=1024 * 1024 * 1024, description=_DESCRIPTIONS["maxPromptBytes"]
    )
    notify: list[str] = Field([], description=_DESCRIPTIONS["notify"])
    notifyLimitWaitMs: int = Field(
        300_000, ge=0, le=86_400_000, description=_DESCRIPTIONS["notifyLimitWaitMs"]
    )
    reboundIsolation: Literal[
        "best", "strict", "bubblewrap", "unshare", "unprivileged-user", "none"
    ] = Field("best", description=_DESCRIPTIONS["reboundIsolation"])
    reboundNetwork: bool = Field(False, description=_DESCRIPTIONS["reboundNetwork"])
