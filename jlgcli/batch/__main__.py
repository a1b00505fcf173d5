"""``python -m jlgcli.batch``: the Action's publish step (after a matrix task's loop)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> int:
    from jlgcli.batch.gitops import GitError
    from jlgcli.batch.matrix import publish
    from jlgcli.errors import JlgError
    from jlgcli.integrations.github import write_outputs

    try:
        outputs = publish(os.environ, Path.cwd())
    except JlgError as exc:
        sys.stderr.write(f"error: {exc.message}\n")
        return exc.code
    except GitError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    write_outputs(outputs)
    sys.stdout.write(f"jlgcli: {outputs}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover - run by action.yml's publish step
    sys.exit(main())
