"""The timing helpers: paired ratios of known sleeps, medians over interleaved rounds."""

from __future__ import annotations

import time

import pytest

from lrnn_core.bookkit.benchmark_timing import interleaved_medians, paired_time_ratio, time_call


def test_paired_time_ratio_measures_a_known_ratio():
    """Two sleeps of 4 ms and 2 ms: the interleaved ratio is 2 up to the sleeps' overshoot (a
    sleep returns no earlier than asked, at most ~1 ms later on a loaded machine)."""
    ratio = paired_time_ratio(lambda: time.sleep(0.004), lambda: time.sleep(0.002), (), repeats=7)
    assert 5 / 3 <= ratio <= 2.0 * 1.05
    with pytest.raises(ValueError, match="repeats"):
        paired_time_ratio(lambda: None, lambda: None, (), repeats=0)


def test_time_call_and_interleaved_medians_time_sleeps():
    """Sleeps of 20 ms and 5 ms: each median is at least the sleep and (a sleep overshoots by a
    few ms on a loaded machine) well under 30 ms more."""
    t, out = time_call(lambda x: (time.sleep(0.02), x)[1], (7,), repeats=3)
    assert 0.02 <= t <= 0.05 and out == 7
    times, outs = interleaved_medians(
        {"a": (lambda: (0.02,), time.sleep), "b": (lambda: (0.005,), time.sleep)}, repeats=3
    )
    assert 0.02 <= times["a"] <= 0.05 and 0.005 <= times["b"] <= 0.035
    assert outs == {"a": None, "b": None}
