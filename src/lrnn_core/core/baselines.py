"""The two baselines every trained sequence map is measured against, on the same test set.

A trained model's test error is evidence that it *learned the input-output map* only if it beats

* the best predictor that **ignores the input**: the mean training output
  ``ybar_k = mean_n y^n_k`` (for ODE flows the shared free response, for images the mean image),
  :func:`ignores_input_mse`;
* the best **linear map** of the input: the better (on the test set) of two least-squares causal
  affine maps, both returned by :func:`linear_mses`:

  - the time-invariant **filter** ``yhat_k = ybar_k + sum_{j=0}^{P-1} h_j (u_{k-j} - ubar_{k-j})``
    (``u_{<0} = 0``), one set of taps ``h`` for every step, :func:`causal_filter_mse`;
  - the **time-varying map** ``yhat_k = ybar_k + sum_{j<=k} H_kj (u_j - ubar_j)``, a row of taps per
    step, :func:`time_varying_map`. It contains the filter (``H_kj = h_{k-j}``), and is the best
    linear map when the response to the input changes along the sequence (an ODE flow started
    from one state); it has ``L (L+1) / 2`` coefficients, so it needs many training sequences or a
    ridge.

The filter is the least-squares solution of the normal equations ``G h = b`` with
``G_ij = sum_n sum_k uc^n_{k-i} uc^n_{k-j}`` and ``b_i = sum_n sum_k uc^n_{k-i} yc^n_k`` (``uc``,
``yc`` centred by their training means). Both are assembled from lag products without forming the
``(n L) x P`` design matrix: for ``i >= j`` and ``d = i - j``,
``G_ij = sum_{m=0}^{L-1-i} p_d(m)`` with ``p_d(m) = sum_n uc^n_m uc^n_{m+d}``. NumPy float64 (the
Gram of a long filter is ill-conditioned; a tiny ridge ``1e-12 trace(G)/P`` keeps it solvable).

The time-varying map's step ``k`` solves ``(G_k + r I) H_k = b_k`` with ``G = Uc^T Uc`` over the
training sequences, ``G_k`` its leading ``(k+1) x (k+1)`` block and ``b_k = Uc[:, :k+1]^T yc_k``.
The Cholesky factor of ``G_k + r I`` is the leading block of the factor ``C`` of ``G + r I``, and a
forward substitution in a leading block is the leading part of the full one; so with
``W = C^{-1} Uc^T Yc`` and ``Q = (C^{-1} Vc^T)^T`` the predictions for centred inputs ``Vc`` are
``Q @ triu(W)``, every step at once. The ridge ``r`` is chosen, unless given, on a split of the
training set (every fifth sequence held out) from ``trace(G)/L * 10^-12 ... 10^0``, then refitted on
all of it: a tiny ridge where the fit is well posed (more sequences than the inputs' dimension), a
larger one where it is not.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.signal
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import (
    as_float64,
    check_finite,
    check_not_empty,
    check_shape,
    check_type,
    positive_int,
    real_number,
)


def _pair(name: str, a: ArrayLike, ndim: int | None = None) -> np.ndarray:
    a = as_float64(name, a)
    check_finite(name, a)
    if ndim is not None:
        check_shape(name, a, (None,) * ndim)
    check_not_empty(name, a)
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


class TimeVaryingMap(NamedTuple):
    """``yhat_k = ybar_k + sum_{j<=k} H[k, j] (u_j - ubar_j)``; ``H`` is lower triangular."""

    H: Float[np.ndarray, "L L"]
    ubar: Float[np.ndarray, " L"]
    ybar: Float[np.ndarray, " L"]
    ridge: float


def _factor(G: np.ndarray, b: np.ndarray, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """``C``, the Cholesky factor of the ridged Gram matrix ``G = uc^T uc``, and ``W = C^-1 b``
    (``b = uc^T yc``): the one factorisation every step's taps come from (step ``k`` uses the
    leading ``k+1`` block)."""
    try:
        C = scipy.linalg.cholesky(G + ridge * np.eye(len(G)), lower=True)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the inputs' Gram matrix is singular: pass ridge > 0 (or ridge=None to choose one)"
        ) from None
    return C, scipy.linalg.solve_triangular(C, b, lower=True)


def _tv_predict(G: np.ndarray, b: np.ndarray, vc: np.ndarray, ridge: float) -> np.ndarray:
    """Centred predictions for centred inputs ``vc`` of the map fitted on ``G = uc^T uc`` and
    ``b = uc^T yc``."""
    C, W = _factor(G, b, ridge)
    Q = scipy.linalg.solve_triangular(C, vc.T, lower=True).T
    return Q @ np.triu(W)


def _choose_ridge(uc: np.ndarray, yc: np.ndarray, G: np.ndarray) -> float:
    """The ridge of ``scale * 10^-12 .. scale`` (``scale = trace(G) / L``, ``G = uc^T uc``) with the
    smallest error on a 1-in-5 hold-out of the training sequences; their Gram matrix is formed
    once for all the ridges."""
    n, L = uc.shape
    if n < 5:
        raise ValueError(f"choosing the ridge needs at least 5 training sequences, got {n}")
    held = np.arange(n) % 5 == 4
    fit_u, fit_y, val_u, val_y = uc[~held], yc[~held], uc[held], yc[held]
    scale = max(float(np.trace(G)) / L, np.finfo(float).tiny)
    ridges = scale * 10.0 ** -np.arange(12, -1, -1)
    G_fit, b_fit = fit_u.T @ fit_u, fit_u.T @ fit_y
    errors = [np.mean((_tv_predict(G_fit, b_fit, val_u, r) - val_y) ** 2) for r in ridges]
    return float(ridges[int(np.argmin(errors))])


def time_varying_map(
    u: Float[ArrayLike, "n L"], y: Float[ArrayLike, "n L"], *, ridge: float | None = None
) -> TimeVaryingMap:
    """The least-squares causal affine map with a row of taps per step (ridge ``ridge``, chosen on
    a split of the training set when ``None``; ``0`` for plain least squares)."""
    u, y = _pair("u", u, 2), _pair("y", y, 2)
    check_shape("y", y, u.shape)
    ubar, ybar = u.mean(axis=0), y.mean(axis=0)
    uc, yc = u - ubar, y - ybar
    G = uc.T @ uc
    r = _choose_ridge(uc, yc, G) if ridge is None else real_number("ridge", ridge, low=0.0)
    C, W = _factor(G, uc.T @ yc, r)
    H = np.zeros_like(W)
    for k in range(len(W)):
        H[k, : k + 1] = scipy.linalg.solve_triangular(C[: k + 1, : k + 1].T, W[: k + 1, k])
    return TimeVaryingMap(H, ubar, ybar, r)


def time_varying_prediction(fit: TimeVaryingMap, u: Float[ArrayLike, "m L"]) -> np.ndarray:
    """The predictions ``yhat`` of :func:`time_varying_map`'s ``fit`` for the inputs ``u``."""
    check_type("fit", fit, TimeVaryingMap)
    u = _pair("u", u, 2)
    check_shape("u", u, (None, fit.ubar.shape[0]))
    return fit.ybar + (u - fit.ubar) @ fit.H.T


def linear_mses(
    u_train: Float[ArrayLike, "n_train L"],
    y_train: Float[ArrayLike, "n_train L"],
    u_test: Float[ArrayLike, "n_test L"],
    y_test: Float[ArrayLike, "n_test L"],
    *,
    lags: int | None = None,
) -> dict[str, float]:
    """Test MSEs of the two least-squares causal linear maps fitted on the training pairs: the
    time-invariant filter (over ``lags`` lags) and the time-varying map. The linear baseline of a
    trained row is the smaller."""
    fit = time_varying_map(u_train, y_train)
    y_test = _pair("y_test", y_test, 2)
    tv = np.mean((time_varying_prediction(fit, u_test) - y_test) ** 2)
    return {
        "time-invariant filter": causal_filter_mse(u_train, y_train, u_test, y_test, lags=lags),
        "time-varying map": float(tv),
    }
