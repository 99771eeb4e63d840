"""Sums of decaying exponentials, ``rho_hat(t) = sum_i c_i exp(-r_i t)``: the memory kernel of a
diagonal linear RNN with decay rates ``r_i`` (Wang, Li & Li, ICLR 2024, eq. 5 with App. D), and its
least-squares fit to a given kernel. With ``r_i = r i`` the sum is a polynomial in ``z = exp(-r t)``
(the substitution of Wang, Li & Li App. D and Wang & Xue, NeurIPS 2023, Thm 3.3), so such fits are
the constructive side of both papers' density arguments.
"""

from __future__ import annotations

import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.validate import (
    as_float64,
    check_finite,
    check_shape,
    positive_int,
    positive_number,
)


def uniform_rates(N: int, rate: float = 0.1) -> np.ndarray:
    """The decay rates ``rate * (1, 2, ..., N)`` (float64): polynomials of degree N in
    ``z = exp(-rate t)`` (Wang, Li & Li App. D, "polynomial approximation over an interval")."""
    N = positive_int("N", N)
    rate = positive_number("rate", rate)
    return rate * np.arange(1, N + 1, dtype=np.float64)


def _rates(rates: Float[ArrayLike, " N"]) -> np.ndarray:
    rates = as_float64("rates", rates)
    check_shape("rates", rates, (None,))
    check_finite("rates", rates)
    if not np.all(rates > 0):
        raise ValueError(f"rates must be positive (stable eigenvalues -rates), got {rates}")
    return rates


def fit_exp_sum(
    rho: Float[ArrayLike, " T"], t: Float[ArrayLike, " T"], rates: Float[ArrayLike, " N"]
) -> Float[np.ndarray, " N"]:
    """The coefficients ``c`` of ``min_c sum_k (sum_i c_i exp(-rates_i t_k) - rho_k)^2``, in
    float64 (NumPy ``lstsq``): the least-squares sum of exponentials with the given rates."""
    rho, t = as_float64("rho", rho), as_float64("t", t)
    if rho.ndim != 1 or t.shape != rho.shape:
        raise ValueError(f"rho and t must be 1-D of the same length, got {rho.shape} and {t.shape}")
    check_finite("rho", rho)
    check_finite("t", t)
    basis = np.exp(-np.outer(t, _rates(rates)))
    coef, *_ = np.linalg.lstsq(basis, rho, rcond=None)
    return coef


def exp_sum(
    coef: Float[ArrayLike, " N"], rates: Float[ArrayLike, " N"], t: Float[ArrayLike, " T"]
) -> Float[np.ndarray, " T"]:
    """``sum_i coef_i exp(-rates_i t)`` at the times ``t`` (float64)."""
    rates = _rates(rates)
    coef = as_float64("coef", coef)
    check_shape("coef", coef, rates.shape)
    t = as_float64("t", t)
    check_finite("t", t)
    return np.exp(-np.outer(t, rates)) @ coef
