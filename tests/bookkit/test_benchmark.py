"""The scan benchmark on tiny shapes: the shared setup (defaults per scale, inputs, the NumPy loop,
the checks), the timing helpers, the forward table (every row present, times sane, every timed
output checked), the gradient, the targets as paired ratios and the floor breakdown; the timed
hand-written LRU computes what the library model computes (numbers, not shapes)."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.bookkit import benchmark
from lrnn_core.bookkit.benchmark import (
    BREAKDOWN,
    NAMES,
    PEERS,
    RTOL,
    TARGETS,
    auto_vs_sequential,
    floor_breakdown,
    format_table,
    grad_fn,
    gradient_benchmark,
    interleaved_medians,
    markdown_table,
    paired_time_ratio,
    peak_bandwidth_gbs,
    plain_forward,
    plain_model,
    run_benchmark,
    target_ratios,
    target_ratios_in_process,
    time_call,
    time_train_step,
)
from lrnn_core.core.scan import METHODS
from lrnn_core.orvieto.ode_flows import ModelConfig, make_model, with_constant

SHAPES = [(2, 33, 4), (1, 70, 3)]


#: what run_benchmark times by default: every name, "pallas" only on a GPU
DEFAULT_NAMES = [n for n in NAMES if n != "pallas" or jax.default_backend() == "gpu"]


@pytest.fixture(scope="module")
def rows():
    return run_benchmark(SHAPES, repeats=2)


def test_rows_for_every_method_and_peer(rows):
    for shape in SHAPES:
        names = [r["name"] for r in rows if r["shape"] == shape]
        assert sorted(names) == sorted(DEFAULT_NAMES)
        assert set(METHODS) | set(PEERS) == set(NAMES)


def test_kernel_timed_only_on_a_gpu():
    """Off a GPU the Pallas kernel runs interpreted: its time would say nothing about the kernel."""
    on_gpu = jax.default_backend() == "gpu"
    assert ("pallas" in DEFAULT_NAMES) == on_gpu
    assert set(DEFAULT_NAMES) | {"pallas"} == set(NAMES)


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


def test_format_table_adds_bandwidth_columns_where_the_peak_is_known():
    row = {"shape": (1, 2, 3), "dtype": "complex64", "label": "x", "time_s": 0.002}
    row |= {"gb_per_s": 150.0, "peak_fraction": 0.05, "vs_numpy": 0.5, "vs_stream": 2.0}
    row |= {"rel_err": 1e-7, "note": ""}
    _, _, head, _, body = format_table([row]).splitlines()
    assert head == "| what | time ms | GB/s | % peak | x numpy | x stream | rel err | note |"
    assert body == "| x | 2 | 150 | 5 | 0.5 | 2 | 1e-7 |  |"


def test_markdown_table_formats_numbers_shapes_and_blanks():
    table = markdown_table([{"shape": (1, 2), "x": 0.012345, "n": 3, "skip": None, "s": "a"}])
    assert table.splitlines() == [
        "| shape | x | n | skip | s |",
        "|---|---|---|---|---|",
        "| (1, 2) | 0.0123 | 3 |  | a |",
    ]


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


# --- setup


def test_peak_bandwidth_from_the_data_sheets():
    assert benchmark.peak_bandwidth_gbs("NVIDIA H100 80GB HBM3") == 3350.0
    assert benchmark.peak_bandwidth_gbs("NVIDIA H100 PCIe") == 2000.0
    assert benchmark.peak_bandwidth_gbs("NVIDIA H200") == 4800.0
    assert benchmark.peak_bandwidth_gbs("NVIDIA A100-SXM4-40GB") == 1555.0
    assert benchmark.peak_bandwidth_gbs("Some Future GPU") is None


def test_default_shapes_follow_scale(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "book")
    book = benchmark.default_shapes()
    assert (8, 4096, 256) in book and (64, 784, 512) in book
    assert benchmark.resolve(None, None, "float32")[1] == 3  # book: 3 timed calls, as at ci
    monkeypatch.setenv("LRNN_SCALE", "ci")
    assert max(np.prod(s) for s in benchmark.default_shapes()) <= np.prod((8, 4096, 256))
    assert benchmark.resolve(None, None, "float32")[1] == 3


def test_resolve_fills_in_and_checks(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "ci")
    assert benchmark.resolve(None, None, "float32") == (benchmark.default_shapes(), 3, "float32")
    assert benchmark.resolve([[2, 3, 4]], 5, "complex64") == ([(2, 3, 4)], 5, "complex64")
    with pytest.raises(ValueError, match="shapes L"):
        benchmark.resolve([(2, 0, 4)], 1, "complex64")
    with pytest.raises(ValueError, match="repeats"):
        benchmark.resolve([(2, 3, 4)], 0, "complex64")
    with pytest.raises(ValueError, match="dtype"):
        benchmark.resolve([(2, 3, 4)], 1, "int8")


def test_inputs_are_stable_and_seeded():
    lam, u = benchmark.make_inputs((2, 5, 3), "complex64", seed=4)
    assert lam.dtype == u.dtype == np.complex64 and u.shape == (2, 5, 3)
    assert np.all((np.abs(lam) >= 0.5 - 1e-6) & (np.abs(lam) <= 0.99 + 1e-6))
    again, _ = benchmark.make_inputs((2, 5, 3), "complex64", seed=4)
    np.testing.assert_array_equal(lam, again)
    lam_r, u_r = benchmark.make_inputs((1, 4, 2), "float64", seed=0)
    assert lam_r.dtype == u_r.dtype == np.float64


def test_numpy_loop_is_the_recurrence():
    """h_1 = u_1, h_2 = lam h_1 + u_2, h_3 = lam h_2 + u_3 by hand."""
    lam = np.array([0.5, -1.0])
    u = np.array([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])
    expected = np.array([[[1.0, 2.0], [3.5, 2.0], [6.75, 4.0]]])
    np.testing.assert_allclose(benchmark.numpy_loop(lam, u), expected)


def test_stream_and_relative_error():
    np.testing.assert_allclose(benchmark.stream(np.array([1.0, -2.0]), 3.0), [3.0, -6.0])
    err = benchmark.relative_error(np.array([1.0, 2.1]), np.array([1.0, 2.0]))
    assert err == pytest.approx(0.05)
    assert benchmark.relative_error(np.zeros(2), np.zeros(2)) == 0.0


def test_labels():
    assert benchmark.method_label("sequential") == "linear_scan(sequential)"
    assert benchmark.method_label("auto").startswith("linear_scan(auto -> ")


def test_device_description_names_jax():
    assert "jax " in benchmark.device_description()


def test_numpy_loop_takes_a_lambda_per_step():
    lam = np.array([[0.5], [2.0], [0.0]])
    u = np.array([[1.0], [1.0], [3.0]])
    # h_1 = 1, h_2 = 2 * 1 + 1 = 3, h_3 = 0 * 3 + 3 = 3
    np.testing.assert_allclose(benchmark.numpy_loop(lam, u), [[1.0], [3.0], [3.0]])
    np.testing.assert_allclose(benchmark.numpy_loop(np.array([0.5]), u), [[1.0], [1.5], [3.75]])


# --- timing


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


# --- gradient


def test_gradient_benchmark_checks_and_pairs():
    rows = gradient_benchmark([(2, 40, 3)], repeats=3, methods=["auto", "chunked"])
    assert [r["name"] for r in rows] == ["auto", "chunked"]
    for r in rows:
        assert r["time_s"] > 0 and r["vs_forward"] > 0
        assert r["rel_err"] <= RTOL["complex64"]


def test_grad_fn_is_the_gradient_of_the_sum():
    """For L = 2, h_1 = u_1, h_2 = lam u_1 + u_2: d sum(h) / d lam = u_1, d / d u = (1 + lam, 1)."""
    lam, u = jnp.array([0.5]), jnp.array([[[2.0], [3.0]]])
    d_lam, d_u = grad_fn("sequential")(lam, u)
    np.testing.assert_allclose(d_lam, [2.0])
    np.testing.assert_allclose(d_u, [[[1.5], [1.0]]])


# --- targets


def test_target_ratios_marks_each_target():
    rows = target_ratios([(2, 40, 3), (1, 50, 2)], repeats=3, max_peer_elements=100)
    assert [r["shape"] for r in rows] == [(2, 40, 3), (1, 50, 2)]
    for r in rows:
        assert set(r["ratios"]) == set(TARGETS) == set(r["met"])
        for name, ratio in r["ratios"].items():
            assert r["met"][name] is (None if ratio is None else ratio <= TARGETS[name])
    assert rows[0]["ratios"]["auto / NumPy loop"] is None  # 240 elements > 100: loop skipped
    assert rows[1]["ratios"]["auto / NumPy loop"] > 0


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


def test_auto_vs_sequential_is_a_positive_ratio():
    assert 0 < auto_vs_sequential((1, 30, 2), repeats=3) < 100


# --- floor


def test_floor_breakdown_times_and_checks_each_part(monkeypatch):
    rows = floor_breakdown([(2, 40, 3)], repeats=2)
    (row,) = rows
    assert row["shape"] == (2, 40, 3) and set(row["times"]) == set(BREAKDOWN)
    assert all(math.isfinite(t) and t > 0 for t in row["times"].values())
    assert row["donated"] is True  # XLA on CPU takes donated buffers
    # a wrong in-place result is caught: make the donated scan differ from the fresh one
    real_jit = jax.jit

    def jit(fn, donate_argnums=()):
        compiled = real_jit(fn, donate_argnums=donate_argnums)
        return (lambda x: compiled(x) + 1) if donate_argnums == 0 else compiled

    monkeypatch.setattr(jax, "jit", jit)
    with pytest.raises(AssertionError, match="floor in place"):
        floor_breakdown([(1, 8, 2)], repeats=1)


# --- one training step (time_train_step): the hand-written LRU computes what the library does


@pytest.mark.parametrize("D", [0, 5])
def test_plain_forward_equals_the_library_model_with_the_same_parameters(D):
    model = make_model(ModelConfig(3, D), nnx.Rngs(0))
    lru = model.lru
    # the library's input scale gamma, folded into B (the plain model computes gamma itself)
    p = {"nu": lru.nu_log[...], "theta": lru.theta_log[...]}
    lam = np.asarray(lru.eigenvalues(), np.complex128)
    scale = np.exp(np.asarray(lru.gamma_log[...])) / np.sqrt(1 - np.abs(lam) ** 2)
    p["B_re"] = jnp.asarray(np.asarray(lru.B_re[...]) * scale[:, None], jnp.float32)
    p["B_im"] = jnp.asarray(np.asarray(lru.B_im[...]) * scale[:, None], jnp.float32)
    layers = model.head.layers
    if D:
        p["W1"], p["b1"] = layers[0].kernel[...], layers[0].bias[...]
    p["W2"], p["b2"] = layers[-1].kernel[...], layers[-1].bias[...]
    v = jnp.asarray(np.random.default_rng(1).standard_normal((2, 20)), jnp.float32)
    want = np.asarray(model(with_constant(v))[..., 0])
    np.testing.assert_allclose(plain_forward(p, v), want, rtol=1e-4, atol=1e-5)
    assert set(plain_model(3, D, jax.random.key(0))) == set(p)


def test_time_train_step_returns_two_positive_medians():
    ours, plain = time_train_step(ModelConfig(4, 8), 2, 16, repeats=2)
    assert 0 < ours < 60 and 0 < plain < 60
