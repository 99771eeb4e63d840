"""Hostile input to ``core`` (scan, eigenvalues, LRU, validate), ``bookkit`` and ``data``.

Two tables: bad calls, each with the error type and the words its message must contain (the
argument's name first), and calls that look odd but must WORK (NumPy/JAX scalars where Python
numbers are expected, integer arrays, empty time axes), each checked against the right answer.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.bookkit.benchmark import run_benchmark
from lrnn_core.bookkit.scale import by_scale
from lrnn_core.bookkit.tables import ClaimTable
from lrnn_core.bookkit.widgets import explore
from lrnn_core.core.eigenvalues import (
    lru_eigenvalues,
    lru_params,
    lru_ring_init,
    real_init,
    ring_init,
    roots_of_unity,
)
from lrnn_core.core.lru import LRU, LRUModel, MLPHead
from lrnn_core.core.scan import linear_scan
from lrnn_core.data.mnist import load_mnist, mnist_sequences

KEY = jax.random.key(0)
LAM = np.array([0.5, -0.25])
U = np.ones((3, 2))
NAN = float("nan")
INF = float("inf")


def _fig(a):
    import matplotlib.pyplot as plt

    return plt.figure()


BAD = {
    # --- scan ------------------------------------------------------------------------------
    "scan unknown method": (
        lambda: linear_scan(LAM, U, method="fast"),
        ValueError,
        "method must be one of",
    ),
    "scan method not a str": (lambda: linear_scan(LAM, U, method=1), TypeError, "method must be"),
    "scan reverse='yes'": (
        lambda: linear_scan(LAM, U, reverse="yes"),
        TypeError,
        "reverse must be a bool",
    ),
    "scan reverse=1": (lambda: linear_scan(LAM, U, reverse=1), TypeError, "reverse must be a bool"),
    "scan bool u": (
        lambda: linear_scan(LAM, np.ones((3, 2), bool)),
        TypeError,
        "u must be a float or complex array",
    ),
    "scan str lam": (lambda: linear_scan("0.5", U), TypeError, "lam must be a numeric array"),
    "scan NaN lam": (lambda: linear_scan([NAN, 0.5], U), ValueError, "lam contains non-finite"),
    "scan inf h0": (lambda: linear_scan(LAM, U, [INF, 0.0]), ValueError, "h0 contains non-finite"),
    "scan big int u, float32": (
        lambda: linear_scan(LAM, np.full((3, 2), 2**24 + 1)),
        ValueError,
        "u holds integers up to 16777217",
    ),
    "scan 1-D u": (lambda: linear_scan(LAM, np.ones(2)), ValueError, "u must have at least 2"),
    "scan lam shape": (lambda: linear_scan(np.ones(3), U), ValueError, "lam of shape (3,)"),
    # --- eigenvalues -----------------------------------------------------------------------
    "ring_init N=0": (lambda: ring_init(KEY, 0, 0.5, 0.9), ValueError, "N must be >= 1"),
    "ring_init N=True": (lambda: ring_init(KEY, True, 0.5, 0.9), TypeError, "N must be an int"),
    "ring_init N=4.0": (lambda: ring_init(KEY, 4.0, 0.5, 0.9), TypeError, "N must be an int"),
    "ring_init NaN r_min": (
        lambda: ring_init(KEY, 4, NAN, 0.9),
        ValueError,
        "r_min must be finite",
    ),
    "ring_init inf r_max": (
        lambda: ring_init(KEY, 4, 0.5, INF),
        ValueError,
        "r_max must be finite",
    ),
    "ring_init bool r_max": (
        lambda: ring_init(KEY, 4, 0.0, True),
        TypeError,
        "r_max must be a real number",
    ),
    "ring_init str max_phase": (
        lambda: ring_init(KEY, 4, 0.5, 0.9, "pi"),
        TypeError,
        "max_phase must be a real number",
    ),
    "ring_init NaN max_phase": (
        lambda: ring_init(KEY, 4, 0.5, 0.9, NAN),
        ValueError,
        "max_phase must be finite",
    ),
    "ring_init max_phase > 2 pi": (
        lambda: ring_init(KEY, 4, 0.5, 0.9, 7.0),
        ValueError,
        "max_phase must be <=",
    ),
    "ring_init bad dtype": (
        lambda: ring_init(KEY, 4, 0.5, 0.9, dtype=jnp.int32),
        TypeError,
        "dtype must be a real floating dtype",
    ),
    "real_init r_min < -1": (
        lambda: real_init(KEY, 4, -1.5, 0.5),
        ValueError,
        "r_min must be >= -1",
    ),
    "roots_of_unity N=-1": (lambda: roots_of_unity(-1), ValueError, "N must be >= 1"),
    "lru_ring_init r_max=0": (
        lambda: lru_ring_init(KEY, 4, 0.0, 0.0),
        ValueError,
        "the LRU needs r_max > 0",
    ),
    "lru_eigenvalues complex nu_log": (
        lambda: lru_eigenvalues(np.zeros(2, complex), np.zeros(2)),
        TypeError,
        "nu_log must be real",
    ),
    "lru_params unstable lam": (lambda: lru_params([1.5j]), ValueError, "lam must be stable"),
    "lru_params empty lam": (
        lambda: lru_params(np.zeros(0, complex)),
        ValueError,
        "lam must not be empty",
    ),
    # --- LRU ---------------------------------------------------------------------------------
    "LRU unknown scan_method": (
        lambda: LRU(2, 1, scan_method="fast", rngs=nnx.Rngs(0)),
        ValueError,
        "scan_method must be one of",
    ),
    "LRU N=0": (lambda: LRU(0, 1, rngs=nnx.Rngs(0)), ValueError, "N must be >= 1"),
    "LRU N=True": (
        lambda: LRU(True, 1, rngs=nnx.Rngs(0)),
        TypeError,
        "N must be an int",
    ),
    "LRU M=2.0": (lambda: LRU(2, 2.0, rngs=nnx.Rngs(0)), TypeError, "M must be an int"),
    "LRU NaN r_min": (
        lambda: LRU(2, 1, r_min=NAN, rngs=nnx.Rngs(0)),
        ValueError,
        "r_min must be finite",
    ),
    "LRU bool input": (
        lambda: LRU(2, 1, rngs=nnx.Rngs(0))(np.ones((3, 1), bool)),
        TypeError,
        "u must be a float or complex array",
    ),
    "LRU empty time axis mismatch": (
        lambda: LRU(2, 3, rngs=nnx.Rngs(0))(np.zeros((0, 1))),
        ValueError,
        "u must have shape",
    ),
    "LRU int param_dtype": (
        lambda: LRU(2, 1, param_dtype=jnp.int32, rngs=nnx.Rngs(0)),
        TypeError,
        "param_dtype must be a real floating dtype, got int32",
    ),
    "roots_of_unity real dtype": (
        lambda: roots_of_unity(4, dtype=np.float32),
        TypeError,
        "dtype must be a complex floating dtype",
    ),
    "real_init complex dtype": (
        lambda: real_init(KEY, 4, 0.0, 0.5, dtype="complex64"),
        TypeError,
        "dtype must be a real floating dtype",
    ),
    "MLPHead D=(4, 0)": (
        lambda: MLPHead(2, 1, D=(4, 0), rngs=nnx.Rngs(0)),
        ValueError,
        "D must be >= 1",
    ),
    "LRUModel d_model=0": (
        lambda: LRUModel(1, 2, 1, d_model=0, rngs=nnx.Rngs(0)),
        ValueError,
        "d_model must be >= 1",
    ),
    # --- bookkit -----------------------------------------------------------------------------
    "explore dpi=True": (lambda: explore(_fig, {"a": [0]}, dpi=True), TypeError, "dpi must be"),
    "explore dpi=NaN": (
        lambda: explore(_fig, {"a": [0]}, dpi=NAN),
        ValueError,
        "dpi must be finite",
    ),
    "explore max_frames=1.5": (
        lambda: explore(_fig, {"a": [0]}, max_frames=1.5),
        TypeError,
        "max_frames must be an int",
    ),
    "ClaimTable holds='yes'": (
        lambda: ClaimTable("a/b").add("c", paper="p", note="o", holds="yes"),
        TypeError,
        "holds must be a bool",
    ),
    "ClaimTable holds=1": (
        lambda: ClaimTable("a/b").add("c", paper="p", note="o", holds=1),
        TypeError,
        "holds must be a bool",
    ),
    "benchmark unknown method": (
        lambda: run_benchmark([(1, 4, 2)], methods=["fast"]),
        ValueError,
        "methods must be one of",
    ),
    "benchmark repeats=0": (
        lambda: run_benchmark([(1, 4, 2)], repeats=0),
        ValueError,
        "repeats must be >= 1",
    ),
    "benchmark dtype": (
        lambda: run_benchmark([(1, 4, 2)], dtype="int8"),
        ValueError,
        "dtype must be one of",
    ),
    "benchmark check='no'": (
        lambda: run_benchmark([(1, 4, 2)], check="no"),
        TypeError,
        "check must be a bool",
    ),
    "benchmark shape with 0": (
        lambda: run_benchmark([(1, 0, 2)]),
        ValueError,
        "shapes L must be >= 1",
    ),
    # --- data --------------------------------------------------------------------------------
    "mnist split": (lambda: load_mnist("valid"), ValueError, "split must be one of"),
    "mnist split not a str": (lambda: load_mnist(1), TypeError, "split must be a str"),
    "mnist n=True": (lambda: mnist_sequences("test", n=True), TypeError, "n must be an int"),
    "mnist n=2.0": (lambda: mnist_sequences("test", n=2.0), TypeError, "n must be an int"),
}


@pytest.mark.parametrize(("call", "error", "match"), BAD.values(), ids=BAD.keys())
def test_bad_call_names_the_argument(call, error, match):
    with pytest.raises(error) as info:
        call()
    assert match in str(info.value)


# --- odd but valid: must give the right answer ------------------------------------------------


def _serial(lam, u):
    h, out = np.zeros(u.shape[-1], complex), []
    for k in range(u.shape[0]):
        h = lam * h + u[k]
        out.append(h)
    return np.array(out)


def test_scan_integer_inputs_are_exact():
    got = linear_scan(np.array([1, 2]), np.array([[1, 1], [2, 3], [0, -1]]))
    np.testing.assert_array_equal(np.asarray(got), [[1, 1], [3, 5], [3, 9]])


def test_scan_large_integers_work_with_float64_on():
    with jax.enable_x64(True):
        got = linear_scan(np.array([1]), np.array([[2**40], [1]]))
        assert got.dtype == jnp.float64
        np.testing.assert_array_equal(np.asarray(got), [[2**40], [2**40 + 1]])


@pytest.mark.parametrize("lam", [np.float32(0.5), jnp.float32(0.5), np.array(0.5), 0.5])
def test_scan_scalar_lam_of_any_kind(lam):
    u = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(np.asarray(linear_scan(lam, u)), _serial(0.5, u).real, rtol=1e-6)


def test_scan_numpy_bool_reverse_and_empty_time_axis():
    u = np.arange(6.0).reshape(3, 2)
    want = _serial(LAM, u[::-1])[::-1].real
    np.testing.assert_allclose(np.asarray(linear_scan(LAM, u, reverse=np.bool_(True))), want)
    assert linear_scan(LAM, np.zeros((0, 2))).shape == (0, 2)


@pytest.mark.parametrize(
    ("n", "r_min", "r_max", "phase"),
    [
        (np.int64(5), np.float32(0.5), np.float64(0.9), np.float32(1.0)),
        (jnp.int32(5), jnp.float32(0.5), jnp.array(0.9), jnp.float32(1.0)),
    ],
)
def test_ring_init_takes_numpy_and_jax_scalars(n, r_min, r_max, phase):
    want = ring_init(KEY, 5, 0.5, 0.9, 1.0)
    got = ring_init(KEY, n, r_min, r_max, phase)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    assert np.all((np.abs(np.asarray(got)) >= 0.5 - 1e-6) & (np.abs(np.asarray(got)) <= 0.9 + 1e-6))


def test_roots_of_unity_from_a_numpy_int():
    got = np.asarray(roots_of_unity(np.int64(4)))
    np.testing.assert_allclose(got, [1, 1j, -1, -1j], atol=1e-6)


def test_lru_from_numpy_ints_and_an_integer_input():
    layer = LRU(np.int64(3), np.int32(2), r_min=np.float32(0.5), rngs=nnx.Rngs(0))
    assert layer.N == 3 and type(layer.N) is int
    y_int = layer(np.array([[1, 2], [3, 4]]))
    y_float = layer(np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(np.asarray(y_int), np.asarray(y_float))


def test_lru_params_round_trip_for_an_integer_free_input():
    lam = np.array([0.5j, -0.25 + 0.1j])
    nu_log, theta_log = lru_params(lam)
    np.testing.assert_allclose(np.asarray(lru_eigenvalues(nu_log, theta_log)), lam, rtol=1e-5)


def test_by_scale_paper_defaults_to_book(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "paper")
    assert by_scale(ci=1, book=2) == 2
    assert math.isclose(by_scale(ci=1.0, book=2.0, paper=3.0), 3.0)
