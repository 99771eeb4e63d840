"""The perturbation error ``E_m(beta)`` of a fitted model (Wang, Li & Li 2024, Def. 3.4).

The definition (formula lost in the text version) is the worst error of the model whose parameters
are moved within a radius ``beta`` of the fitted ones. We follow the authors' code
(github radarFudan/Curse-of-memory, ``src/perturb.py``): every parameter tensor ``p`` gets its own
Gaussian noise ``n``, rescaled to sup-norm ``beta``,

    p  ->  p + beta * n / max|n|,

the loss of the perturbed model is evaluated, and the maximum over a few independent draws is taken
(10 draws for linear RNNs, 3 for nonlinear ones in the paper). The same noise directions are used at
every ``beta`` (draw ``i`` uses ``fold_in(key, i)``), as the authors' code re-seeds each draw.
Their code also carries the maximum over from smaller to larger ``beta``; :func:`perturbation_error`
does that only when asked (``running_max=True``), so that by default each ``beta`` stands alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from lrnn_core.validate import as_inexact, check_finite

__all__ = ["perturb", "perturbation_error", "perturbed_losses"]

Params = Any


def perturb(params: Params, beta: jax.Array | float, key: jax.Array) -> Params:
    """``params`` with each array leaf ``p`` moved to ``p + beta * n / max|n|``, ``n ~ N(0, I)``."""
    leaves, treedef = jax.tree.flatten(params)
    keys = jax.random.split(key, max(len(leaves), 1))

    def move(p: jax.Array, k: jax.Array) -> jax.Array:
        p = jnp.asarray(p)
        if p.size == 0:
            return p
        n = jax.random.normal(k, p.shape, p.dtype)
        return p + beta * n / jnp.max(jnp.abs(n))

    return jax.tree.unflatten(treedef, [move(p, k) for p, k in zip(leaves, keys)])


def perturbed_losses(
    loss_of_params: Callable[[Params], jax.Array],
    params: Params,
    betas: Any,
    *,
    key: jax.Array,
    draws: int = 10,
) -> np.ndarray:
    """Losses of the perturbed models, shape ``(len(betas), draws)``; ``loss_of_params`` must be
    traceable by JAX (it is ``vmap``-ed over betas and draws; pass a ``jax.jit``-ed function
    when it is called many times)."""
    betas = as_inexact("betas", betas)
    if betas.ndim != 1 or betas.size == 0:
        raise ValueError(f"betas must be a non-empty 1-D array, got shape {betas.shape}")
    check_finite("betas", betas)
    if np.any(np.asarray(betas) < 0):
        raise ValueError(f"betas must be >= 0, got {np.asarray(betas)}")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ValueError(f"draws must be a positive int, got {draws!r}")
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(draws))

    def one(beta: jax.Array, k: jax.Array) -> jax.Array:
        return loss_of_params(perturb(params, beta, k))

    table = jax.vmap(jax.vmap(one, (None, 0)), (0, None))(betas, keys)
    return np.asarray(table)


def perturbation_error(
    loss_of_params: Callable[[Params], jax.Array],
    params: Params,
    betas: Any,
    *,
    key: jax.Array,
    draws: int = 10,
    running_max: bool = False,
) -> np.ndarray:
    """``E_m(beta)`` for each beta (WLL Def. 3.4): the maximum over ``draws`` perturbations of the
    loss. ``beta = 0`` gives the unperturbed loss. A perturbed model that diverges gives ``inf``.
    ``running_max=True`` also takes the maximum over all smaller betas (the authors' code)."""
    table = perturbed_losses(loss_of_params, params, betas, key=key, draws=draws)
    table = np.where(np.isnan(table), np.inf, table)
    worst = table.max(axis=1)
    if running_max:
        order = np.argsort(np.asarray(betas), kind="stable")
        worst[order] = np.maximum.accumulate(worst[order])
    return worst
