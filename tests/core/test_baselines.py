"""The two baselines of a trained row, against brute-force least squares on numbers."""

import numpy as np
import pytest

from lrnn_core.core.baselines import (
    causal_filter,
    causal_filter_mse,
    ignores_input_mse,
    linear_mses,
    time_varying_map,
    time_varying_prediction,
)

ONES = np.ones((9, 3))  # constant inputs: their centred Gram is zero


def _design(u: np.ndarray, P: int) -> np.ndarray:
    """The (n L) x P design matrix of the causal filter, formed explicitly."""
    n, L = u.shape
    X = np.zeros((n, L, P))
    for j in range(P):
        X[:, j:, j] = u[:, : L - j]
    return X.reshape(n * L, P)


@pytest.mark.parametrize("lags", [None, 5])
def test_causal_filter_is_the_least_squares_solution(lags):
    rng = np.random.default_rng(0)
    u, y = rng.normal(size=(7, 12)), rng.normal(size=(7, 12))
    h, ubar, ybar = causal_filter(u, y, lags=lags)
    X = _design(u - ubar, 12 if lags is None else lags)
    expected = np.linalg.lstsq(X, (y - ybar).ravel(), rcond=None)[0]
    np.testing.assert_allclose(h, expected, rtol=1e-8, atol=1e-10)


def test_a_linear_map_is_recovered_and_a_nonlinear_one_is_not():
    rng = np.random.default_rng(1)
    u = rng.normal(size=(200, 40))
    taps = 0.8 ** np.arange(40)
    linear = np.stack([np.convolve(row, taps)[:40] for row in u]) + np.sin(np.arange(40))
    u_tr, u_te, y_tr, y_te = u[:150], u[150:], linear[:150], linear[150:]
    assert causal_filter_mse(u_tr, y_tr, u_te, y_te) < 1e-20
    assert ignores_input_mse(y_tr, y_te) > 1.0
    squared = linear**2  # the square of a linear filter: the linear baseline cannot fit it
    base = ignores_input_mse(squared[:150], squared[150:])
    assert causal_filter_mse(u_tr, squared[:150], u_te, squared[150:]) > 0.5 * base


def test_ignores_input_is_the_mean_training_output():
    y_train = np.array([[0.0, 2.0], [2.0, 4.0]])
    y_test = np.array([[1.0, 3.0], [3.0, 3.0]])
    assert ignores_input_mse(y_train, y_test) == pytest.approx((0 + 0 + 4 + 0) / 4)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: causal_filter(np.ones((3, 4)), np.ones((3, 5))), ValueError, "y must have shape"),
        (lambda: causal_filter(np.ones(4), np.ones(4)), ValueError, "u must have shape"),
        (lambda: causal_filter(np.full((2, 3), np.nan), np.ones((2, 3))), ValueError, "finite"),
        (lambda: causal_filter(np.ones((2, 3)), np.ones((2, 3)), lags=0), ValueError, "lags"),
        (lambda: ignores_input_mse(np.ones((2, 3)), np.ones((2, 4))), ValueError, "y_test"),
        (lambda: time_varying_map(np.ones((4, 3)), np.ones((4, 3))), ValueError, "at least 5"),
        (
            lambda: time_varying_map(ONES, ONES, ridge=0),
            ValueError,
            "singular",
        ),
        (lambda: time_varying_map(ONES, ONES, ridge=-1), ValueError, "ridge"),
        (lambda: time_varying_prediction((1, 2), np.ones((2, 3))), TypeError, "TimeVaryingMap"),
    ],
)
def test_bad_input_names_what_is_wrong(call, error, match):
    with pytest.raises(error, match=match):
        call()


def _planted(rng, u):
    """A causal affine map with a different row of taps at every step (lower-triangular H)."""
    L = u.shape[1]
    H = np.tril(rng.normal(size=(L, L))) / np.sqrt(L)
    return np.cos(np.arange(L)) + u @ H.T, H


def test_time_varying_map_is_the_least_squares_solution_of_each_step():
    rng = np.random.default_rng(2)
    u, y = rng.normal(size=(30, 8)), rng.normal(size=(30, 8))
    fit = time_varying_map(u, y, ridge=0.0)
    for k in range(8):  # step k: intercept and the inputs up to k, by brute force
        X = np.column_stack([np.ones(30), u[:, : k + 1]])
        coef = np.linalg.lstsq(X, y[:, k], rcond=None)[0]
        np.testing.assert_allclose(fit.H[k, : k + 1], coef[1:], rtol=1e-9, atol=1e-12)
        assert np.all(fit.H[k, k + 1 :] == 0)
        v = rng.normal(size=(3, 8))
        np.testing.assert_allclose(
            time_varying_prediction(fit, v)[:, k], coef[0] + v[:, : k + 1] @ coef[1:], rtol=1e-9
        )


def test_a_time_varying_system_is_recovered_and_the_filter_misses_it():
    rng = np.random.default_rng(3)
    u = rng.normal(size=(300, 20))
    y, H = _planted(rng, u)
    fit = time_varying_map(u[:240], y[:240])
    np.testing.assert_allclose(fit.H, H, atol=1e-8)
    mses = linear_mses(u[:240], y[:240], u[240:], y[240:])
    assert mses["time-varying map"] < 1e-16 * np.mean(y**2)
    assert mses["time-invariant filter"] > 0.1 * ignores_input_mse(y[:240], y[240:])


def test_the_time_varying_map_contains_the_filter_and_misses_a_nonlinear_map():
    rng = np.random.default_rng(4)
    u = rng.normal(size=(300, 20))
    taps = 0.7 ** np.arange(20)
    y = np.stack([np.convolve(row, taps)[:20] for row in u])
    assert max(linear_mses(u[:240], y[:240], u[240:], y[240:]).values()) < 1e-16
    squared = y**2
    base = ignores_input_mse(squared[:240], squared[240:])
    assert min(linear_mses(u[:240], squared[:240], u[240:], squared[240:]).values()) > 0.5 * base


def test_inputs_in_a_low_dimensional_span_are_fitted_with_fewer_sequences_than_steps():
    rng = np.random.default_rng(5)
    basis = rng.normal(size=(4, 40))  # every input lies in a 4-dimensional span of R^40
    u = rng.normal(size=(60, 4)) @ basis
    y, _ = _planted(rng, u)
    fit = time_varying_map(u[:30], y[:30])  # 30 sequences, 40 steps: the ridge is chosen
    err = np.mean((time_varying_prediction(fit, u[30:]) - y[30:]) ** 2)
    assert err < 1e-8 * np.mean((y - y.mean(axis=0)) ** 2)
