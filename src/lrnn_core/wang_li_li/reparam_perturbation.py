"""The perturbation protocol of the authors' code and the spread test behind the stable
reparameterisation figures (Wang, Li & Li, ICLR 2024, Def. 3.4 / eq. 11, Figs 4, 7 and 8).

**The authors' protocol** (github radarFudan/Curse-of-memory, ``src/perturb.py`` run by their
scripts with ``perturb_range=21``, ``perturb_repeats=3``, ``perturbation_interval=0.5``):

    betas = {0} U {1e-3 * 2^(i / 2) : i = 0..20}        (1e-3 ... 1.024, :func:`authors_betas`)
    E_m(beta_j) = max_{i <= j} max_{r < repeats} loss(theta + beta_i n_r / max|n_r|),

each repeat ``r`` re-seeded identically at every beta (one noise direction per repeat), and the
maximum carried over from the smaller betas (the *running max*).
:func:`lrnn_core.wang_li_li.perturbation.perturbed_losses` gives the loss of every draw (a chunk of
draws at a time, so that wide grids fit in memory), :func:`sets_of_draws` groups independent
draws into sets of ``repeats`` and applies the authors' maxima to each set, so
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
from collections.abc import Sequence

import jax
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.memory import heaviside_memory
from lrnn_core.core.validate import (
    as_float64,
    as_inexact,
    check_finite,
    check_flag,
    positive_int,
    positive_number,
)
from lrnn_core.wang_li_li.ctrnn import (
    CTRNN,
    check_ctrnn,
    ctrnn_outputs,
    recurrent_weight,
)
from lrnn_core.wang_li_li.perturbation import (
    check_betas,
    moved_by,
    output_loss_of,
    perturb,
    perturbation_noise,
    perturbed_losses,
    width_growth,
)

__all__ = [
    "authors_betas",
    "crossed_zero",
    "crossing_beta",
    "direct_above",
    "fits_alike",
    "model_draw_losses",
    "perturbed_memories",
    "separated",
    "separation_p_value",
    "sets_of_draws",
    "unstable",
]

#: The parameters every function here perturbs: an Euler CTRNN.
Params = CTRNN


def authors_betas(perturb_range: int = 21, interval: float = 0.5) -> np.ndarray:
    """``{0} U {1e-3 * 2^(i * interval) : i < perturb_range}``, sorted (the authors'
    ``src/perturb.py``; their scripts: 21 values, interval 0.5, i.e. 1e-3 ... 1.024)."""
    perturb_range = positive_int("perturb_range", perturb_range)
    interval = positive_number("interval", interval)
    return np.concatenate([[0.0], 1e-3 * 2.0 ** (np.arange(perturb_range) * interval)])


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


def unstable(params: Params, parameterisation: str) -> bool:
    """Whether an eigenvalue of the CTRNN ``params`` (its raw parameters mapped by
    ``parameterisation``) is ``>= 0``: the perturbed map has left the stable set."""
    return float(recurrent_weight(params.raw, parameterisation).max()) >= 0


def crossing_beta(params: Params, parameterisation: str) -> float:
    """The smallest beta at which a sup-norm perturbation of the raw parameters can push an
    eigenvalue of ``params`` (a CTRNN) across 0: ``|lam_min|`` in the direct coordinates, ``inf``
    for a stable map (module docstring)."""
    if unstable(params, parameterisation):
        raise ValueError("params must be stable (every eigenvalue < 0)")
    lam = np.asarray(recurrent_weight(params.raw, parameterisation), np.float64)
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
    """Whether draw ``i`` at each beta (the draws of
    :func:`lrnn_core.wang_li_li.perturbation.perturbed_losses`, same key) pushes an eigenvalue to
    ``>= 0``, shape ``(len(betas), draws)``."""
    betas = check_betas(betas, increasing=True)
    draws = positive_int("draws", draws)
    crossed = np.zeros((len(betas), draws), bool)
    for i in range(draws):
        noise = perturbation_noise(params, jax.random.fold_in(key, i), perturbed=perturbed)
        for j, b in enumerate(betas):
            crossed[j, i] = unstable(moved_by(params, b, noise), parameterisation)
    return crossed


def perturbed_memories(
    params: Params,
    beta: float,
    keys: Sequence[Array],
    *,
    L: int,
    activation: str,
    parameterisation: str,
    amplitude: float = 1.0,
    dt: float = 1.0,
    perturbed: str = "all",
) -> tuple[np.ndarray, np.ndarray]:
    """The Heaviside memory (WLL Def. 2.1, :func:`lrnn_core.core.memory.heaviside_memory`) over
    ``L`` steps of the CTRNN ``params`` and of one perturbation of size ``beta`` per key
    (:func:`lrnn_core.wang_li_li.perturbation.perturb`), shape ``(1 + len(keys), L)`` (row 0 the
    unperturbed model), and whether each perturbation pushed an eigenvalue to ``>= 0``."""
    check_ctrnn("params", params)
    models = [params] + [perturb(params, beta, k, perturbed=perturbed) for k in keys]
    crossed = np.array([unstable(q, parameterisation) for q in models[1:]], bool)

    def memory(q: Params) -> np.ndarray:
        def model(u: Array) -> Array:
            return ctrnn_outputs(
                q, u[:, None], activation=activation, parameterisation=parameterisation, dt=dt
            )[:, 0]

        return heaviside_memory(jax.jit(model), L, amplitude=amplitude, dt=dt)

    return np.array([memory(q) for q in models]), crossed


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
    chunk: int = 10,
) -> np.ndarray:
    """Test MSE (:func:`lrnn_core.wang_li_li.ctrnn.output_mse`) of every perturbed draw
    (:func:`lrnn_core.wang_li_li.perturbation.perturbed_losses`) of each CTRNN
    of ``models`` (e.g. the fits of WLL Figs 7-8, one per width), shape ``(len(models),
    len(betas), draws)``; the same ``key`` (noise) for every model, ``chunk`` draws at a time (one
    compiled program per model shape and ``chunk``)."""
    betas = check_betas(betas, increasing=True)
    u, y = as_inexact("u", u), as_inexact("y", y)
    check_finite("u", u)
    check_finite("y", y)
    if len(models) == 0:
        raise ValueError("models must hold at least one CTRNN")
    for i, params in enumerate(models):
        check_ctrnn(f"models[{i}]", params)

    loss = output_loss_of(activation, parameterisation, dt)
    return np.array(
        [
            perturbed_losses(
                loss,
                params,
                betas,
                key=key,
                draws=draws,
                perturbed=perturbed,
                chunk=chunk,
                data=(u, y),
            )  # fmt: skip
            for params in models
        ]
    )


def fits_alike(
    reference: Float[ArrayLike, " Ns"],
    others: Sequence[Float[ArrayLike, " Ns"]],
    *,
    rtol: float = 0.01,
) -> bool:
    """Whether every family of ``others`` fits as well as ``reference`` at every width: their
    unperturbed errors ``E_m(0)`` agree within ``rtol`` (the precondition of comparing their
    perturbed errors, WLL Figs 7-8: models built from the same fits in other coordinates)."""
    ref = as_float64("reference", reference)
    rtol = positive_number("rtol", rtol)
    if not others:
        raise ValueError("others must hold at least one family of errors")
    for i, o in enumerate(others):
        if np.shape(o) != ref.shape:
            raise ValueError(f"others[{i}] has shape {np.shape(o)}, reference {ref.shape}")
    return all(bool(np.allclose(as_float64("others", o), ref, rtol=rtol)) for o in others)


def direct_above(
    direct_sets: Float[ArrayLike, "sets Ns n_betas"],
    stable_sets: Float[ArrayLike, "... sets Ns n_betas"],
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
            "direct_sets must be (sets, Ns >= 2, n_betas) and stable_sets (..., sets, "
            f"Ns, n_betas) with the same widths and betas, got {d.shape} and {s.shape}"
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
