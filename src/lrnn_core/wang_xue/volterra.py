"""Second-order Volterra targets with exponential kernels (Wang & Xue 2023, Thm. 3.8, eq. (18),
and Prop. 3.9; formulas lost in the text version, rebuilt from the words).

A Volterra series of order 2 is ``y_k = sum_i k1(i) u_{k-i} + sum_{i,j} k2(i, j) u_{k-i} u_{k-j}``.
Prop. 3.9 approximates ``k2`` by low-rank products of SSM-induced kernels ``lam^i``; we take
targets that are exactly of that form, built from ``M`` decay factors ``lam_p`` (real or complex,
``|lam_p| < 1``):

    f_p(k) = Re sum_{i <= k} lam_p^i u_{k-i}        (one linear recurrence per p: ``linear_scan``)
    y_k = sum_p c1_p f_p(k) + sum_{p, q} c2_pq f_p(k) f_q(k),

i.e. ``k1(i) = sum_p c1_p Re lam_p^i`` and ``k2(i, j) = sum_pq c2_pq Re lam_p^i Re lam_q^j``: a
target whose width need not grow with the sequence length ``L``. The *product of two
convolutions* ``(rho_a * u)(rho_b * u)`` is the case ``c1 = 0`` with one off-diagonal pair of
``c2`` (:func:`product_of_convolutions`). The choice of these targets is the book's; the paper
has no experiment for Prop. 3.9.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float

from lrnn_core.core.scan import linear_scan
from lrnn_core.core.validate import (
    as_inexact,
    check_finite,
    check_ndim,
    check_shape,
    check_stable,
    check_type,
    positive_int,
)


class Volterra2(NamedTuple):
    """A second-order Volterra target: decay factors ``lam`` (M,), linear weights ``c1`` (M,),
    quadratic weights ``c2`` (M, M)."""

    lam: Complex[Array, " M"]
    c1: Float[Array, " M"]
    c2: Float[Array, "M M"]


def product_of_convolutions(lam_a: complex, lam_b: complex, scale: float = 1.0) -> Volterra2:
    """``y_k = scale * f_a(k) f_b(k)`` with ``f = Re(lam^i) * u``: a product of two causal
    convolutions, as a :class:`Volterra2` (``c2`` symmetric, ``c1 = 0``)."""
    c2 = jnp.array([[0.0, scale / 2], [scale / 2, 0.0]])
    return _checked(Volterra2(jnp.array([lam_a, lam_b], complex), jnp.zeros(2), c2))


def _checked(target: Volterra2) -> Volterra2:
    check_type("target", target, Volterra2)
    lam, c1, c2 = (as_inexact(n, v) for n, v in zip(Volterra2._fields, target, strict=True))
    check_shape("target.lam", lam, (None,))
    M = lam.shape[0]
    check_shape("target.c1", c1, (M,))
    check_shape("target.c2", c2, (M, M))
    for name, v in (("target.lam", lam), ("target.c1", c1), ("target.c2", c2)):
        check_finite(name, v)
    check_stable("target.lam", jnp.abs(lam))
    return Volterra2(lam, c1, c2)


def volterra_outputs(
    target: Volterra2, u: Float[ArrayLike, "*batch L"]
) -> Float[Array, "*batch L"]:
    """The target's output on real inputs ``u`` (..., L): ``linear_scan`` per factor, then the
    linear and quadratic forms (module docstring)."""
    lam, c1, c2 = _checked(target)
    u = as_inexact("u", u)
    check_ndim("u", u, 1)
    check_finite("u", u)
    dtype = jnp.result_type(u.dtype, jnp.complex64)
    f = linear_scan(lam.astype(dtype), u[..., None].astype(dtype) * jnp.ones_like(lam)).real
    c1, c2 = c1.astype(f.dtype), c2.astype(f.dtype)
    return f @ c1 + jnp.einsum("...p,pq,...q->...", f, c2, f)


def volterra_kernels(target: Volterra2, L: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernels ``k1(i)`` (L,) and ``k2(i, j)`` (L, L) of the target, ``i, j = 0..L-1``
    (float64 NumPy)."""
    _checked(target)
    L = positive_int("L", L)
    lam = np.asarray(target.lam, np.complex128)
    c1, c2 = np.asarray(target.c1, np.float64), np.asarray(target.c2, np.float64)
    powers = (lam[None, :] ** np.arange(L)[:, None]).real  # (L, M): Re lam_p^i
    return powers @ c1, powers @ c2 @ powers.T
