"""The Vandermonde view of a diagonal linear recurrence (Orvieto et al., ICML 2024, §3.1 and §4.1),
and the library's one truncated-SVD pseudo-inverse.

With scalar input per channel (``B = (1, ..., 1)^T``), ``x_k = Lambda x_{k-1} + u_k`` unrolls to
eq. (3)-(4): ``x_k = V_k u_{1:k}`` with ``V_k[i, j] = lam_i^(k-1-j)``, and eq. (5) recovers the
input from the state by pseudo-inversion, ``u_{1:k} = V_k^+ x_k``.

Two builders of ``V_L``: :func:`vandermonde` is JAX in the dtype it is given (for use inside JAX
models), :func:`vandermonde64` is NumPy complex128. Everything that inverts or measures ``V``
(:func:`pseudo_inverse`, :func:`pinv_apply`, :func:`reconstruct`, :func:`singular_values`,
:func:`condition_number`, :func:`gram_condition`, :func:`numerical_rank`) is NumPy float64 /
complex128 by construction, whatever JAX's precision setting: ``V_k`` is ill-conditioned unless
the eigenvalues sit near the unit circle (Fig. 2), a pseudo-inverse amplifies rounding errors by
``cond(V_k)``, and float32 loses every digit beyond ``cond ~ 1e7``.

The one cut-off policy (NumPy's default for ``lstsq``, ``pinv`` and ``matrix_rank``): a singular
value of an ``m x n`` matrix counts as zero unless ``s > rcond * s_max``, with
``rcond = max(m, n) * EPS`` by default. :func:`pseudo_inverse`, :func:`pinv_apply` and
:func:`numerical_rank` all apply it through :func:`cutoff`.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float, Inexact, Num

from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_finite,
    check_flag,
    check_ndim,
    check_not_empty,
    eigenvalue_vector,
    positive_int,
    real_number,
)

#: Machine epsilon of float64, the unit of every tolerance in the library's linear algebra.
EPS = float(np.finfo(np.float64).eps)


# --- Building V_L ---------------------------------------------------------------------------------


def _jax_eigenvalues(lam: ArrayLike) -> jax.Array:
    """``lam`` for :func:`vandermonde`: a finite JAX float/complex array of at least one axis."""
    lam = as_inexact("lam", lam)
    check_ndim("lam", lam, 1)
    check_not_empty("lam", lam)
    check_finite("lam", lam)
    return lam


def _eigenvalues64(lam: ArrayLike) -> np.ndarray:
    """``lam`` (shape ``(..., N)``) as finite complex128 NumPy, for the batched float64 tools."""
    lam = as_float64("lam", lam)
    check_ndim("lam", lam, 1)
    check_not_empty("lam", lam)
    check_finite("lam", lam)
    return lam.astype(np.complex128)


@partial(jax.jit, static_argnums=1)
def _powers(lam: jax.Array, L: int) -> jax.Array:
    """``V_L`` for validated ``lam``: columns ``lam^(L-1), ..., lam, 1`` by a cumulative product."""
    ones = jnp.ones(lam.shape + (1,), lam.dtype)
    factors = jnp.broadcast_to(lam[..., None], lam.shape + (L - 1,))
    ascending = jnp.cumprod(jnp.concatenate([ones, factors], axis=-1), axis=-1)
    return jnp.flip(ascending, axis=-1)


def _powers64(lam: np.ndarray, L: int) -> np.ndarray:
    """``V_L`` in complex128 for validated ``lam`` ``(..., N)``, as :func:`numpy.vander`."""
    V = np.empty(lam.shape + (L,), np.complex128)
    ascending = V[..., ::-1]
    ascending[..., 0] = 1.0
    if L > 1:
        ascending[..., 1:] = lam[..., None]
        np.multiply.accumulate(ascending[..., 1:], axis=-1, out=ascending[..., 1:])
    return V


def vandermonde(lam: Inexact[ArrayLike, "*batch N"], L: int) -> Inexact[Array, "*batch N L"]:
    """Return ``V_L`` of eq. (4) (Orvieto et al., ICML 2024) in JAX, in the dtype of ``lam``.

    Shape ``(..., N, L)``, row ``i`` is ``(lam_i^(L-1), ..., lam_i, 1)`` (leading axes batch). Then
    ``x_L = V_L @ u_{1:L}`` for ``x_k = lam * x_{k-1} + u_k``, ``x_0 = 0``. Powers are built by a
    cumulative product (exact at ``lam = 0``: ``0^0 = 1``). For float64 linear algebra use
    :func:`vandermonde64`.
    """
    return _powers(_jax_eigenvalues(lam), positive_int("L", L))


def vandermonde64(lam: Num[ArrayLike, " N"], L: int) -> Complex[np.ndarray, "N L"]:
    """``V_L`` of eq. (4) (Orvieto et al., ICML 2024) in NumPy complex128, shape ``(N, L)``.

    Row ``i`` is ``(lam_i^(L-1), ..., lam_i, 1)``; identical to ``numpy.vander(lam, L)``.
    """
    lam = eigenvalue_vector("lam", lam)
    return _powers64(lam, positive_int("L", L))


# --- The one pseudo-inverse -----------------------------------------------------------------------


def cutoff(shape: tuple[int, ...], rcond: float | None = None) -> float:
    """The relative cut-off of the one policy: ``rcond`` if given, else ``max(m, n) * EPS``.

    ``shape`` is the shape of the matrix (its last two axes count). A singular value ``s`` is kept
    iff ``s > cutoff(shape, rcond) * s_max``.
    """
    if rcond is None:
        return max(shape[-2:]) * EPS
    return real_number("rcond", rcond, low=0.0, high=1.0)


def _matrix64(name: str, A: ArrayLike) -> np.ndarray:
    A = as_float64(name, A)
    check_ndim(name, A, 2)
    check_not_empty(name, A)
    check_finite(name, A)
    return A


def _truncated_svd(A: np.ndarray, rcond: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(U, s_masked, Vh)`` of ``A`` (batched) with dropped singular values replaced by ``inf``."""
    U, s, Vh = np.linalg.svd(A, full_matrices=False)
    keep = s > cutoff(A.shape, rcond) * s[..., :1]
    return U, np.where(keep, s, np.inf), Vh


def pseudo_inverse(
    A: Num[ArrayLike, "*batch m n"], *, rcond: float | None = None
) -> Inexact[np.ndarray, "*batch n m"]:
    """``A^+`` by truncated SVD in float64 / complex128 (e.g. ``V_k^+`` of eq. (5), Orvieto et al.).

    Singular values ``s <= rcond * s_max`` are treated as zero; the default
    ``rcond = max(m, n) * EPS`` is NumPy's (``numpy.linalg.pinv(A, rtol=None)``) and drops only
    what is numerically zero. Leading axes of ``A`` are a batch.
    """
    A = _matrix64("A", A)
    U, s, Vh = _truncated_svd(A, rcond)
    return np.swapaxes(Vh, -1, -2).conj() / s[..., None, :] @ np.swapaxes(U, -1, -2).conj()


def pinv_apply(
    A: Num[ArrayLike, "*batch m n"],
    x: Num[ArrayLike, "*batch m"],
    *,
    rcond: float | None = None,
    return_rank: bool = False,
) -> Inexact[np.ndarray, "*batch n"] | tuple[Inexact[np.ndarray, "*batch n"], np.ndarray]:
    """``A^+ x``, the minimum-norm least-squares solution, by the truncated SVD of
    :func:`pseudo_inverse` (same cut-off), without forming ``A^+``. Batch axes broadcast.

    With ``return_rank=True`` also returns the number of kept singular values (the numerical rank
    under the same cut-off), as ``numpy.linalg.lstsq`` does.
    """
    A = _matrix64("A", A)
    x = as_float64("x", x)
    check_ndim("x", x, 1)
    check_finite("x", x)
    return_rank = check_flag("return_rank", return_rank)
    if x.shape[-1] != A.shape[-2]:
        raise ValueError(f"x has {x.shape[-1]} entries but A has {A.shape[-2]} rows")
    U, s, Vh = _truncated_svd(A, rcond)
    coeffs = np.einsum("...mi,...m->...i", U.conj(), x) / s
    solution = np.einsum("...ij,...i->...j", Vh.conj(), coeffs)
    if return_rank:
        return solution, np.sum(np.isfinite(s), axis=-1)
    return solution


def numerical_rank(
    s: Float[ArrayLike, "*batch r"], shape: tuple[int, int]
) -> Num[np.ndarray, "*batch"]:
    """Number of singular values ``s`` (descending, last axis) of an ``m x n`` matrix kept by the
    one cut-off, ``s > max(m, n) * EPS * s_max`` (as ``numpy.linalg.matrix_rank``)."""
    s = as_float64("s", s)
    check_ndim("s", s, 1)
    return np.sum(s > cutoff(shape) * s[..., :1], axis=-1)


# --- Reading the input back and measuring V -------------------------------------------------------


def reconstruct(
    lam: Num[ArrayLike, "*batch N"],
    x_k: Num[ArrayLike, "*batch N"],
    k: int,
    *,
    rcond: float | None = None,
    real_input: bool = False,
) -> Inexact[np.ndarray, "*batch k"]:
    """Recover ``u_{1:k}`` from the state ``x_k`` by eq. (5) of Orvieto et al.: ``V_k^+ x_k``.

    ``lam``: ``(..., N)``, ``x_k``: ``(..., N)`` (batch axes broadcast); returns complex128
    ``(..., k)`` (float64 with ``real_input=True``). ``V_k^+ x_k`` is :func:`pinv_apply` (the one
    truncated SVD, default cut-off ``max(N, k) * EPS``; raise ``rcond`` to regularise). Exact when
    ``N >= k`` with distinct eigenvalues, up to rounding amplified by ``cond(V_k)``.

    ``real_input=True`` assumes ``u`` is real and solves the real system
    ``[Re V_k; Im V_k] u = [Re x_k; Im x_k]`` (``2N`` equations): then ``N`` complex eigenvalues
    (not real, no conjugate pairs) can recover up to ``2N`` real inputs.
    """
    lam = _eigenvalues64(lam)
    k = positive_int("k", k)
    real_input = check_flag("real_input", real_input)
    x_k = as_float64("x_k", x_k)
    check_ndim("x_k", x_k, 1)
    check_finite("x_k", x_k)
    if x_k.shape[-1] != lam.shape[-1]:
        raise ValueError(
            f"x_k has {x_k.shape[-1]} state entries (shape {x_k.shape}) but lam has "
            f"{lam.shape[-1]} eigenvalues (shape {lam.shape})"
        )
    V = _powers64(lam, k)
    x = x_k.astype(np.complex128)
    if real_input:
        V = np.concatenate([V.real, V.imag], axis=-2)
        x = np.concatenate([x.real, x.imag], axis=-1)
    return pinv_apply(V, x, rcond=rcond)


def singular_values(lam: Num[ArrayLike, "*batch N"], L: int) -> Float[np.ndarray, "*batch r"]:
    """Singular values of ``V_L`` in float64, descending, shape ``(..., min(N, L))``.

    ``||V_L||_2`` is the first and ``||V_L^+||_2`` the inverse of the last (Orvieto et al., ICML
    2024, Fig. 2). A backward-stable SVD resolves them down to ``~EPS * s_max``.
    """
    return np.linalg.svd(_powers64(_eigenvalues64(lam), positive_int("L", L)), compute_uv=False)


def condition_number(lam: Num[ArrayLike, "*batch N"], L: int) -> Float[np.ndarray, "*batch"]:
    """2-norm condition number ``s_max / s_min`` of ``V_L`` (``inf`` if ``s_min = 0``), float64.

    Orvieto et al. (ICML 2024, §4.1). Reliable while well below ``1 / EPS ~ 4.5e15``; larger values
    only say "at least about ``1 / EPS``".
    """
    s = singular_values(lam, L)
    with np.errstate(divide="ignore"):
        return s[..., 0] / s[..., -1]


def gram_condition(A: Num[ArrayLike, "m n"], *, on_range: bool = False) -> float:
    """``cond(A^H A) = (s_max / s_min)^2`` from the singular values of ``A`` itself.

    Used for ``cond(V_L^H V_L)`` (Orvieto et al., ICML 2024, Fig. 7b) and ``cond(Gamma^T Gamma)``
    (Fig. 9). An SVD of ``A`` resolves ``s_min`` down to ``~EPS * s_max``, so the square is reliable
    up to ``~1 / EPS^2 ~ 1e31``; forming ``A^H A`` first would saturate near ``1 / EPS``.
    ``A^H A`` is singular (``inf``) when ``A`` has more columns than rows or ``s_min = 0``; with
    ``on_range=True`` the ratio runs over the ``min(m, n)`` singular values instead, i.e.
    ``cond(A A^H)`` for a wide ``A``: the conditioning on the directions it keeps.
    """
    A = _matrix64("A", A)
    on_range = check_flag("on_range", on_range)
    if A.shape[-1] > A.shape[-2] and not on_range:
        return float("inf")
    s = np.linalg.svd(A, compute_uv=False)
    return float((s[0] / s[-1]) ** 2) if s[-1] > 0 else float("inf")
