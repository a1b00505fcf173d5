"""Out-of-range numbers and paths through the installed console script (issue 49).

``--script-timeout`` of 400 digits ended in an OverflowError and ``--cwd`` of 5,000
characters in ``File name too long``: both exit 70 with a crash log. Both are the
user's input: exit 64, the limit said, nothing written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import Runner


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--script-timeout", "9" * 400, "is out of range; at most 7d"),
        ("--cwd", "a" * 5000, "unusable path"),
    ],
)
def test_out_of_range_input_is_64_with_the_limit(
    jlg: Runner, tmp_path: Path, flag: str, value: str, said: str
) -> None:
    (tmp_path / "task.md").write_text("Say hello.\n", encoding="utf-8")
    done = jlg("loop", "task.md", flag, value, cwd=tmp_path)
    assert done.returncode == 64, done.stderr
    assert said in done.stderr
    assert "internal error" not in done.stderr and "crash log" not in done.stderr
