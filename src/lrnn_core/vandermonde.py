"""The Vandermonde view of a diagonal linear recurrence (Orvieto et al., ICML 2024, §3.1 and §4.1).

With scalar input per channel (``B = (1, ..., 1)^T``), ``x_k = Lambda x_{k-1} + u_k`` unrolls to
eq. (3)-(4): ``x_k = V_k u_{1:k}`` with ``V_k[i, j] = lambda_i^(k-1-j)``, and eq. (5) recovers the
input from the state by pseudo-inversion, ``u_{1:k} = V_k^+ x_k``.

Numerics: ``V_k`` is ill-conditioned unless the eigenvalues sit near the unit circle (Fig. 2), and the
pseudo-inverse then amplifies rounding errors by ``cond(V_k)``. Everything here works in the dtype it
is given; pass float64/complex128 arrays (e.g. inside ``with jax.enable_x64(True):``) for
reconstruction and condition numbers, since float32 loses everything beyond ``cond ~ 1e7``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.validate import as_inexact, check_finite, check_ndim, eigenvalue_vector, positive_int



def _eigenvalues(lam: Any) -> jax.Array:
    lam = as_inexact("lam", lam)
    check_ndim("lam", lam, 1)
    check_finite("lam", lam)
    return lam


@partial(jax.jit, static_argnums=1)
def _powers(lam: jax.Array, L: int) -> jax.Array:
    """``V_L`` for validated ``lam``: the columns ``lam^(L-1), ..., lam, 1`` by a cumulative product."""
    ones = jnp.ones(lam.shape + (1,), lam.dtype)
    factors = jnp.broadcast_to(lam[..., None], lam.shape + (L - 1,))
    ascending = jnp.cumprod(jnp.concatenate([ones, factors], axis=-1), axis=-1)
    return jnp.flip(ascending, axis=-1)


def vandermonde(lam: Any, L: int) -> jax.Array:
    """Return ``V_L`` of eq. (4): shape ``(..., N, L)``, row ``i`` is ``(lam_i^(L-1), ..., lam_i, 1)``.

    ``lam`` has shape ``(..., N)`` (leading axes batch). Then ``x_L = V_L @ u_{1:L}`` for
    ``x_k = lam * x_{k-1} + u_k``, ``x_0 = 0``. Powers are built by a cumulative product (exact at
    ``lam = 0``: ``0^0 = 1``), in the dtype of ``lam``.
    """
    return _powers(_eigenvalues(lam), positive_int("L", L))


def vandermonde64(lam: Any, L: int) -> np.ndarray:
    """``V_L`` of eq. (4) in complex128: row ``i`` is ``(lam_i^(L-1), ..., lam_i, 1)``, shape ``(N, L)``."""
    lam = eigenvalue_vector("lam", lam)
    L = positive_int("L", L)
    with jax.enable_x64(True):
        return np.asarray(vandermonde(lam, L), dtype=np.complex128)


def singular_values(lam: Any, L: int) -> jax.Array:
    """Singular values of ``V_L`` (shape ``(..., min(N, L))``, descending).

    ``||V_L||_2`` is the first and ``||V_L^+||_2`` the inverse of the last (Orvieto et al., Fig. 2).
    """
    return jnp.linalg.svd(vandermonde(lam, L), compute_uv=False)


def condition_number(lam: Any, L: int) -> jax.Array:
    """2-norm condition number ``sigma_max / sigma_min`` of ``V_L`` (``inf`` if ``sigma_min = 0``).

    Taken from the singular values, so it is accurate while it is well below ``1 / eps`` of the dtype
    (``~1e7`` in float32, ``~1e16`` in float64); larger values only say "at least about 1 / eps".
    """
    s = singular_values(lam, L)
    return s[..., 0] / s[..., -1]


def reconstruct(
    lam: Any, x_k: Any, k: int, *, rcond: float | None = None, real_input: bool = False
) -> jax.Array:
    """Recover ``u_{1:k}`` from the state ``x_k`` by eq. (5): ``u_{1:k} = V_k^+ x_k``.

    ``lam``: ``(..., N)``, ``x_k``: ``(..., N)`` (batch axes broadcast); returns ``(..., k)``. The
    pseudo-inverse comes from an SVD of ``V_k``; singular values below ``rcond * sigma_max`` are
    treated as zero (truncated SVD, the minimum-norm least-squares solution). The default
    ``rcond = eps * max(N, k)`` (as ``numpy.linalg.lstsq``) discards only what is numerically zero;
    raise it to regularise an ill-conditioned ``V_k``. Exact when ``N >= k`` with distinct eigenvalues,
    up to rounding amplified by ``cond(V_k)`` -- use float64 (see the module docstring).

    ``real_input=True`` assumes ``u`` is real and solves the real system
    ``[Re V_k; Im V_k] u = [Re x_k; Im x_k]`` (``2N`` equations), returning a real ``u``: then ``N``
    complex eigenvalues (not real, no conjugate pairs) can recover up to ``2N`` real inputs.
    """
    lam = _eigenvalues(lam)
    k = positive_int("k", k)
    if rcond is not None and not 0.0 <= rcond < 1.0:
        raise ValueError(f"rcond must be in [0, 1), got {rcond}")
    x_k = as_inexact("x_k", x_k)
    check_ndim("x_k", x_k, 1)
    check_finite("x_k", x_k)
    if x_k.shape[-1] != lam.shape[-1]:
        raise ValueError(
            f"x_k has {x_k.shape[-1]} state entries (shape {x_k.shape}) but lam has "
            f"{lam.shape[-1]} eigenvalues (shape {lam.shape})"
        )
    dtype = jnp.result_type(lam, x_k)
    V = _powers(lam.astype(dtype), k)
    x = x_k.astype(dtype)
    if real_input:
        V = jnp.concatenate([V.real, V.imag], axis=-2)
        x = jnp.concatenate([x.real, x.imag], axis=-1)
    if rcond is None:
        rcond = float(jnp.finfo(V.dtype).eps) * max(V.shape[-2], k)
    return _pinv_apply(V, x, rcond)


@jax.jit
def _pinv_apply(V: jax.Array, x: jax.Array, rcond: float) -> jax.Array:
    """``V^+ x`` by truncated SVD: singular values ``<= rcond * sigma_max`` count as zero."""
    U, s, Vh = jnp.linalg.svd(V, full_matrices=False)
    keep = s > rcond * s[..., :1]
    s_inv = jnp.where(keep, 1.0 / jnp.where(keep, s, 1.0), 0.0)
    coeffs = s_inv * jnp.einsum("...ni,...n->...i", U.conj(), x)
    return jnp.einsum("...ij,...i->...j", Vh.conj(), coeffs)
