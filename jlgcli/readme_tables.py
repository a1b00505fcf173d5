"""The generated tables of README.md (config reference, exit codes), so they cannot drift."""

from __future__ import annotations

import re
from collections.abc import Callable

from jlgcli.config.keys import reference_table
from jlgcli.errors import EXIT_CODE_MEANINGS


def exit_code_table() -> str:
    """Markdown rows for every exit code (from the one table in ``runner.causes``)."""
    lines = ["| code | meaning |", "| --- | --- |"]
    lines += [f"| {int(code)} | {text} |" for code, (_, text) in EXIT_CODE_MEANINGS.items()]
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
