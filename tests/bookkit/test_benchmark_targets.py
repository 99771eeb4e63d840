"""The targets: paired ratios per shape, marked met or missed, also in a fresh process."""

from __future__ import annotations

import subprocess

import pytest

from lrnn_core.bookkit.benchmark_targets import (
    TARGETS,
    auto_vs_sequential,
    format_targets,
    ratio_spreads,
    target_ratios,
    target_ratios_in_process,
)


def test_target_ratios_marks_each_target():
    rows = target_ratios([(2, 40, 3), (1, 50, 2)], repeats=3, max_peer_elements=100)
    assert [r["shape"] for r in rows] == [(2, 40, 3), (1, 50, 2)]
    for r in rows:
        assert set(r["ratios"]) == set(TARGETS) == set(r["met"])
        for name, ratio in r["ratios"].items():
            assert r["met"][name] is (None if ratio is None else ratio <= TARGETS[name])
    assert rows[0]["ratios"]["auto / NumPy loop"] is None  # 240 elements > 100: loop skipped
    assert rows[1]["ratios"]["auto / NumPy loop"] > 0
    table = format_targets(rows).splitlines()
    assert table[0].startswith("| (B, L, N) | auto / NumPy loop (target <= 1) |")
    assert len(table) == 4 and table[3].count("(met)") + table[3].count("(missed)") == 3


def test_target_ratios_in_process_sees_the_environment(monkeypatch):
    """The child process measures the rows asked for and gets the extra variables: asking JAX
    for a platform that does not exist makes the child fail loudly."""
    rows = target_ratios_in_process({"LRNN_SCALE": "ci"}, [(1, 30, 2)], repeats=2)
    assert [r["shape"] for r in rows] == [(1, 30, 2)]
    assert set(rows[0]["ratios"]) == set(TARGETS) and rows[0]["ratios"]["auto / floor"] > 0
    with pytest.raises(subprocess.CalledProcessError):
        target_ratios_in_process({"JAX_PLATFORMS": "no-such-platform"}, [(1, 30, 2)], repeats=1)
    with pytest.raises(TypeError, match="env"):
        target_ratios_in_process({"X": 1}, [(1, 30, 2)])


def test_ratio_spreads_skip_unmeasured_shapes():
    rows = [
        {"ratios": {"auto / NumPy loop": None, "auto / floor": 1.2, "gradient / forward": 2.0}},
        {"ratios": {"auto / NumPy loop": 0.7, "auto / floor": 1.0, "gradient / forward": 3.5}},
    ]
    assert ratio_spreads(rows) == {
        "auto / NumPy loop": "0.70 to 0.70",
        "auto / floor": "1.00 to 1.20",
        "gradient / forward": "2.00 to 3.50",
    }


def test_auto_vs_sequential_is_a_positive_ratio():
    assert 0 < auto_vs_sequential((1, 30, 2), repeats=3) < 100
