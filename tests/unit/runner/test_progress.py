"""No-progress detection (RG-013): similarity of outputs and the consecutive-repeat guard."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.runner.progress import SHINGLE_LIMIT, NoProgressDetector, normalise, similarity

REPLY = (
    "I ran the test suite again at 10:42:07 (took 12.3s).\n"
    "\x1b[31mFAILED\x1b[0m tests/test_parser.py::test_nested - AssertionError at line 42\n"
    "The parser still returns the inner object. I will look at the scanner next."
)


def long_output(seed: int, lines: int = 6000) -> str:
    rng = random.Random(seed)
    words = ["parser", "scanner", "test", "object", "line", "error", "fixed", "file", "the", "a"]
    return "\n".join(
        " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + f" #{k}"
        for k in range(lines)
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (REPLY, REPLY),
        (REPLY, REPLY.replace("10:42:07", "10:58:31").replace("12.3s", "9.8s")),
        (REPLY, REPLY.replace("\x1b[31m", "").replace("\x1b[0m", "")),
        (REPLY, REPLY.replace(" ", "   ").replace("\n", "\r\n\n")),
        (REPLY, REPLY.upper()),
        ("", ""),
        ("  \n\t", ""),
    ],
    ids=["same", "timestamps-durations", "escapes", "whitespace", "case", "empty", "blank"],
)
def test_normalised_differences_are_identical(a: str, b: str) -> None:
    """RG-013: outputs that differ only by noise are identical."""
    assert similarity(a, b) == 1.0


def test_one_changed_word_in_a_long_reply_is_near_identical() -> None:
    words = [f"word{chr(97 + k % 26)}{chr(97 + k // 26 % 26)}" for k in range(300)]
    a = " ".join(words)
    b = " ".join([*words[:150], "changed", *words[151:]])
    assert 0.9 <= similarity(a, b) < 1.0


def test_a_changed_word_in_a_short_reply_is_a_change() -> None:
    assert similarity("I still cannot find the file", "I still can't find the file") < 0.5


def test_different_replies_are_not_similar() -> None:
    assert (
        similarity(REPLY, "All tests pass now. The scanner keeps children of failed parents.") < 0.1
    )
    assert similarity("something", "") == 0.0


def test_large_outputs_compare_lines() -> None:
    a = long_output(1)
    assert len(a) > SHINGLE_LIMIT
    assert similarity(a, a + "\none more line") > 0.99
    assert similarity(a, long_output(2)) < 0.2
    # Numbers are tokens (issue 17): renumbered lines are changed lines.
    assert similarity(a, a.replace("#", "#1")) < 0.1
    # Time noise stays in line mode (the safe side: it reads as a change).
    assert similarity(a + "\nat 10:42:07", a + "\nat 11:02:55") < 1.0
    escaped = a.replace("error", "\x1b[1;31merror\x1b[0m").replace("\n", "\r\n")
    assert similarity(a, escaped) == 1.0


def test_normalise() -> None:
    assert normalise("  Step 3 of 10\x1b[K  \r\n\n\tDone   in 4.2s ") == "step 3 of 10\ndone in <t>"


def test_counters_are_progress() -> None:
    """Issue 17: replies that differ only in counters are not "no progress"."""
    detector = NoProgressDetector(limit=2)
    for k in range(1, 7):
        assert detector.observe(f"Processed file {k} of 7. Continuing with the next file.") is False


def test_a_changed_work_tree_is_progress() -> None:
    """Issue 17: the same reply with files changed in between is progress."""
    detector = NoProgressDetector(limit=2)
    for _ in range(5):
        assert detector.observe(REPLY, worktree_changed=True) is False
    assert detector.observe(REPLY) is False
    assert detector.observe(REPLY) is True


@settings(max_examples=200)
@given(st.text(max_size=300), st.text(max_size=300))
def test_similarity_is_a_symmetric_ratio(a: str, b: str) -> None:
    value = similarity(a, b)
    assert 0.0 <= value <= 1.0
    assert value == similarity(b, a)
    assert similarity(a, a) == 1.0


def test_detector_stops_after_limit_repeats() -> None:
    """RG-013: with limit 2, the third identical output stops the loop."""
    detector = NoProgressDetector(limit=2)
    assert detector.observe(REPLY) is False
    assert detector.observe(REPLY.replace("12.3s", "14.0s")) is False
    assert detector.streak == 1
    assert detector.observe(REPLY) is True
    assert detector.last_similarity == 1.0


def test_detector_streak_resets_on_progress() -> None:
    detector = NoProgressDetector(limit=2)
    for text in (REPLY, REPLY, "Now the nested case passes; moving on to docs.", REPLY, REPLY):
        stopped = detector.observe(text)
    assert not stopped
    assert detector.streak == 1
    assert detector.observe(REPLY) is True


def test_detector_threshold() -> None:
    strict = NoProgressDetector(limit=1, threshold=1.0)
    strict.observe("alpha beta gamma delta epsilon")
    assert strict.observe("alpha beta gamma delta zeta") is False
    loose = NoProgressDetector(limit=1, threshold=0.3)
    loose.observe("alpha beta gamma delta epsilon")
    assert loose.observe("alpha beta gamma delta zeta") is True


def test_detector_mixes_short_and_long_outputs() -> None:
    detector = NoProgressDetector(limit=1)
    detector.observe(long_output(3))
    assert detector.observe("short reply") is False
    assert detector.observe(long_output(3)) is False
    assert detector.observe(long_output(3)) is True


def test_detector_reset() -> None:
    detector = NoProgressDetector(limit=1)
    detector.observe(REPLY)
    detector.reset()
    assert detector.observe(REPLY) is False
    assert detector.last_similarity is None


@pytest.mark.parametrize(("limit", "threshold"), [(0, 0.9), (-1, 0.9), (1, 0.0), (1, 1.5)])
def test_detector_rejects_bad_settings(limit: int, threshold: float) -> None:
    with pytest.raises(ValueError):
        NoProgressDetector(limit, threshold)


STEP = "Working on it (step 1 of many)"


@pytest.mark.parametrize("mark", [".", "!", "?", ";", ":", " …", "!!", "\u3002"])
def test_replies_differing_only_in_punctuation_are_the_same(mark: str) -> None:
    """Issue 48: "Working on it (step 1 of many)." then with "!", "?" … is no progress."""
    assert similarity(STEP + ".", STEP + mark) == 1.0
    assert similarity(f"“{STEP}”", f'"{STEP}."') == 1.0


def test_punctuation_never_hides_a_number_or_a_symbol() -> None:
    assert similarity("file 2 of 7.", "file 3 of 7!") < 0.9
    assert similarity("ratio 2.5 now", "ratio 25 now") < 0.9
    assert similarity("set x = a + b", "set x = a * b") < 0.9


def test_near_identical_short_replies_stop_the_loop() -> None:
    detector = NoProgressDetector(limit=2)
    stops = [detector.observe(STEP + mark) for mark in ".!?;:"]
    assert stops == [False, False, True, True, True]
