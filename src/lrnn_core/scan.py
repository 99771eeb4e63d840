"""The diagonal linear recurrence ``h_k = lam * h_{k-1} + u_k`` computed several ways.

Unrolled, the recurrence is eq. (3) of Orvieto et al. (ICML 2024), "Universality of linear
recurrences followed by non-linear projections": ``x_k = sum_{j<=k} Lambda^{k-j} B u_j``
(here ``u_j`` stands for the already-projected input ``B u_j``).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp

from lrnn_core.validate import as_inexact, check_finite, check_ndim

METHODS = ("auto", "sequential", "associative")


def combine(x: tuple[jax.Array, jax.Array], y: tuple[jax.Array, jax.Array]):
    """Compose two affine maps ``h -> a h + b``: first ``x = (a1, b1)``, then ``y = (a2, b2)``.

    ``y(x(h)) = a2 (a1 h + b1) + b2 = (a1 a2) h + (a2 b1 + b2)``. Composition of functions is
    associative, so this operator is too, which is all ``lax.associative_scan`` needs.
    """
    a1, b1 = x
    a2, b2 = y
    return a1 * a2, a2 * b1 + b2


def _sequential(lam: jax.Array, u: jax.Array, h0: jax.Array, reverse: bool) -> jax.Array:
    """Reference: one step per time index with ``lax.scan`` (time moved to axis 0)."""
    lam_t = jnp.moveaxis(lam, -2, 0)
    u_t = jnp.moveaxis(u, -2, 0)

    def step(h, xs):
        a, b = xs
        h = a * h + b
        return h, h

    _, h = jax.lax.scan(step, h0, (lam_t, u_t), reverse=reverse)
    return jnp.moveaxis(h, 0, -2)


def _associative(lam: jax.Array, u: jax.Array, h0: jax.Array, reverse: bool) -> jax.Array:
    """Parallel prefix scan of the affine maps ``(lam_k, u_k)`` with :func:`combine`."""
    first = -1 if reverse else 0
    u = u.at[..., first, :].add(lam[..., first, :] * h0)
    _, h = jax.lax.associative_scan(combine, (lam, u), reverse=reverse, axis=u.ndim - 2)
    return h


_IMPL: dict[str, Callable[..., jax.Array]] = {
    "sequential": _sequential,
    "associative": _associative,
}


def _auto_method() -> str:
    return "sequential"


def linear_scan(
    lam: Any,
    u: Any,
    h0: Any = None,
    *,
    reverse: bool = False,
    method: str = "auto",
) -> jax.Array:
    """Return ``h`` with ``h_k = lam_k * h_{k-1} + u_k`` along axis -2 of ``u`` (shape ``(..., L, N)``).

    ``lam`` with fewer dims than ``u`` is time-invariant and must broadcast to ``(..., N)``;
    ``lam`` with as many dims as ``u`` gives one value per step and must broadcast to ``u.shape``.
    ``h0`` (default 0) must broadcast to ``(..., N)``. ``reverse=True`` runs from the end:
    ``h_k = lam_k * h_{k+1} + u_k``. The output dtype is the result dtype of ``lam, u, h0``.
    No stability (``|lam| < 1``) is required: the recurrence is defined for any ``lam``.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid methods are {METHODS}")
    lam, u, h0 = _prepare(lam, u, h0)
    if method == "auto":
        method = _auto_method()
    return _IMPL[method](lam, u, h0, reverse)


def _prepare(lam: Any, u: Any, h0: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Validate inputs; return ``lam`` as ``u.shape``, ``h0`` as ``u.shape[:-2] + (N,)``, one dtype."""
    u = as_inexact("u", u)
    lam = as_inexact("lam", lam)
    check_ndim("u", u, 2)
    h0 = None if h0 is None else as_inexact("h0", h0)
    dtype = jnp.result_type(lam, u, *(() if h0 is None else (h0,)))
    state_shape = u.shape[:-2] + u.shape[-1:]
    lam_shape = u.shape if lam.ndim >= u.ndim else state_shape
    try:
        target = jnp.broadcast_shapes(lam.shape, lam_shape)
        if target != lam_shape:
            raise ValueError
    except ValueError:
        kind = "u's shape" if lam.ndim >= u.ndim else "u's state shape (..., N)"
        raise ValueError(
            f"lam of shape {lam.shape} is not broadcastable to {kind} {lam_shape} (u has shape {u.shape})"
        ) from None
    if h0 is None:
        h0 = jnp.zeros(state_shape, dtype)
    else:
        try:
            if jnp.broadcast_shapes(h0.shape, state_shape) != state_shape:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"h0 of shape {h0.shape} is not broadcastable to the state shape {state_shape} "
                f"(u has shape {u.shape})"
            ) from None
    for name, x in (("lam", lam), ("u", u), ("h0", h0)):
        check_finite(name, x)
    if lam.ndim < u.ndim:
        lam = jnp.expand_dims(lam, -2)
    lam = jnp.broadcast_to(lam.astype(dtype), u.shape)
    h0 = jnp.broadcast_to(h0.astype(dtype), state_shape)
    return lam, u.astype(dtype), h0
