"""Rebound mode (seed 002, REQ_AUTO_010..050): the model's reply may write files and ask
jlgcli to run a sandboxed script under ``workbench/scripts/`` and feed its output back.

Public surface: ``ReboundSession`` (what the loop calls after each reply),
``ReboundOutcome``, ``find_reply`` and the reply models, ``script_argv`` /
``run_script_entry`` (the frozen exe's hidden entry point). Names are loaded
on first use, so importing the package (or ``jlgcli.rebound.execute`` from the
frozen exe's hidden entry point) does not pull in pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jlgcli.rebound.execute import RUN_SCRIPT_COMMAND, run_script_entry, script_argv
    from jlgcli.rebound.schema import Artifact, NextAction, ReboundReply, ReplyParse, find_reply
    from jlgcli.rebound.session import ReboundSession
    from jlgcli.rebound.steps import ReboundOutcome

_WHERE = {
    "RUN_SCRIPT_COMMAND": "execute",
    "run_script_entry": "execute",
    "script_argv": "execute",
    "Artifact": "schema",
    "NextAction": "schema",
    "ReboundReply": "schema",
    "ReplyParse": "schema",
    "find_reply": "schema",
    "ReboundSession": "session",
    "ReboundOutcome": "steps",
}

__all__ = [
    "RUN_SCRIPT_COMMAND",
    "Artifact",
    "NextAction",
    "ReboundOutcome",
    "ReboundReply",
    "ReboundSession",
    "ReplyParse",
    "find_reply",
    "run_script_entry",
    "script_argv",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"jlgcli.rebound.{module}"), name)
