"""The timing harness on tiny shapes: every row present, times sane, every timed output checked."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

from lrnn_core.bookkit import benchmark
from lrnn_core.bookkit.benchmark import (
    BREAKDOWN,
    NAMES,
    PEERS,
    TARGETS,
    default_names,
    floor_breakdown,
    format_breakdown,
    format_gradient_table,
    format_table,
    format_targets,
    gradient_benchmark,
    run_benchmark,
    target_ratios,
    target_ratios_in_process,
)
from lrnn_core.core.scan import METHODS

SHAPES = [(2, 33, 4), (1, 70, 3)]


@pytest.fixture(scope="module")
def rows():
    return run_benchmark(SHAPES, repeats=2)


def test_rows_for_every_method_and_peer(rows):
    for shape in SHAPES:
        names = [r["name"] for r in rows if r["shape"] == shape]
        assert sorted(names) == sorted(default_names())
        assert set(METHODS) | set(PEERS) == set(NAMES)


def test_kernel_timed_only_on_a_gpu():
    """Off a GPU the Pallas kernel runs interpreted: its time would say nothing about the kernel."""
    on_gpu = jax.default_backend() == "gpu"
    assert ("pallas" in default_names()) == on_gpu
    assert set(default_names()) | {"pallas"} == set(NAMES)


def test_times_positive_and_finite(rows):
    for r in rows:
        assert r["time_s"] is not None, r
        assert math.isfinite(r["time_s"]) and r["time_s"] > 0
        size = math.prod(r["shape"])
        assert r["elements_per_s"] == pytest.approx(size / r["time_s"])
        assert r["vs_numpy"] > 0 and r["vs_stream"] > 0
    for r in rows:
        if r["name"] == "numpy":
            assert r["vs_numpy"] == 1.0
        if r["name"] == "stream":
            assert r["vs_stream"] == 1.0


def test_every_timed_output_checked_against_numpy(rows):
    for r in rows:
        if r["name"] in ("numpy", "stream"):
            assert r["rel_err"] is None
        else:
            assert r["rel_err"] is not None and r["rel_err"] <= benchmark.RTOL["complex64"], r


def test_no_peak_bandwidth_on_cpu(rows):
    if benchmark.peak_bandwidth_gbs() is None:
        assert all(r["peak_fraction"] is None for r in rows)
    assert benchmark.peak_bandwidth_gbs("NVIDIA H100 80GB HBM3") == 3350.0
    assert benchmark.peak_bandwidth_gbs("NVIDIA H200") == 4800.0
    assert benchmark.peak_bandwidth_gbs("NVIDIA A100-SXM4-40GB") == 1555.0
    assert benchmark.peak_bandwidth_gbs("Some Future GPU") is None


def test_wrong_output_is_caught(monkeypatch):
    """The harness refuses to report a time for an output that disagrees with the NumPy loop."""
    right = benchmark._plain_scan
    monkeypatch.setattr(benchmark, "_plain_scan", lambda lam, u: right(lam, u) * 1.01)
    with pytest.raises(AssertionError, match="lax.scan"):
        run_benchmark([(1, 8, 2)], repeats=1, methods=["lax.scan"])


def test_skipped_peers_have_a_reason():
    rows = run_benchmark([(1, 16, 2)], repeats=1, methods=["sequential"], max_peer_elements=10)
    by_name = {r["name"]: r for r in rows}
    assert set(by_name) == {"numpy", "stream", "sequential"}
    assert by_name["numpy"]["time_s"] is None and "skipped" in by_name["numpy"]["note"]
    assert by_name["sequential"]["rel_err"] == 0.0  # checked against the sequential method
    assert by_name["sequential"]["vs_numpy"] is None


def test_unknown_name_rejected():
    with pytest.raises(ValueError, match="methods must be one of"):
        run_benchmark([(1, 4, 2)], methods=["fastest"])


def test_format_table_has_one_table_per_shape(rows):
    tables = format_table(rows).split("\n\n**")
    assert len(tables) == len(SHAPES)
    for shape, table in zip(SHAPES, tables, strict=True):
        caption, blank, head, rule, *body = table.splitlines()
        assert caption.lstrip("*") == f"(B, L, N) = ({', '.join(map(str, shape))}), complex64**"
        assert blank == "" and head == "| what | time ms | x numpy | x stream | rel err | note |"
        assert rule.count("---") == head.count("|") - 1
        assert len(body) == sum(r["shape"] == shape for r in rows)
        assert all(line.count("|") == head.count("|") for line in body)
    assert "linear_scan(auto -> " in format_table(rows)


def test_default_shapes_follow_scale(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "book")
    book = benchmark.default_shapes()
    assert (8, 4096, 256) in book and (64, 784, 512) in book
    monkeypatch.setenv("LRNN_SCALE", "ci")
    assert max(np.prod(s) for s in benchmark.default_shapes()) <= np.prod((8, 4096, 256))


def test_command_line():
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "scan.py"
    out = subprocess.run(
        [
            sys.executable,
            str(script),
            "--shapes",
            "1x16x2",
            "--repeats",
            "1",
            "--methods",
            "auto,lfilter",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    assert out.startswith("device: ")
    assert "linear_scan(auto" in out and "lfilter" in out and "stream" in out


def test_paired_time_ratio_measures_a_known_ratio():
    """Two sleeps of 4 ms and 2 ms: the interleaved ratio is 2 up to the sleeps' overshoot (a
    sleep returns no earlier than asked, at most ~1 ms later on a loaded machine)."""
    import time

    ratio = benchmark.paired_time_ratio(
        lambda: time.sleep(0.004), lambda: time.sleep(0.002), (), repeats=7
    )
    assert 5 / 3 <= ratio <= 2.0 * 1.05
    with pytest.raises(ValueError, match="repeats"):
        benchmark.paired_time_ratio(lambda: None, lambda: None, (), repeats=0)


def test_gradient_benchmark_checks_and_pairs():
    rows = gradient_benchmark([(2, 40, 3)], repeats=3, methods=["auto", "chunked"])
    assert [r["name"] for r in rows] == ["auto", "chunked"]
    for r in rows:
        assert r["time_s"] > 0 and r["vs_forward"] > 0
        assert r["rel_err"] <= benchmark.RTOL["complex64"]
    table = format_gradient_table(rows).splitlines()
    assert len(table) == 2 + len(rows) and "| (2, 40, 3) | grad of linear_scan(auto -> " in table[2]


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
    real_jit = benchmark.jax.jit

    def jit(fn, donate_argnums=()):
        compiled = real_jit(fn, donate_argnums=donate_argnums)
        return (lambda x: compiled(x) + 1) if donate_argnums == 0 else compiled

    monkeypatch.setattr(benchmark.jax, "jit", jit)
    with pytest.raises(AssertionError, match="floor in place"):
        floor_breakdown([(1, 8, 2)], repeats=1)


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
