"""The generated tables of README.md (config reference, exit codes), so they cannot drift."""

from __future__ import annotations

import re
from collections.abc import Callable

from jlgcli.config_keys import reference_table
from jlgcli.errors import ExitCode

EXIT_CODE_MEANINGS = {
    ExitCode.OK: "done / success",
    ExitCode.RUN_ERROR: "run error: the backend failed, or the model reported status `error`",
    ExitCode.BACKEND_UNAVAILABLE: "backend missing or unsupported, or none available",
    ExitCode.MAX_ITERATIONS: "maximum iterations reached without completion",
    ExitCode.NO_PROGRESS: "no progress: identical or near-identical iterations",
    ExitCode.UNAUTHENTICATED: "backend installed but not logged in",
    ExitCode.USAGE: "usage error: bad flag, unknown config key, out-of-range value",
    ExitCode.INVALID_JSON: "json completion: no valid status object",
    ExitCode.NO_INPUT: "prompt file not found",
    ExitCode.INTERNAL: "internal error (a bug): a crash log is written",
    ExitCode.CANT_CREATE: "artifacts (or config) could not be written",
    ExitCode.TIMEOUT: "timeout (total, per call, or idle)",
    ExitCode.CONFIG: "config file unreadable or invalid, or a project command not trusted yet",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C or SIGTERM)",
}


def exit_code_table() -> str:
    """Markdown rows for every ExitCode."""
    lines = ["| code | meaning |", "| --- | --- |"]
    lines += [f"| {int(code)} | {EXIT_CODE_MEANINGS[code]} |" for code in ExitCode]
    return "\n".join(lines)


def _block(table: str) -> Callable[[re.Match[str]], str]:
    return lambda match: match.group(1) + table + "\n" + match.group(2)


def render(readme: str) -> str:
    """``readme`` with the generated blocks replaced by their current content."""
    for name, table in (("config-reference", reference_table()), ("exit-codes", exit_code_table())):
        pattern = re.compile(rf"(<!-- {name}:start[^>]*-->\n).*?(<!-- {name}:end -->)", re.DOTALL)
        readme = pattern.sub(_block(table), readme)
    return readme


if __name__ == "__main__":  # python -m jlgcli.readme_tables README.md  (rewrites it)
    import sys
    from pathlib import Path

    path = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
