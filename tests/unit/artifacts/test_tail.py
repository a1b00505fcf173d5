"""Reading a file still being written (issue 51: ``jlgcli watch``)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from jlgcli.artifacts.tail import Tail


def test_a_partial_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    tail = Tail(path)
    assert tail.lines() == [] and not tail.exists()  # not there yet: nothing, no error
    with open(path, "w", encoding="utf-8") as out:
        out.write('{"a": 1}\n{"b"')
        out.flush()
        assert tail.lines() == ['{"a": 1}'] and tail.at_end()
        out.write(": 2}\r\n")
        out.flush()
        assert tail.lines() == ['{"b": 2}']
        assert tail.lines() == []


def test_a_truncated_or_replaced_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    path.write_text("one\ntwo\nthree\n", "utf-8")
    tail = Tail(path)
    assert tail.lines() == ["one", "two", "three"]
    path.write_text("new\n", "utf-8")  # a resumed batch truncates its file
    assert tail.lines() == ["new"] and tail.restarts == 1


def test_an_overlong_line_is_dropped_whole_and_the_next_ones_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    tail = Tail(path, max_line=10)
    with open(path, "w", encoding="utf-8") as out:
        out.write("x" * 25)
        out.flush()
        assert tail.lines() == []
        out.write("y" * 5 + "\nshort\n" + "z" * 11 + "\nend\n")
        out.flush()
        assert tail.lines() == ["short", "end"]


def test_a_file_that_goes_away_gives_nothing(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    path.write_text("one\n", "utf-8")
    tail = Tail(path)
    assert tail.lines() == ["one"]
    path.unlink()
    assert tail.lines() == [] and tail.at_end()


def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"caf\xe9\n")
    assert Tail(path).lines() == ["caf\ufffd"]


@given(
    lines=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                                  blacklist_characters="\n\r"), max_size=30),
                   max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)  # fmt: skip
def test_any_split_of_the_writes_gives_back_the_same_lines(
    lines: list[str], cuts: list[int]
) -> None:
    """However the writer's bytes are cut into reads (mid-line, mid-character), every
    complete line comes back once, in order, and nothing else."""
    import tempfile

    data = "".join(line + "\n" for line in lines).encode("utf-8")
    points = sorted({min(cut, len(data)) for cut in cuts} | {len(data)})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.ndjson"
        tail, seen, start = Tail(path), [], 0
        with open(path, "wb") as out:
            for point in points:
                out.write(data[start:point])
                out.flush()
                start = point
                seen += tail.lines()
        assert seen == lines
