"""Hostile input to the Orvieto part of the library and to ``core.vandermonde``.

Each bad call must raise the right error type with a message that names the argument; each
"must work" call (NumPy/JAX scalars where Python numbers are expected, integer arrays) must give
the right answer.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.hippo import legs_reconstruct, legs_states
from lrnn_core.core.vandermonde import (
    gram_condition,
    pinv_apply,
    pseudo_inverse,
    reconstruct,
    vandermonde,
    vandermonde64,
)
from lrnn_core.core.verdicts import compare, step_verdicts
from lrnn_core.orvieto.conditioning import (
    GramDraws,
    aliased_average,
    error_grid,
    gram_orderings,
    grid_orderings,
    law_eigenvalues,
    pinv_drop,
    ring_eigenvalues,
    vandermonde_norms,
)
from lrnn_core.orvieto.memorisation import (
    PrefixInverse,
    block_system,
    reconstruct_blocks,
    reconstruct_from_last_state,
    rnn_states,
    with_time,
)
from lrnn_core.orvieto.sparse import (
    gamma,
    map_condition_candidates,
    reconstruction_sweep,
    vandermonde_rank_profile,
)
from lrnn_core.orvieto.wavelets import sparse_signal, wavelet_basis

LAM = np.exp(2j * np.pi * np.arange(4) / 4)  # roots of unity: V_4 is a scaled unitary
U = np.arange(8.0).reshape(2, 4) / 8
_ONE_FULL = GramDraws((2, 4), (0.5,), np.ones((2, 1, 2)), np.ones((2, 1, 2)), np.ones((2, 1, 2)))
BASIS = np.eye(8)[:, :2]
PREFIX = PrefixInverse(LAM, 4)

BAD_CALLS = [
    # --- core.vandermonde ---
    ("bool eigenvalues", lambda: vandermonde64([True, False], 3), TypeError, "lam must be a float"),
    ("string eigenvalues", lambda: vandermonde64("abc", 3), TypeError, "lam must be a numeric"),
    ("empty eigenvalues", lambda: vandermonde64([], 3), ValueError, "lam must be a non-empty"),
    ("inf eigenvalue", lambda: vandermonde64([np.inf], 3), ValueError, "lam contains non-finite"),
    ("bool length", lambda: vandermonde64(LAM, True), TypeError, "L must be an int"),
    ("float length", lambda: vandermonde64(LAM, 3.0), TypeError, "L must be an int"),
    ("empty JAX lam", lambda: vandermonde(jnp.zeros(0), 3), ValueError, "lam must not be empty"),
    ("real_input str", lambda: reconstruct(LAM, LAM, 2, real_input="no"), TypeError, "real_input"),
    ("rcond NaN", lambda: reconstruct(LAM, LAM, 2, rcond=np.nan), ValueError, "rcond must be"),
    ("rcond bool", lambda: reconstruct(LAM, LAM, 2, rcond=True), TypeError, "rcond must be a real"),
    ("rcond > 1", lambda: reconstruct(LAM, LAM, 2, rcond=1.5), ValueError, "rcond must be <= 1"),
    ("step 0", lambda: reconstruct(LAM, LAM, 0), ValueError, "k must be >= 1"),
    ("state too long", lambda: reconstruct(LAM, np.ones(5), 2), ValueError, "x_k has 5 state"),
    ("NaN state", lambda: reconstruct(LAM, [1, 2, np.nan, 4], 2), ValueError, "x_k contains"),
    ("vector as matrix", lambda: pseudo_inverse(np.ones(3)), ValueError, "A must have at least 2"),
    ("empty matrix", lambda: pseudo_inverse(np.zeros((0, 3))), ValueError, "A must not be empty"),
    ("NaN matrix", lambda: pseudo_inverse([[1.0, np.nan]]), ValueError, "A contains non-finite"),
    ("bool matrix", lambda: pseudo_inverse(np.eye(2, dtype=bool)), TypeError, "A must be a float"),
    ("rhs length", lambda: pinv_apply(np.eye(3), np.ones(4)), ValueError, "x has 4 entries"),
    ("on_range int", lambda: gram_condition(np.eye(3), on_range=1), TypeError, "on_range"),
    # --- orvieto.conditioning ---
    ("negative seed", lambda: ring_eigenvalues(-1, 4, 0.5), ValueError, "seed must be >= 0"),
    ("float N", lambda: ring_eigenvalues(0, 4.0, 0.5), TypeError, "N must be an int"),
    ("NaN radius", lambda: ring_eigenvalues(0, 4, np.nan), ValueError, "r_min must be finite"),
    ("bool radius", lambda: ring_eigenvalues(0, 4, True), TypeError, "r_min must be a real"),
    ("radius > 1", lambda: ring_eigenvalues(0, 4, 0.5, 1.5), ValueError, "r_max must be <= 1"),
    ("unknown law", lambda: law_eigenvalues("disk", 4), ValueError, "law must be one of"),
    ("law not str", lambda: law_eigenvalues(3, 4), TypeError, "law must be a str"),
    (
        "repeated seeds",
        lambda: error_grid(U, (4,), (0.5,), [[[0, 0]]]),
        ValueError,
        "seeds must not",
    ),
    (
        "flat seeds",
        lambda: error_grid(U, (4,), (0.5,), (0, 1)),
        ValueError,
        "seeds must have shape",
    ),
    (
        "r_min > 1",
        lambda: error_grid(U, (4,), (1.5,), [[[0]]]),
        ValueError,
        "r_mins[0] must be <= 1",
    ),
    (
        "bool count",
        lambda: error_grid(U, (4,), (0.5,), [[[0]]], n_examples=True),
        TypeError,
        "n_ex",
    ),
    ("one draw", lambda: compare([1.0], [1.0, 2.0]), ValueError, "a must hold at least two"),
    ("zero error", lambda: compare([0.0, 1.0], [1.0, 2.0]), ValueError, "a must hold positive"),
    ("one cell", lambda: step_verdicts(np.ones((1, 3))), ValueError, "values must be (cells"),
    ("grid 2-D", lambda: grid_orderings(np.ones((2, 3))), ValueError, "values must be (N"),
    ("floors shape", lambda: grid_orderings(np.ones((2, 2, 2)), [1.0]), ValueError, "floors must"),
    ("one N >= L", lambda: gram_orderings(_ONE_FULL, 4, 1e30), ValueError, "at least two N >= L"),
    ("no draws", lambda: pinv_drop([], [1]), ValueError, "far and near must"),
    ("N = 0 aliasing", lambda: aliased_average(U, 0), ValueError, "N must be >= 1"),
    ("norms of string", lambda: vandermonde_norms("x", 3), TypeError, "lam must be"),
    # --- orvieto.memorisation ---
    ("bool sequences", lambda: reconstruct_from_last_state(LAM, U > 0), TypeError, "u must be a"),
    (
        "complex input",
        lambda: reconstruct_from_last_state(LAM, U + 1j),
        TypeError,
        "u must be real",
    ),
    ("empty input", lambda: reconstruct_from_last_state(LAM, np.ones(0)), ValueError, "u must not"),
    (
        "3-D input",
        lambda: reconstruct_from_last_state(LAM, np.ones((1, 2, 4))),
        ValueError,
        "u must",
    ),
    (
        "real_input str (decoder)",
        lambda: reconstruct_from_last_state(LAM, U, real_input="False"),
        TypeError,
        "real_input must be a bool",
    ),
    ("L float", lambda: PrefixInverse(LAM, 2.5), TypeError, "L must be an int"),
    ("step bool", lambda: PREFIX.apply(True, LAM), TypeError, "k must be an int"),
    ("step > L", lambda: PREFIX.identity_residual(5), ValueError, "k must be <= L = 4"),
    ("flag str", lambda: block_system([LAM], time_counter="yes"), TypeError, "time_counter"),
    ("no blocks", lambda: block_system([]), ValueError, "lams must be a non-empty"),
    ("string block", lambda: block_system(["ab"]), TypeError, "lams[0] must be a numeric"),
    ("state size", lambda: reconstruct_blocks([LAM], np.ones(3), 2), ValueError, "x_k must have"),
    ("NaN channel", lambda: with_time([[np.nan]]), ValueError, "v contains non-finite"),
    (
        "B shape",
        lambda: rnn_states(np.ones(3), np.ones((3, 2)), np.ones((5, 1))),
        ValueError,
        "B must have shape",
    ),
    # --- orvieto.sparse, wavelets, hippo ---
    (
        "step 0 in ks",
        lambda: reconstruction_sweep(LAM, BASIS, np.ones(8), [0]),
        ValueError,
        "ks[0]",
    ),
    ("ks decrease", lambda: reconstruction_sweep(LAM, BASIS, np.ones(8), [3, 2]), ValueError, "ks"),
    ("chunk 0", lambda: reconstruction_sweep(LAM, BASIS, np.ones(8), chunk=0), ValueError, "chunk"),
    ("u wrong length", lambda: reconstruction_sweep(LAM, BASIS, np.ones(7)), ValueError, "u must"),
    ("unstable lam", lambda: gamma([1.5], BASIS), ValueError, "lam must satisfy"),
    ("k beyond L", lambda: gamma(LAM, BASIS, 9), ValueError, "k must be <= L = 8"),
    ("bool basis", lambda: gamma(LAM, BASIS > 0, 2), TypeError, "basis must be a float"),
    ("not orthonormal", lambda: map_condition_candidates(LAM, 2 * BASIS), ValueError, "ortho"),
    ("stride 0", lambda: vandermonde_rank_profile(LAM, 10, 0), ValueError, "stride must be >= 1"),
    (
        "unknown wavelet",
        lambda: wavelet_basis(16, 4, "nonsense"),
        ValueError,
        "wavelet must be one",
    ),
    ("wavelet not str", lambda: wavelet_basis(16, 4, 3), TypeError, "wavelet must be a str"),
    ("P bool", lambda: wavelet_basis(16, True), TypeError, "P must be an int"),
    ("float column", lambda: wavelet_basis(16, columns=[0.5]), TypeError, "columns[0] must be"),
    ("repeated column", lambda: wavelet_basis(16, columns=[1, 1]), ValueError, "columns must be"),
    ("P and columns", lambda: wavelet_basis(16, 2, columns=[1]), ValueError, "P and columns"),
    (
        "zero signals",
        lambda: sparse_signal(np.random.default_rng(0), BASIS, 0),
        ValueError,
        "batch must be >= 1",
    ),
    ("3-D LegS input", lambda: legs_states(np.ones((2, 2, 2)), 4), ValueError, "u must have shape"),
    ("LegS N = 0", lambda: legs_states(np.ones(3), 0), ValueError, "N must be >= 1"),
    (
        "NaN coefficients",
        lambda: legs_reconstruct([np.nan], 4),
        ValueError,
        "c contains non-finite",
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [pytest.param(call, error, words, id=name) for name, call, error, words in BAD_CALLS],
)
def test_bad_call_raises_naming_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value), str(info.value)


def test_table_is_large_enough():
    assert len(BAD_CALLS) >= 25
    assert len({name for name, *_ in BAD_CALLS}) == len(BAD_CALLS)


def test_big_integers_are_refused_when_float64_is_off():
    """An integer input beyond 2**24 cannot be a float32 exactly: refused, naming the argument."""
    with jax.enable_x64(False), pytest.raises(ValueError, match="u holds integers up to"):
        rnn_states(np.full(2, 0.5), np.ones((2, 1)), np.full((3, 1), 2**25))


def test_big_integers_are_exact_in_the_float64_tools():
    """The NumPy float64 tools take integers beyond 2**32 as float64: 2**40 in, 2**40 back
    (to rounding relative to the largest entry)."""
    u = np.array([2**40, 3, -(2**35), 7])
    np.testing.assert_allclose(reconstruct_from_last_state(LAM, u), u, rtol=0, atol=1e-14 * 2**40)


def test_numpy_and_jax_scalars_work_where_python_numbers_are_expected():
    expected = ring_eigenvalues(0, 4, 0.5)
    np.testing.assert_array_equal(
        ring_eigenvalues(np.int64(0), np.int32(4), np.float64(0.5)), expected
    )
    np.testing.assert_array_equal(ring_eigenvalues(0, jnp.int32(4), 0.5), expected)
    np.testing.assert_array_equal(vandermonde64(LAM, np.int64(3)), np.vander(LAM, 3))
    V = np.vander(LAM, 4)
    x = V @ np.arange(4.0)
    np.testing.assert_allclose(
        reconstruct(LAM, x, jnp.int32(4), rcond=np.float32(1e-6)), np.arange(4.0), atol=1e-12
    )
    assert PrefixInverse(LAM, np.int64(4)).identity_residual(np.int32(4)) < 1e-12
    np.testing.assert_allclose(aliased_average(U, np.int64(2)), aliased_average(U, 2))


def test_integer_arrays_give_the_float_answer():
    u = np.array([[1, 2, 3, 4]])
    np.testing.assert_allclose(reconstruct_from_last_state(LAM, u), u, atol=1e-12)
    np.testing.assert_array_equal(vandermonde64(np.array([2, 3]), 3), [[4, 2, 1], [9, 3, 1]])
    grid = error_grid(np.ones((2, 4), dtype=int), (4,), (1.0,), [[[0]]])
    np.testing.assert_allclose(grid.abs_by_k, 0.0, atol=1e-9)
    np.testing.assert_allclose(legs_reconstruct(legs_states(np.ones(16, dtype=int), 3), 16), 1.0)
