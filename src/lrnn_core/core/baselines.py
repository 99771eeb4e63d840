"""The two baselines every trained sequence map is measured against, on the same test set.

A trained model's test error is evidence that it *learned the input-output map* only if it beats

* the best predictor that **ignores the input**: the mean training output
  ``ybar_k = mean_n y^n_k`` (for ODE flows the shared free response, for images the mean image),
  :func:`ignores_input_mse`;
* the best **linear map** of the input, here the affine causal filter
  ``yhat_k = ybar_k + sum_{j=0}^{P-1} h_j (u_{k-j} - ubar_{k-j})`` (``u_{<0} = 0``) whose taps
  ``h`` minimise the training squared error, :func:`causal_filter_mse`.

The filter is the least-squares solution of the normal equations ``G h = b`` with
``G_ij = sum_n sum_k uc^n_{k-i} uc^n_{k-j}`` and ``b_i = sum_n sum_k uc^n_{k-i} yc^n_k`` (``uc``,
``yc`` centred by their training means). Both are assembled from lag products without forming the
``(n L) x P`` design matrix: for ``i >= j`` and ``d = i - j``,
``G_ij = sum_{m=0}^{L-1-i} p_d(m)`` with ``p_d(m) = sum_n uc^n_m uc^n_{m+d}``. NumPy float64 (the
Gram of a long filter is ill-conditioned; a tiny ridge ``1e-12 trace(G)/P`` keeps it solvable).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.signal
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import as_float64, check_finite, check_shape, positive_int

__all__ = ["causal_filter", "causal_filter_mse", "ignores_input_mse"]


def _pair(name: str, a: ArrayLike, ndim: int | None = None) -> np.ndarray:
    a = as_float64(name, a)
    check_finite(name, a)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {a.shape}")
    if a.shape[0] < 1:
        raise ValueError(f"{name} must hold at least one example, got shape {a.shape}")
    return a


def ignores_input_mse(
    y_train: Float[ArrayLike, "n_train ..."], y_test: Float[ArrayLike, "n_test ..."]
) -> float:
    """Test MSE of the mean training output ``ybar`` (the best constant-in-the-input predictor
    under squared error), averaged over every test entry."""
    y_train, y_test = _pair("y_train", y_train), _pair("y_test", y_test)
    check_shape("y_test", y_test, (None, *y_train.shape[1:]))
    return float(np.mean((y_test - y_train.mean(axis=0)) ** 2))


def causal_filter(
    u: Float[ArrayLike, "n L"], y: Float[ArrayLike, "n L"], *, lags: int | None = None
) -> tuple[Float[np.ndarray, " P"], Float[np.ndarray, " L"], Float[np.ndarray, " L"]]:
    """Least-squares affine causal filter of ``P = lags`` taps (default ``L``): ``(h, ubar, ybar)``
    with ``yhat_k = ybar_k + sum_j h_j (u_{k-j} - ubar_{k-j})``."""
    u, y = _pair("u", u, 2), _pair("y", y, 2)
    check_shape("y", y, u.shape)
    n, L = u.shape
    P = L if lags is None else min(positive_int("lags", lags), L)
    ubar, ybar = u.mean(axis=0), y.mean(axis=0)
    uc, yc = u - ubar, y - ybar
    G = np.empty((P, P))
    for d in range(P):
        p = np.cumsum(np.einsum("nm,nm->m", uc[:, : L - d], uc[:, d:]))  # p[M] = sum_{m<=M} p_d
        i = np.arange(d, P)
        G[i, i - d] = G[i - d, i] = p[L - 1 - i]
    b = np.array([np.einsum("nm,nm->", uc[:, : L - i], yc[:, i:]) for i in range(P)])
    ridge = 1e-12 * max(np.trace(G), np.finfo(float).tiny) / P
    h = scipy.linalg.solve(G + ridge * np.eye(P), b, assume_a="pos")
    return h, ubar, ybar


def causal_filter_mse(
    u_train: Float[ArrayLike, "n_train L"],
    y_train: Float[ArrayLike, "n_train L"],
    u_test: Float[ArrayLike, "n_test L"],
    y_test: Float[ArrayLike, "n_test L"],
    *,
    lags: int | None = None,
) -> float:
    """Test MSE of :func:`causal_filter` fitted on the training pairs (the linear baseline)."""
    h, ubar, ybar = causal_filter(u_train, y_train, lags=lags)
    u_test, y_test = _pair("u_test", u_test, 2), _pair("y_test", y_test, 2)
    check_shape("u_test", u_test, (None, ubar.shape[0]))
    check_shape("y_test", y_test, u_test.shape)
    L = ubar.shape[0]
    yhat = ybar + scipy.signal.fftconvolve(u_test - ubar, h[None, :], axes=1)[:, :L]
    return float(np.mean((y_test - yhat) ** 2))
