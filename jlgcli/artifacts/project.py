"""Where a project's runs live: its root, found by walking up like the config is (issue 19 item 9).

The root is the directory of the nearest project file ``.jlgcli.json``, else
the root of the git work tree, else the working directory itself. Runs
(``.jlgcli/runs``) and the rebound ledger are written and read there, so
``jlgcli runs`` from a sub-directory sees the project's runs (F-006).
"""

from __future__ import annotations

from pathlib import Path

PROJECT_FILE_NAME = ".jlgcli.json"  # the same name jlgcli.config reads (kept in sync by a test)


def project_root(cwd: Path | None = None) -> Path:
    """The project file's directory, else the git work tree's root, else ``cwd``."""
    start = (Path.cwd() if cwd is None else cwd).resolve()
    chain = (start, *start.parents)
    for directory in chain:
        if (directory / PROJECT_FILE_NAME).is_file():
            return directory
    for directory in chain:
        if (directory / ".git").exists():  # a directory, or a file in worktrees and submodules
            return directory
    return start


def under_project(path: Path, cwd: Path | None = None) -> Path:
    """``path`` itself when absolute, else relative to the project root of ``cwd``."""
    return path if path.is_absolute() else project_root(cwd) / path
