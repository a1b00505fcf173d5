"""``python -m jlgcli.integrations.publish``: the Action's publish step (after a matrix task).

It runs inside the one error boundary every console script has (``jlgcli.boundary``):
``error:``/``hint:`` and the code for a known failure, 128 + N on a signal, a crash
report and 70 for a bug.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> int:
    from jlgcli.boundary import run_guarded

    return run_guarded(_publish, want_json=False)


def _publish() -> int:
    from jlgcli.batch.gitops import GitError
    from jlgcli.batch.matrix import publish
    from jlgcli.errors import ExitCode, JlgError
    from jlgcli.integrations.github import write_outputs

    try:
        outputs = publish(os.environ, Path.cwd())
    except GitError as exc:
        raise JlgError(ExitCode.RUN_ERROR, str(exc)) from None
    write_outputs(outputs)
    sys.stdout.write(f"jlgcli: {outputs}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover - run by action.yml's publish step
    sys.exit(main())
