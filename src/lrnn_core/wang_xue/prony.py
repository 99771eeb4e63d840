"""How many exponentials a length-``L`` convolution kernel needs, with free rates (Wang & Xue,
NeurIPS 2023, Remark 3.7 and Fig. 3: the width of the Kolmogorov-Arnold construction grows
linearly with ``L``).

A kernel ``h_0..h_{L-1}`` is a sum of ``n`` exponentials ``h_k = sum_{i=1}^n c_i z_i^k`` (distinct
``z_i``, complex allowed: an SSM layer with a complex diagonal) iff it satisfies a linear
recurrence of order ``n``, i.e. the Hankel matrix ``H_{ij} = h_{i+j}`` of shape
``(L - floor(L/2)) x (floor(L/2) + 1)`` has rank ``n`` (:func:`min_modes`, numerical rank at
relative tolerance ``rtol``). A generic kernel has rank ``ceil(L/2)``: with *free* rates ``L/2``
modes fit it exactly, against ``L`` with rates fixed in advance (a Vandermonde system). Prony's
method (:func:`prony_fit`) finds them: the recurrence coefficients ``a`` from
``h_{k+n} + sum_{j<n} a_j h_{k+j} = 0`` (least squares), ``z`` the roots of
``z^n + sum_j a_j z^j``, ``c`` from the Vandermonde system ``h_k = sum_i c_i z_i^k``.
NumPy float64 / complex128.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from jaxtyping import ArrayLike, Complex, Float

from lrnn_core.core.validate import as_float64, check_finite, check_shape, positive_int, real_number


def _kernel(h: ArrayLike) -> np.ndarray:
    h = as_float64("h", h)
    check_shape("h", h, (None,))
    check_finite("h", h)
    if h.size < 2:
        raise ValueError(f"h must hold at least 2 values, got {h.size}")
    return h


def hankel(h: Float[ArrayLike, " L"]) -> Float[np.ndarray, "rows cols"]:
    """``H_{ij} = h_{i+j}``, shape ``(L - floor(L/2)) x (floor(L/2) + 1)``."""
    h = _kernel(h)
    cols = h.size // 2 + 1
    return scipy.linalg.hankel(h[: h.size - cols + 1], h[h.size - cols :])


def min_modes(h: Float[ArrayLike, " L"], *, rtol: float = 1e-9) -> int:
    """The fewest exponentials (free complex rates) that reproduce ``h`` exactly: the numerical
    rank of :func:`hankel` (singular values above ``rtol`` times the largest)."""
    s = np.linalg.svd(hankel(h), compute_uv=False)
    rtol = real_number("rtol", rtol, low=0.0, high=1.0)
    return int(np.sum(s > rtol * s[0])) if s[0] > 0 else 0


def prony_fit(
    h: Float[ArrayLike, " L"], n: int
) -> tuple[Complex[np.ndarray, " n"], Complex[np.ndarray, " n"], float]:
    """Prony's method with ``n`` modes: ``(z, c, error)``, ``error = max_k |sum_i c_i z_i^k - h_k|``
    (module docstring)."""
    h = _kernel(h)
    n = positive_int("n", n)
    if 2 * n > h.size:
        raise ValueError(f"n={n} modes need at least 2n = {2 * n} values, got L={h.size}")
    rows = np.array([h[k : k + n] for k in range(h.size - n)])
    a = scipy.linalg.lstsq(rows, -h[n:])[0]
    z = np.roots(np.concatenate([[1.0], a[::-1]]))
    V = z[None, :] ** np.arange(h.size)[:, None]
    c = scipy.linalg.lstsq(V, h.astype(complex))[0]
    return z, c, float(np.max(np.abs(V @ c - h)))
