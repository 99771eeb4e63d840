"""Orthonormal wavelet bases ``Psi in R^{L x P}`` for the sparse-input assumption of Orvieto et al.

Assumption A (Orvieto et al., ICML 2024, §3.1.2) asks that every input be ``v^T = Psi alpha`` for a
fixed ``Psi in R^{L x P}`` with ``P < L``. App. E.2 uses Haar wavelets, Fig. 12 also Symlets and
Coiflets. With PyWavelets' ``mode="periodization"`` the discrete wavelet transform of a length-``L``
signal (``L`` divisible by ``2^level``) is an orthogonal ``L x L`` matrix ``W``; its rows, i.e. the
columns of ``Psi = W^T``, are the wavelets. Column order is coarse to fine, as
:func:`pywt.coeffs_to_array` lays out ``[cA_level, cD_level, ..., cD_1]``, and ``Psi`` keeps the
first ``P`` columns: the scaling functions, then the coarsest wavelets.
"""

from __future__ import annotations

import numpy as np
import pywt
from jaxtyping import ArrayLike, Float, Int

from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_finite,
    check_not_empty,
    check_shape,
    check_text,
    nonnegative_int,
    positive_int,
)


def default_level(L: int, wavelet: str) -> int:
    """Deepest level with ``2^level`` dividing ``L`` whose coarsest band is as long as the filter.

    The default level of the bases of Orvieto et al. (ICML 2024), App. E.2, Fig. 12.

    For Haar this is ``log2(L)`` when ``L`` is a power of two (one scaling function, then every
    wavelet); for longer filters PyWavelets' :func:`pywt.dwt_max_level` caps it.
    """
    L = positive_int("L", L)
    wavelet = _wavelet_name(wavelet)
    twos = (L & -L).bit_length() - 1  # largest t with 2^t dividing L
    return max(1, min(twos, pywt.dwt_max_level(L, pywt.Wavelet(wavelet).dec_len)))


def _wavelet_name(wavelet: str) -> str:
    """``wavelet`` as the name of a discrete PyWavelets wavelet (e.g. ``"haar"``, ``"sym4"``)."""
    return check_choice("wavelet", check_text("wavelet", wavelet), pywt.wavelist(kind="discrete"))


def wavelet_basis(
    L: int,
    P: int | None = None,
    wavelet: str = "haar",
    level: int | None = None,
    *,
    columns: Int[ArrayLike, " P"] | None = None,
) -> Float[np.ndarray, "L P"]:
    """Return ``Psi in R^{L x P}``: the first ``P`` (coarse to fine) orthonormal periodic wavelets.

    Column ``j`` is the inverse transform (:func:`pywt.waverec`, ``mode="periodization"``) of the
    ``j``-th unit coefficient vector in :func:`pywt.coeffs_to_array` order, so ``Psi^T Psi = I_P``
    and, for ``P = L``, ``Psi^T x`` is the flattened :func:`pywt.wavedec` of ``x``. ``columns``
    (distinct indices into that order, instead of ``P``) picks other wavelets, e.g. a random
    subset. ``level`` defaults to :func:`default_level`; ``L`` must be divisible by ``2^level``.
    Float64.
    """
    L = positive_int("L", L)
    if columns is None:
        P = L if P is None else positive_int("P", P)
        if P > L:
            raise ValueError(f"P must be <= L (at most L orthonormal columns), got P={P}, L={L}")
        columns = np.arange(P)
    else:
        if P is not None:
            raise ValueError("P and columns: give either P or columns, not both")
        check_shape("columns", columns, (None,))
        check_not_empty("columns", columns)
        columns = np.array([nonnegative_int(f"columns[{i}]", c) for i, c in enumerate(columns)])
        if columns.max() >= L or np.unique(columns).size != columns.size:
            raise ValueError(f"columns must be distinct indices in [0, L={L}), got {columns!r}")
        P = columns.size
    wavelet = _wavelet_name(wavelet)
    level = default_level(L, wavelet) if level is None else positive_int("level", level)
    if L % 2**level:
        raise ValueError(
            f"L must be divisible by 2**level for mode='periodization', got L={L}, level={level}"
        )
    template = pywt.wavedec(np.zeros(L), wavelet, mode="periodization", level=level)
    flat, slices = pywt.coeffs_to_array(template)
    basis = np.empty((L, P))
    for j, index in enumerate(columns):
        flat[:] = 0.0
        flat[index] = 1.0
        coeffs = pywt.array_to_coeffs(flat, slices, output_format="wavedec")
        basis[:, j] = pywt.waverec(coeffs, wavelet, mode="periodization")
    return basis


def sparse_signal(
    rng: np.random.Generator, basis: Float[ArrayLike, "L P"], batch: int | None = None
) -> tuple[Float[np.ndarray, "*batch L"], Float[np.ndarray, "*batch P"]]:
    """Draw ``alpha ~ N(0, I_P)`` and return ``(v, alpha)`` with ``v = Psi alpha`` (Assumption A).

    ``batch=None`` gives one signal ``v`` of shape ``(L,)``; otherwise ``batch`` signals, shape
    ``(batch, L)`` (Orvieto et al., ICML 2024, §3.1.2).
    """
    basis = as_float64("basis", basis)
    check_shape("basis", basis, (None, None))
    check_finite("basis", basis)
    shape = (basis.shape[1],) if batch is None else (positive_int("batch", batch), basis.shape[1])
    alpha = rng.standard_normal(shape)
    return alpha @ basis.T, alpha


def random_wavelet_problem(
    rng: np.random.Generator,
    L: int,
    P: int,
    batch: int | None = None,
    wavelet: str = "haar",
) -> tuple[Float[np.ndarray, "L P"], Float[np.ndarray, "*batch L"]]:
    """``(Psi, v)``: ``P`` wavelets drawn uniformly without replacement among all ``L`` and inputs
    ``v = Psi alpha``, ``alpha ~ N(0, I_P)`` (Assumption A; Orvieto et al., ICML 2024, App. E.2,
    Figs. 10-11). ``rng`` draws the wavelets, then the coefficients (:func:`sparse_signal`)."""
    L, P = positive_int("L", L), positive_int("P", P)
    if P > L:
        raise ValueError(f"P must be <= L, got P={P}, L={L}")
    basis = wavelet_basis(L, wavelet=wavelet, columns=np.sort(rng.choice(L, P, replace=False)))
    return basis, sparse_signal(rng, basis, batch)[0]
