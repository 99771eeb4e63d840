"""The scan benchmark table on tiny shapes: every row present, times sane, every timed output
checked."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import jax
import pytest

from lrnn_core.bookkit import benchmark
from lrnn_core.bookkit.benchmark import (
    NAMES,
    PEERS,
    default_names,
    floor_vs_loop,
    format_table,
    run_benchmark,
)
from lrnn_core.bookkit.benchmark_setup import RTOL, peak_bandwidth_gbs
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
            assert r["rel_err"] is not None and r["rel_err"] <= RTOL["complex64"], r


def test_no_peak_bandwidth_on_cpu(rows):
    if peak_bandwidth_gbs() is None:
        assert all(r["peak_fraction"] is None for r in rows)


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


def test_floor_vs_loop_reads_the_stream_rows():
    rows = [
        {"shape": (1, 2, 3), "name": "stream", "vs_numpy": 0.25},
        {"shape": (1, 2, 3), "name": "numpy", "vs_numpy": 1.0},
        {"shape": (4, 5, 6), "name": "stream", "vs_numpy": None},
        {"shape": (7, 8, 9), "name": "stream", "vs_numpy": 1.5},
    ]
    assert floor_vs_loop(rows) == {(1, 2, 3): 0.25, (7, 8, 9): 1.5}
