"""The floor breakdown: every part timed, in-place outputs checked against fresh ones."""

from __future__ import annotations

import math

import jax
import pytest

from lrnn_core.bookkit.benchmark_floor import (
    BREAKDOWN,
    breakdown_spreads,
    floor_breakdown,
    format_breakdown,
)


def test_floor_breakdown_times_and_checks_each_part(monkeypatch):
    rows = floor_breakdown([(2, 40, 3)], repeats=2)
    (row,) = rows
    assert row["shape"] == (2, 40, 3) and set(row["times"]) == set(BREAKDOWN)
    assert all(math.isfinite(t) and t > 0 for t in row["times"].values())
    assert row["donated"] is True  # XLA on CPU takes donated buffers
    table = format_breakdown(rows).splitlines()
    assert len(table) == 3 and table[0].startswith("| (B, L, N) | floor | floor in place | auto |")
    assert table[0].endswith("| load |")
    assert table[2].startswith("| (2, 40, 3) | ") and table[2].count("|") == table[0].count("|")
    # a wrong in-place result is caught: make the donated scan differ from the fresh one
    real_jit = jax.jit

    def jit(fn, donate_argnums=()):
        compiled = real_jit(fn, donate_argnums=donate_argnums)
        return (lambda x: compiled(x) + 1) if donate_argnums == 0 else compiled

    monkeypatch.setattr(jax, "jit", jit)
    with pytest.raises(AssertionError, match="floor in place"):
        floor_breakdown([(1, 8, 2)], repeats=1)


def test_breakdown_spreads_are_the_ranges_of_the_ratios():
    times = [
        {"floor": 4.0, "floor in place": 1.0, "auto": 6.0, "auto in place": 3.0}
        | {"NumPy stream": 0.5, "NumPy loop": 6.0},
        {"floor": 2.0, "floor in place": 1.0, "auto": 3.0, "auto in place": 2.0}
        | {"NumPy stream": 1.0, "NumPy loop": 1.0},
    ]
    assert breakdown_spreads([{"times": t} for t in times]) == {
        "share of the floor's time spent allocating": "0.50 to 0.75",
        "scan pass / stream pass": "2.00 to 3.00",
        "XLA's stream pass / NumPy's": "1.00 to 2.00",
        "auto in place / NumPy loop": "0.50 to 2.00",
    }
