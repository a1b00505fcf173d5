"""Is the Node.js on PATH new enough for an npm-installed CLI? (issue 48)

claude 2.1.332's ``package.json`` says ``"engines": {"node": ">=22.0.0"}``
(2.1.197 said ``>=18.0.0``); on Node 20 npm only warns (EBADENGINE) and the
install goes on (backends.md §10). ``jlgcli backends`` and ``doctor`` read the
installed package's ``engines.node`` and compare it with ``node --version``;
``run``/``loop`` never do (one more process before the first call).
"""

from __future__ import annotations

import os
import re
import time

from jlgcli.backends.base import Availability
from jlgcli.backends.cli_facts import CliInfo
from jlgcli.backends.common import format_version, parse_version
from jlgcli.records import replace

_AT_LEAST = re.compile(r">=\s*v?(\d+(?:\.\d+){0,2})")


def node_needed(data: dict[str, object]) -> tuple[int, int, int] | None:
    """The lowest Node ``engines.node`` accepts (``>=22.0.0`` → (22, 0, 0)), or None."""
    engines = data.get("engines")
    wanted = engines.get("node") if isinstance(engines, dict) else None
    found = _AT_LEAST.search(wanted) if isinstance(wanted, str) else None
    if found is None:
        return None
    parts = [int(p) for p in found.group(1).split(".")] + [0, 0]
    return parts[0], parts[1], parts[2]


def node_version(timeout: float = 2.0) -> tuple[int, int, int] | None:
    """``node --version`` of the Node on PATH (the one an npm shim runs), or None."""
    from jlgcli.backends.probing import run_quietly
    from jlgcli.process import resolve_executable

    node = resolve_executable("node", path=os.environ.get("PATH"))
    if node is None:
        return None
    answer = run_quietly([node, "--version"], deadline=time.monotonic() + timeout)
    if answer is None or answer.exit_code != 0:
        return None
    return parse_version(answer.stdout)


def with_node_check(info: CliInfo, availability: Availability) -> Availability:
    """``availability`` with a note and a hint when the Node on PATH is older than the
    installed package's ``engines.node``; unchanged when either cannot be told."""
    if availability.path is None or info.npm_package is None:
        return availability
    from jlgcli.backends.probing import npm_package_json

    data = npm_package_json(availability.path, info.npm_package)
    needed = node_needed(data) if data is not None else None
    if needed is None:
        return availability
    have = node_version()
    if have is None or have >= needed:
        return availability
    note = (
        f"{info.executable} {availability.version or ''} needs Node ≥ {format_version(needed)} "
        f"(package.json engines), this Node is {format_version(have)}"
    ).replace("  ", " ")
    detail = f"{availability.detail}; {note}" if availability.detail else note
    hint = f"upgrade Node.js to {needed[0]} or later (https://nodejs.org), then run it again"
    return replace(availability, detail=detail, hint=availability.hint or hint)
