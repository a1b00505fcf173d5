"""Run ids: time-sortable, Windows-safe, unique within a process (F-006, RG-015)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.artifacts.ids import coerce_run_id, is_safe_run_id, new_run_id, run_id_time

_WINDOWS_FORBIDDEN = set('<>:"/\\|?*')
_moments = st.datetimes(
    min_value=datetime(1971, 1, 1),
    max_value=datetime(9998, 12, 31),
    timezones=st.just(timezone.utc),
)


def test_shape_matches_the_documented_example() -> None:
    run_id = new_run_id(datetime(2026, 11, 22, 2, 30, 15, tzinfo=timezone.utc))
    assert run_id.startswith("20261122T023015Z-")
    assert len(run_id) == len("20261122T023015Z-3f9a1c")
    assert run_id_time(run_id) == datetime(2026, 11, 22, 2, 30, 15, tzinfo=timezone.utc)


@given(_moments)
def test_ids_are_windows_safe(moment: datetime) -> None:
    # RG-015: no ':' (nor any other character Windows forbids in a file name)
    run_id = new_run_id(moment)
    assert not _WINDOWS_FORBIDDEN & set(run_id)
    assert run_id.isascii() and is_safe_run_id(run_id)


@given(_moments, _moments)
def test_ids_sort_like_their_times(a: datetime, b: datetime) -> None:
    # seconds decide; within one second the order is arbitrary but the ids differ
    first, second = new_run_id(a), new_run_id(b)
    if a.replace(microsecond=0) < b.replace(microsecond=0):
        assert first < second
    elif a.replace(microsecond=0) > b.replace(microsecond=0):
        assert first > second
    else:
        assert first != second


def test_unique_within_the_same_second() -> None:
    moment = datetime(2026, 1, 1, tzinfo=timezone.utc)
    ids = [new_run_id(moment) for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert len({i[:16] for i in ids}) == 1


def test_aware_times_are_converted_to_utc() -> None:
    paris = timezone(timedelta(hours=1))
    assert new_run_id(datetime(2026, 3, 1, 10, 0, 0, tzinfo=paris)).startswith("20260301T090000Z")


def test_default_is_now() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    moment = run_id_time(new_run_id())
    assert moment is not None and before <= moment <= datetime.now(timezone.utc)


@pytest.mark.parametrize(
    "name",
    ["", "a:b", "../x", "x/y", "x\\y", "CON", "nul.txt", "com1", "LPT9.log", "name.", ".hidden",
     "a" * 65, "é", "a b", "a..b"],
)  # fmt: skip
def test_unsafe_names(name: str) -> None:
    assert not is_safe_run_id(name)
    assert coerce_run_id(name) != name and is_safe_run_id(coerce_run_id(name))


@pytest.mark.parametrize("name", ["my-run", "run_1.2", "CONSOLE", "20261122T023015Z-3f9a1c"])
def test_safe_names_are_kept(name: str) -> None:
    assert is_safe_run_id(name)
    assert coerce_run_id(name) == name


def test_coerce_none_makes_a_new_id() -> None:
    assert run_id_time(coerce_run_id(None)) is not None


def test_time_of_a_foreign_name_is_none() -> None:
    assert run_id_time("my-run") is None


def test_package_surface_is_lazy_and_complete() -> None:
    # `import jlgcli.artifacts.atomic` (config writes) must not load the rest of the package
    import subprocess
    import sys

    code = (
        "import sys, jlgcli.artifacts.atomic, jlgcli.artifacts.ids, jlgcli.artifacts.redact\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('jlgcli.', 'pydantic')))\n"
        "print(' '.join(loaded))\n"
        "import jlgcli.artifacts as a\n"
        "assert sorted(a.__all__) == sorted(a._MODULE_OF)\n"
        "assert all(getattr(a, n) is not None for n in a.__all__) and 'RunDirectory' in dir(a)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "jlgcli._version",
        "jlgcli.artifacts",
        "jlgcli.artifacts.atomic",
        "jlgcli.artifacts.candidates",
        "jlgcli.artifacts.escapes",  # rules read through JSON escapes (issue 43)
        "jlgcli.artifacts.exact",  # the exact rules, by family (issue 32 speed)
        "jlgcli.artifacts.ids",
        "jlgcli.artifacts.probes",  # the Hyperscan wrapper the candidate finder scans through
        "jlgcli.artifacts.redact",
        "jlgcli.artifacts.rules",  # the secret shapes and where they come from (issue 32)
        "jlgcli.artifacts.views",  # the decoded view of JSON escapes and ANSI (issue 32)
        "jlgcli.lazy_re",  # rules compiled at their first use (issue 49)
        "jlgcli.moments",  # datetime's classes from its C module (issue 49)
    ]
    import jlgcli.artifacts as artifacts

    with pytest.raises(AttributeError):
        artifacts.nope  # noqa: B018
