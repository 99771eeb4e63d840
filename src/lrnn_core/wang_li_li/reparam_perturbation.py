"""The perturbation protocol of the authors' code and the spread test behind the stable
reparameterisation figures (Wang, Li & Li, ICLR 2024, Def. 3.4 / eq. 11, Figs 4, 7 and 8).

**The authors' protocol** (github radarFudan/Curse-of-memory, ``src/perturb.py`` run by their
scripts with ``perturb_range=21``, ``perturb_repeats=3``, ``perturbation_interval=0.5``):

    betas = {0} U {1e-3 * 2^(i / 2) : i = 0..20}        (1e-3 ... 1.024, :func:`authors_betas`)
    E_m(beta_j) = max_{i <= j} max_{r < repeats} loss(theta + beta_i n_r / max|n_r|),

each repeat ``r`` re-seeded identically at every beta (one noise direction per repeat), and the
maximum carried over from the smaller betas (the *running max*). :func:`draw_losses` gives the
loss of every draw (one draw at a time, so that wide grids fit in memory), :func:`sets_of_draws`
groups independent draws into sets of ``repeats`` and applies the authors' maxima to each set, so
that the spread of ``E_m(beta)`` from one set of draws to the next can be measured.

**The spread test** (:func:`separated`): a family A is *above* a family B beyond the spread of
their independent sets of draws when ``min(A) > max(B)``. If the two were the same distribution
(exchangeable), each of the ``C(n_A + n_B, n_A)`` placements of the A values among the pooled
values would be equally likely and only one puts all of A above all of B:

    P(separated | no difference) = 1 / C(n_A + n_B, n_A)     (:func:`separation_p_value`),

1.1e-5 for 10 sets against 10. No factor is chosen: the bound is the spread itself.

**Where direct and stable can differ** (:func:`crossing_beta`): a sup-norm-``beta`` perturbation
moves a raw parameter by at most ``beta``. In the direct coordinates the eigenvalue *is* the raw
parameter, so the slowest eigenvalue ``lam_min`` of a model can cross 0 only when
``beta > |lam_min|``; a stable map ``f(m) < 0`` never crosses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_choice,
    check_finite,
    check_flag,
    positive_int,
    positive_number,
)
from lrnn_core.wang_li_li.ctrnn import activation_function, check_ctrnn, recurrent_weight
from lrnn_core.wang_li_li.perturbation import PERTURBED, perturb, width_growth

__all__ = [
    "authors_betas",
    "crossed_zero",
    "crossing_beta",
    "direct_above",
    "draw_losses",
    "model_draw_losses",
    "output_mse",
    "separated",
    "separation_p_value",
    "sets_of_draws",
]

Params = Any


def authors_betas(perturb_range: int = 21, interval: float = 0.5) -> np.ndarray:
    """``{0} U {1e-3 * 2^(i * interval) : i < perturb_range}``, sorted (the authors'
    ``src/perturb.py``; their scripts: 21 values, interval 0.5, i.e. 1e-3 ... 1.024)."""
    perturb_range = positive_int("perturb_range", perturb_range)
    interval = positive_number("interval", interval)
    return np.concatenate([[0.0], 1e-3 * 2.0 ** (np.arange(perturb_range) * interval)])


def _betas(betas: ArrayLike) -> np.ndarray:
    betas = as_float64("betas", betas)
    if betas.ndim != 1 or betas.size == 0:
        raise ValueError(f"betas must be a non-empty 1-D array, got shape {betas.shape}")
    check_finite("betas", betas)
    if np.any(betas < 0) or np.any(np.diff(betas) <= 0):
        raise ValueError(f"betas must be >= 0 and strictly increasing, got {betas}")
    return betas


def draw_losses(
    loss_of_params: Callable[[Params], Array],
    params: Params,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int,
    perturbed: str,
    chunk: int = 10,
) -> np.ndarray:
    """Loss of every perturbed model, shape ``(len(betas), draws)``: draw ``i`` moves every
    parameter by ``beta * n / max|n|`` with the noise of ``fold_in(key, i)`` (the same direction at
    every beta; :func:`lrnn_core.wang_li_li.perturbation.perturb`), ``chunk`` draws at a time
    (``vmap`` over betas and the draws of a chunk). NaN (a diverged model) becomes ``inf``."""
    if not callable(loss_of_params):
        raise TypeError(f"loss_of_params must be callable, got {type(loss_of_params).__name__}")
    check_choice("perturbed", perturbed, PERTURBED)
    betas = jnp.asarray(_betas(betas), jnp.float32)
    draws, chunk = positive_int("draws", draws), positive_int("chunk", chunk)

    def one(b: Array, k: Array) -> Array:
        return loss_of_params(perturb(params, b, k, perturbed=perturbed))

    grid = jax.jit(jax.vmap(jax.vmap(one, (None, 0)), (0, None)))
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(draws))
    table = np.concatenate(
        [np.asarray(grid(betas, keys[i : i + chunk])) for i in range(0, draws, chunk)], axis=1
    )
    if table.shape != (betas.shape[0], draws):
        raise ValueError(f"loss_of_params must return a scalar loss, got shape {table.shape[2:]}")
    return np.where(np.isnan(table), np.inf, table).astype(np.float64)


def output_mse(
    params: Params,
    u: Float[ArrayLike, "n_seqs L M"],
    y: Float[ArrayLike, "n_seqs L d_out"],
    *,
    activation: str,
    parameterisation: str,
    dt: float = 1.0,
) -> Array:
    """``mean((C x_k - y_k)^2)`` over sequences, steps and outputs, for the Euler CTRNN
    ``x_{k+1} = x_k + dt sigma(lam x_k + B u_k + b)`` of
    :func:`lrnn_core.wang_li_li.ctrnn.ctrnn_outputs` (the same numbers), with the readout inside
    the scan so that only ``(n_seqs, N)`` states are held at a time (traceable: used under
    ``vmap``)."""
    sigma = activation_function(activation)
    lam = recurrent_weight(params.raw, parameterisation)
    drive = jnp.moveaxis(jnp.asarray(u) @ params.B.T + params.b, -2, 0)  # (L, n_seqs, N)
    target = jnp.moveaxis(jnp.asarray(y), -2, 0)  # (L, n_seqs, d_out)

    def step(x: Array, dk: tuple[Array, Array]) -> tuple[Array, Array]:
        d, yk = dk
        x = x + dt * sigma(lam * x + d)
        return x, jnp.sum((x @ params.C.T - yk) ** 2)

    x0 = jnp.zeros(drive.shape[1:], drive.dtype)
    _, sq = jax.lax.scan(step, x0, (drive, target))
    return jnp.sum(sq) / target.size


def sets_of_draws(
    losses: Float[ArrayLike, "... n_betas draws"], *, repeats: int = 3, running_max: bool = True
) -> np.ndarray:
    """``E_m(beta)`` of each set of ``repeats`` consecutive draws, shape ``(..., sets, n_betas)``
    with ``sets = draws // repeats`` (leftover draws are dropped): the maximum over the set's
    draws, then (``running_max``) over all smaller betas (the authors' ``src/perturb.py``; betas
    ascending along the axis)."""
    losses = np.asarray(losses, np.float64)
    repeats = positive_int("repeats", repeats)
    running_max = check_flag("running_max", running_max)
    if losses.ndim < 2 or losses.shape[-1] < repeats:
        raise ValueError(
            f"losses must have shape (..., n_betas, draws) with draws >= repeats={repeats}, "
            f"got {losses.shape}"
        )
    if np.any(np.isnan(losses)):
        raise ValueError("losses must not hold NaN (a diverged model is inf)")
    sets = losses.shape[-1] // repeats
    grouped = losses[..., : sets * repeats].reshape(*losses.shape[:-1], sets, repeats)
    worst = np.moveaxis(grouped.max(axis=-1), -1, -2)  # (..., sets, n_betas)
    return np.maximum.accumulate(worst, axis=-1) if running_max else worst


def separated(low: ArrayLike, high: ArrayLike) -> bool:
    """True when every value of ``high`` exceeds every value of ``low`` (``min(high) >
    max(low)``): ``high`` is above ``low`` beyond the spread of their independent draws (module
    docstring). ``inf`` is allowed (a diverged model); NaN is not."""
    low, high = np.asarray(low, np.float64).ravel(), np.asarray(high, np.float64).ravel()
    if low.size == 0 or high.size == 0:
        raise ValueError("low and high must each hold at least one value")
    if np.any(np.isnan(low)) or np.any(np.isnan(high)):
        raise ValueError("low and high must not hold NaN")
    return bool(high.min() > low.max())


def separation_p_value(n_low: int, n_high: int) -> float:
    """``1 / C(n_low + n_high, n_low)``: the chance that ``n_high`` exchangeable values all exceed
    ``n_low`` others (module docstring)."""
    n_low, n_high = positive_int("n_low", n_low), positive_int("n_high", n_high)
    return 1.0 / math.comb(n_low + n_high, n_low)


def crossing_beta(params: Params, parameterisation: str) -> float:
    """The smallest beta at which a sup-norm perturbation of the raw parameters can push an
    eigenvalue of ``params`` (a CTRNN) across 0: ``|lam_min|`` in the direct coordinates, ``inf``
    for a stable map (module docstring)."""
    lam = np.asarray(recurrent_weight(params.raw, parameterisation), np.float64)
    if np.any(lam >= 0):
        raise ValueError("params must be stable (every eigenvalue < 0)")
    return float(np.abs(lam).min()) if parameterisation == "direct" else math.inf


def crossed_zero(
    params: Params,
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int,
    parameterisation: str,
    perturbed: str,
) -> np.ndarray:
    """Whether draw ``i`` at each beta (the draws of :func:`draw_losses`, same key) pushes an
    eigenvalue to ``>= 0``, shape ``(len(betas), draws)``."""
    betas = _betas(betas)
    draws = positive_int("draws", draws)
    return np.array(
        [
            [
                float(
                    recurrent_weight(
                        perturb(params, b, jax.random.fold_in(key, i), perturbed=perturbed).raw,
                        parameterisation,
                    ).max()
                )
                >= 0
                for i in range(draws)
            ]
            for b in betas
        ]
    )


def model_draw_losses(
    models: Sequence[Params],
    u: Float[ArrayLike, "n_seqs L M"],
    y: Float[ArrayLike, "n_seqs L d_out"],
    betas: Float[ArrayLike, " n_betas"],
    *,
    key: Array,
    draws: int,
    activation: str,
    parameterisation: str,
    dt: float = 1.0,
    perturbed: str,
) -> np.ndarray:
    """Test MSE (:func:`output_mse`) of every perturbed draw (:func:`draw_losses`) of each CTRNN
    of ``models`` (e.g. the fits of WLL Figs 7-8, one per width), shape ``(len(models),
    len(betas), draws)``; the same ``key`` (noise) for every model."""
    u, y = as_inexact("u", u), as_inexact("y", y)
    check_finite("u", u)
    check_finite("y", y)
    if len(models) == 0:
        raise ValueError("models must hold at least one CTRNN")
    for i, params in enumerate(models):
        check_ctrnn(f"models[{i}]", params)

    def table(params: Params) -> np.ndarray:
        def loss(q: Params) -> Array:
            return output_mse(
                q, u, y, activation=activation, parameterisation=parameterisation, dt=dt
            )

        return draw_losses(loss, params, betas, key=key, draws=draws, perturbed=perturbed)

    return np.array([table(params) for params in models])


def direct_above(
    direct_sets: Float[ArrayLike, "sets n_widths n_betas"],
    stable_sets: Float[ArrayLike, "... sets n_widths n_betas"],
) -> tuple[np.ndarray, np.ndarray]:
    """Per beta, is the direct family above the stable one(s) beyond the spread of their sets of
    draws (:func:`separated`)? Returns two boolean arrays (n_betas,): for the growth in the width
    (:func:`lrnn_core.wang_li_li.perturbation.width_growth` of each set) and for the widest
    model's ``E_m(beta)``. ``stable_sets`` may stack several stable maps on leading axes (every
    set of every map is one value of the pool). Where a set's narrowest and widest models both
    diverged (``inf``), its growth is undefined and the growth test at that beta is False."""
    d = np.asarray(direct_sets, np.float64)
    s = np.asarray(stable_sets, np.float64)
    if d.ndim != 3 or d.shape[1] < 2 or s.shape[-2:] != d.shape[1:]:
        raise ValueError(
            "direct_sets must be (sets, n_widths >= 2, n_betas) and stable_sets (..., sets, "
            f"n_widths, n_betas) with the same widths and betas, got {d.shape} and {s.shape}"
        )
    s = s.reshape(-1, *d.shape[1:])
    with np.errstate(invalid="ignore"):  # inf / inf: both widths diverged, growth undefined
        growth_d = np.array([width_growth(E) for E in d])
        growth_s = np.array([width_growth(E) for E in s])
    by_beta = range(d.shape[2])
    growth = [
        bool(
            not np.isnan(growth_d[:, j]).any()
            and not np.isnan(growth_s[:, j]).any()
            and separated(growth_s[:, j], growth_d[:, j])
        )
        for j in by_beta
    ]
    widest = [separated(s[:, -1, j], d[:, -1, j]) for j in by_beta]
    return np.array(growth), np.array(widest)
