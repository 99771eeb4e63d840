"""The perturbation error ``E_m(beta)`` of a fitted model (Wang, Li & Li 2024, Def. 3.4, eq. 11).

The definition (formula lost in the text version) is the worst error of the model whose parameters
are moved within a radius ``beta`` of the fitted ones; the text says "perturb *each* parameter by a
small amount" (Sec. 3.2). The one protocol of the book follows the authors' code
(github radarFudan/Curse-of-memory, ``src/perturb.py``): every parameter tensor ``p`` gets its own
Gaussian noise ``n``, rescaled to sup-norm ``beta``,

    p  ->  p + beta * n / max|n|,

the loss of the perturbed model is evaluated, and the maximum over a few independent draws is taken
(10 draws for linear RNNs, 3 for nonlinear ones in the paper). The same noise directions are used at
every ``beta`` (draw ``i`` uses ``fold_in(key, i)``), as the authors' code re-seeds each draw.

Which parameters are perturbed is an explicit argument, ``perturbed``:

* ``"all"`` (the paper and the authors' code): every parameter tensor. ``src/perturb.py`` loops over
  ``model.named_parameters()``, which include the biases of the encoder ``nn.Linear`` (the bias
  ``b`` inside the activation of our CTRNN) and of the decoder.
* ``"all_but_bias"``: the field ``b`` of a :class:`~lrnn_core.wang_li_li.ctrnn.CTRNN` (the top-level
  entry named ``b`` of any NamedTuple or dict) is left as it is.

Both rules give the other tensors the same noise (leaf ``i`` always uses the ``i``-th key).
The authors' code also carries the maximum over from smaller to larger ``beta``;
:func:`perturbation_error` does that only when asked (``running_max=True``), so that by default each
``beta`` stands alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.eigenvalues import lru_eigenvalues
from lrnn_core.core.validate import (
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    check_ndim,
    check_not_empty,
    nonnegative_int,
    positive_int,
    real_number,
)
from lrnn_core.wang_li_li.ctrnn import ctrnn_outputs
from lrnn_core.wang_li_li.fitting import kernel_loss

__all__ = [
    "PERTURBED",
    "kernel_perturbation_error",
    "lru_perturbed_modulus",
    "output_perturbation_error",
    "perturb",
    "perturbation_error",
    "perturbed_losses",
]

#: The rules for which parameters are perturbed; "all" is the paper's and the authors' protocol.
PERTURBED = ("all", "all_but_bias")

Params = Any


def _is_bias(path: tuple[Any, ...]) -> bool:
    first = path[0] if path else None
    name = getattr(first, "name", getattr(first, "key", None))
    return name == "b"


def perturb(params: Params, beta: float | Array, key: Array, *, perturbed: str = "all") -> Params:
    """``params`` with each array leaf ``p`` moved to ``p + beta * n / max|n|``, ``n ~ N(0, I)``
    (WLL Def. 3.4, the authors' ``src/perturb.py``); ``perturbed="all_but_bias"`` leaves the
    top-level entry ``b`` unchanged."""
    check_choice("perturbed", perturbed, PERTURBED)
    leaves, treedef = jax.tree_util.tree_flatten_with_path(params)
    if perturbed == "all_but_bias" and not any(_is_bias(path) for path, _ in leaves):
        raise ValueError("perturbed='all_but_bias' needs params with a bias entry 'b'")
    keys = jax.random.split(key, max(len(leaves), 1))

    def move(path: tuple[Any, ...], p: Array, k: Array) -> Array:
        p = jnp.asarray(p)
        if p.size == 0 or (perturbed == "all_but_bias" and _is_bias(path)):
            return p
        n = jax.random.normal(k, p.shape, p.dtype)
        return p + beta * n / jnp.max(jnp.abs(n))

    moved = [move(path, p, k) for (path, p), k in zip(leaves, keys, strict=False)]
    return jax.tree.unflatten(treedef, moved)


def _betas(betas: Float[ArrayLike, " n_betas"]) -> Array:
    betas = as_inexact("betas", betas)
    check_ndim("betas", betas, 1)
    if betas.ndim != 1:
        raise ValueError(f"betas must be a 1-D array, got shape {betas.shape}")
    check_not_empty("betas", betas)
    check_finite("betas", betas)
    if np.any(np.asarray(betas) < 0):
        raise ValueError(f"betas must be >= 0, got {np.asarray(betas)}")
    return betas


def perturbed_losses(
    loss_of_params: Callable[[Params], Array],
    params: Params,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 10,
    perturbed: str,
) -> np.ndarray:
    """Losses of the perturbed models (WLL Def. 3.4), shape ``(len(betas), draws)``.

    ``loss_of_params`` must be traceable by JAX (it is ``vmap``-ed over betas and draws; pass a
    ``jax.jit``-ed function when it is called many times). ``perturbed`` is one of
    :data:`PERTURBED` (no default: say which rule is used)."""
    if not callable(loss_of_params):
        raise TypeError(f"loss_of_params must be callable, got {type(loss_of_params).__name__}")
    check_choice("perturbed", perturbed, PERTURBED)
    betas = _betas(betas)
    draws = positive_int("draws", draws)
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(draws))

    def one(beta: Array, k: Array) -> Array:
        return loss_of_params(perturb(params, beta, k, perturbed=perturbed))

    table = jax.vmap(jax.vmap(one, (None, 0)), (0, None))(betas, keys)
    if np.shape(table) != (len(betas), draws):
        raise ValueError(f"loss_of_params must return a scalar loss, got shape {table.shape[2:]}")
    return np.asarray(table)


def perturbation_error(
    loss_of_params: Callable[[Params], Array],
    params: Params,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 10,
    perturbed: str,
    running_max: bool = False,
) -> np.ndarray:
    """``E_m(beta)`` for each beta (WLL Def. 3.4, eq. 11): the maximum over ``draws`` perturbations
    of the loss. ``beta = 0`` gives the unperturbed loss. A perturbed model that diverges gives
    ``inf``. ``perturbed`` says which parameters move (:data:`PERTURBED`; the paper's is "all").
    ``running_max=True`` also takes the maximum over all smaller betas (the authors' code)."""
    running_max = check_flag("running_max", running_max)
    table = perturbed_losses(
        loss_of_params, params, betas, key=key, draws=draws, perturbed=perturbed
    )
    table = np.where(np.isnan(table), np.inf, table)
    worst = table.max(axis=1)
    if running_max:
        order = np.argsort(np.asarray(betas), kind="stable")
        worst[order] = np.maximum.accumulate(worst[order])
    return worst


def kernel_perturbation_error(
    params: Params,
    rho: Float[ArrayLike, " T"],
    t: Float[ArrayLike, " T"],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 10,
    parameterisation: str = "direct",
    perturbed: str,
) -> np.ndarray:
    """``E_m(beta)`` of a linear RNN (WLL Def. 3.4 with Fig. 1's error): the mean squared kernel
    error (:func:`lrnn_core.wang_li_li.fitting.kernel_loss` on the grid ``t``) of the perturbed
    models, maximum over ``draws``. Float64 parameters are kept in float64 only inside
    ``jax.enable_x64(True)`` (the caller's context)."""

    def loss(p: Params) -> Array:
        return kernel_loss(p, rho, t, parameterisation=parameterisation)

    return perturbation_error(
        jax.jit(loss), params, betas, key=key, draws=draws, perturbed=perturbed
    )


def output_perturbation_error(
    params: Params,
    u: Float[ArrayLike, "n_seqs L M"],
    y: Float[ArrayLike, "n_seqs L d_out"],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int = 3,
    activation: str,
    parameterisation: str = "direct",
    dt: float = 1.0,
    perturbed: str,
) -> np.ndarray:
    """``E_m(beta)`` of a nonlinear CTRNN (WLL Def. 3.4 with Figs 2, 7, 8): the test MSE
    ``mean((ctrnn_outputs(p, u) - y)^2)`` of the perturbed models, maximum over ``draws``."""
    u, y = as_inexact("u", u), as_inexact("y", y)
    check_finite("u", u)
    check_finite("y", y)

    def loss(p: Params) -> Array:
        out = ctrnn_outputs(p, u, activation=activation, parameterisation=parameterisation, dt=dt)
        return jnp.mean((out - y) ** 2)

    return perturbation_error(
        jax.jit(loss), params, betas, key=key, draws=draws, perturbed=perturbed
    )


def lru_perturbed_modulus(
    nu_log: Float[ArrayLike, " N"],
    theta_log: Float[ArrayLike, " N"],
    beta: float,
    *,
    coords: str,
    draws: int = 20,
    first_seed: int = 100,
) -> float:
    """The largest ``|lam|`` over ``draws`` perturbations of size ``beta`` (the same sup-norm
    Gaussian noise as :func:`perturb`) of the LRU eigenvalues ``lam = exp(-exp(nu_log) + i
    exp(theta_log))`` (Orvieto et al. 2023, eq. 6; WLL Sec. 3.4 names the LRU as the discrete-time
    stable parameterisation). ``coords="lru"`` perturbs ``(nu_log, theta_log)``, ``coords="direct"``
    perturbs ``(Re lam, Im lam)``. Draw ``d`` uses ``jax.random.key(first_seed + d)``."""
    check_choice("coords", coords, ("lru", "direct"))
    beta = real_number("beta", beta, low=0.0)
    draws = positive_int("draws", draws)
    first_seed = nonnegative_int("first_seed", first_seed)
    nu_log, theta_log = as_inexact("nu_log", nu_log), as_inexact("theta_log", theta_log)
    check_finite("nu_log", nu_log)
    check_finite("theta_log", theta_log)
    lam = lru_eigenvalues(nu_log, theta_log)
    worst = 0.0
    for d in range(draws):
        key = jax.random.key(first_seed + d)
        if coords == "lru":
            nu, th = perturb((nu_log, theta_log), beta, key)
            moved = lru_eigenvalues(nu, th)
        else:
            re, im = perturb((lam.real, lam.imag), beta, key)
            moved = re + 1j * im
        worst = max(worst, float(jnp.abs(moved).max()))
    return worst
