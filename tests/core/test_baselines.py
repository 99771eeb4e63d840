"""The two baselines of a trained row, against brute-force least squares on numbers."""

import numpy as np
import pytest

from lrnn_core.core.baselines import causal_filter, causal_filter_mse, ignores_input_mse


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
        (lambda: causal_filter(np.ones(4), np.ones(4)), ValueError, "u must have 2 dimensions"),
        (lambda: causal_filter(np.full((2, 3), np.nan), np.ones((2, 3))), ValueError, "finite"),
        (lambda: causal_filter(np.ones((2, 3)), np.ones((2, 3)), lags=0), ValueError, "lags"),
        (lambda: ignores_input_mse(np.ones((2, 3)), np.ones((2, 4))), ValueError, "y_test"),
    ],
)
def test_bad_input_names_what_is_wrong(call, error, match):
    with pytest.raises(error, match=match):
        call()
