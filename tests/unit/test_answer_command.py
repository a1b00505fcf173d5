"""``jlgcli answer``'s own checks (issue 51): the answer given once, and not empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from jlgcli.commands.answer_actions import answer_text
from jlgcli.errors import JlgError


def test_the_answer_is_the_text_or_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("Use UTC.\n", encoding="utf-8")
    assert answer_text("yes", None) == "yes"
    assert answer_text(None, str(path)) == "Use UTC.\n"


@pytest.mark.parametrize(
    ("text", "file", "message"),
    [(None, None, "no answer given"), ("  ", None, "the answer is empty"),
     ("yes", "a.md", "not both")],
)  # fmt: skip
def test_no_answer_an_empty_one_or_two_are_usage_errors(
    text: str | None, file: str | None, message: str
) -> None:
    with pytest.raises(JlgError, match=message) as caught:
        answer_text(text, file)
    assert caught.value.code == 64
