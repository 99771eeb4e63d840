"""Claim checks of the stable-approximation chapter (Wang, Li & Li, ICLR 2024, Figs 1-3, App. C).

* Width behaviour of a perturbation error ``E_m(beta)`` (Def. 3.4, eq. 11 reconstructed), rows
  ``m_1 < m_2 < ...``, column 0 at ``beta = 0``: :func:`bounded_in_width` (stable, Def. 3.5:
  ``E_m(beta)`` bounded uniformly in ``m`` at each ``beta > 0``) and :func:`grows_in_width`
  (unstable: ``E_m(beta)`` grows with ``m``).
* :func:`epochs_gap`: the epoch gap of Sec. 3.3 ("approximation is achieved at 1000 epochs while
  typically exponential decaying memory achieves the approximation at 10 epochs"), the ratio of
  the total epochs of the sequential-width protocol on the polynomial target to those on the
  exponential one, and whether the budget can show it.
* :func:`ctrnn_memory_check`: the model side of Thm 3.9. A diagonal Euler CTRNN
  ``h_{k+1} = h_k + dt sigma(lam * h_k + B u_k + b)`` with a 1-Lipschitz monotone ``sigma`` whose
  modes all satisfy ``|1 + dt lam_i| < 1`` relaxes to a fixed point (where ``sigma`` is linear),
  and any difference of two trajectories shrinks there by at most ``max_i |1 + dt lam_i|`` per
  step, so its impulse memory (App. F, eq. 121) decays at least at the rate
  ``min_i -log|1 + dt lam_i|`` (about ``min_i |lam_i|``, the stability radius, for small steps)
  once the state has relaxed; before that a saturated unit (secant slope 0) keeps a difference
  unchanged. The rate is read on the upper envelope of the memory's relaxed tail.
  :func:`with_marginal_mode` moves one mode onto the stability boundary (``lam = 0``): the object
  without a stability radius, whose memory need not decay.
* :func:`filter_check`: the filtering claim of Fig. 3 on the targets the filter keeps
  (:func:`fits_check` on the targets' log-linear memory fits).
* :func:`linear_memory_check`: Fig. 1 as one verdict; :func:`rescaling_check`: the App. C
  analogue (a fixed rescaling of the eigenvalue grid stabilises a target of its own rate and
  fails on a slower one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Float

from lrnn_core.core.memory import (
    DecayFit,
    fit_decay,
    impulse_memory,
    roundoff_floor,
    tail_ratio,
    upper_envelope,
)
from lrnn_core.core.validate import (
    as_float64,
    check_choice,
    check_shape,
    positive_int,
    positive_number,
    real_number,
)
from lrnn_core.wang_li_li.ctrnn import ACTIVATIONS, CTRNN, ctrnn_outputs, recurrent_weight
from lrnn_core.wang_li_li.memory_checks import DECAYING, NON_DECAYING

__all__ = [
    "EpochsGap",
    "ModelMemory",
    "bounded_in_width",
    "contracting_memories",
    "ctrnn_memory_check",
    "epoch_gaps",
    "epochs_gap",
    "filter_check",
    "fits_check",
    "grows_in_width",
    "linear_memory_check",
    "rescaling_check",
    "with_marginal_mode",
]


def _errors(errors: ArrayLike) -> np.ndarray:
    E = as_float64("errors", errors)
    if E.ndim != 2 or E.shape[0] < 2 or E.shape[1] < 2:
        raise ValueError(
            f"errors must be 2-D (Ns, betas) with >= 2 widths and beta = 0 plus at least "
            f"one beta > 0, got shape {E.shape}"
        )
    if np.any(np.isnan(E)) or np.any(E < 0):
        raise ValueError("errors must be >= 0 and not NaN")
    return E


def bounded_in_width(errors: Float[ArrayLike, "Ns betas"], *, factor: float = 100.0) -> bool:
    """Stable (Def. 3.5): at every ``beta > 0`` (columns 1..) the two widest models are no worse
    than the narrowest and no width is more than ``factor`` times the narrowest."""
    E = _errors(errors)[:, 1:]
    factor = real_number("factor", factor, low=1.0)
    return bool(np.all(E[-2:] <= E[0]) and np.all(E.max(axis=0) <= factor * E[0]))


def grows_in_width(errors: Float[ArrayLike, "Ns betas"], *, factor: float = 1e6) -> bool:
    """Unstable: at every ``beta > 0`` the widest model's error exceeds ``factor`` times the
    narrowest's, and the error grows monotonically from the second width on."""
    E = _errors(errors)[:, 1:]
    factor = real_number("factor", factor, low=1.0)
    return bool(np.all(E[-1] > factor * E[0]) and np.all(np.diff(E[1:], axis=0) > 0))


class EpochsGap(NamedTuple):
    """Totals of epochs over the widths (a width that missed its threshold counts as
    ``budget + 1``, so ``polynomial`` is a lower bound), their ratio, whether the budget lets
    the ratio reach ``min_gap`` at all (``decidable``), and whether it did (``holds``)."""

    exponential: float
    polynomial: float
    ratio: float
    min_gap: float
    decidable: bool
    holds: bool


def epochs_gap(
    exponential: Float[ArrayLike, " Ns"],
    polynomial: Float[ArrayLike, " Ns"],
    *,
    budget: int,
    min_gap: float = 10.0,
) -> EpochsGap:
    """The Sec. 3.3 epoch gap: ``sum(polynomial) / sum(exponential)`` epochs over the widths of
    the sequential protocol (``inf`` = not within ``budget``). It holds when every exponential
    width reached its threshold and the ratio is at least ``min_gap``; it is decidable when the
    budget could show that gap, ``(budget + 1) * n >= min_gap * sum(exponential)`` for ``n``
    widths."""
    budget = positive_int("budget", budget)
    min_gap = real_number("min_gap", min_gap, low=1.0)
    e = np.asarray(exponential, dtype=np.float64)
    p = np.asarray(polynomial, dtype=np.float64)
    check_shape("exponential", e, (None,))
    check_shape("polynomial", p, e.shape)
    if e.size == 0 or np.any(np.isnan(e)) or np.any(np.isnan(p)) or np.any(e < 0) or np.any(p < 0):
        raise ValueError("epochs must be non-empty, >= 0 and not NaN (inf: not reached)")
    exp_total = float(np.minimum(e, budget + 1).sum())
    pol_total = float(np.minimum(p, budget + 1).sum())
    if exp_total == 0:
        raise ValueError("the exponential target needed 0 epochs in total: no ratio")
    ratio = pol_total / exp_total
    decidable = bool((budget + 1) * e.size >= min_gap * exp_total)
    holds = bool(decidable and np.all(np.isfinite(e)) and ratio >= min_gap)
    return EpochsGap(exp_total, pol_total, ratio, min_gap, decidable, holds)


def epoch_gaps(
    needed: Mapping[tuple[str, str], Float[ArrayLike, " Ns"]],
    *,
    budget: int,
    min_gap: float = 10.0,
) -> dict[str, EpochsGap]:
    """:func:`epochs_gap` for each activation of ``needed`` (epochs per width keyed
    ``(activation, target)``, targets ``"exponential"`` and ``"polynomial"``)."""
    acts = dict.fromkeys(act for act, _ in needed)
    return {
        act: epochs_gap(
            needed[act, "exponential"], needed[act, "polynomial"], budget=budget, min_gap=min_gap
        )
        for act in acts
    }


class ModelMemory(NamedTuple):
    """Impulse memory of one CTRNN against its stability radius: ``radius`` ``min_i -lam_i``,
    ``predicted`` the rate ``min_i -log|1 + dt lam_i|`` (0 if a mode is not contracting),
    ``rate`` the fitted tail rate, ``tail`` the tail ratio, ``holds`` whether the memory decays
    (tail ratio below :data:`DECAYING`) at least at ``(1 - tolerance)`` times ``predicted``."""

    radius: float
    predicted: float
    rate: float
    tail: float
    holds: bool


def ctrnn_memory_check(
    params: CTRNN,
    *,
    activation: str = "hardtanh",
    parameterisation: str = "direct",
    dt: float = 1.0,
    L: int = 1000,
    start: float = 5.0,
    tolerance: float = 0.1,
    depth: float = 1e-6,
) -> ModelMemory:
    """The model side of Thm 3.9 for one CTRNN (no run axis, one input and one output): its
    impulse memory over ``L`` steps (float64) decays at least at the rate its modes predict
    (module docstring); ``tolerance`` is the fit noise allowed (10 %, the book's LRU check). The
    rate is a guarantee for the relaxed state and an upper bound ``c e^{-rate t}``: the tail rate
    is fitted to the memory's upper envelope (:func:`lrnn_core.core.memory.upper_envelope`, so
    that a dip where the readout's modes cancel is not read as a faster decay) where it has
    fallen below ``depth`` times its peak (and above round-off), not over the relaxation, where
    a saturated unit (secant slope 0) does not shrink a difference at all; from ``t = start`` on
    if it never falls that far or too few points are left."""
    check_choice("activation", activation, ACTIVATIONS)
    L = positive_int("L", L)
    dt = positive_number("dt", dt)
    start = real_number("start", start, low=0.0)
    tolerance = real_number("tolerance", tolerance, low=0.0, high=1.0)
    depth = real_number("depth", depth, low=0.0, high=1.0)
    if np.ndim(params.raw) != 1 or np.shape(params.B)[-1] != 1 or np.shape(params.C)[0] != 1:
        raise ValueError(
            "params must be one CTRNN with one input and one output (raw (N,), B (N, 1), "
            f"C (1, N)), got raw {np.shape(params.raw)}, B {np.shape(params.B)}, "
            f"C {np.shape(params.C)}"
        )
    if not start < (L - 3) * dt:
        raise ValueError(f"start={start} leaves fewer than 3 points of the L={L} steps")
    with jax.enable_x64(True):
        p64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
        lam = np.asarray(recurrent_weight(p64.raw, parameterisation))

        def model(u):
            return ctrnn_outputs(
                p64, u[:, None], activation=activation, parameterisation=parameterisation, dt=dt
            )[:, 0]

        memory = impulse_memory(model, L, dt=dt)
    factor = np.abs(1.0 + dt * lam).max()
    predicted = float(-np.log(factor) / dt) if factor < 1 else 0.0
    t = np.arange(L) * dt
    tail = tail_ratio(memory)
    envelope = upper_envelope(memory)
    rate = fit_decay(envelope, t, tail=_asymptotic_window(envelope, t, start, depth)).rate
    holds = bool(tail < DECAYING and rate >= (1 - tolerance) * predicted)
    return ModelMemory(float(-lam.max()), predicted, float(rate), float(tail), holds)


def contracting_memories(checks: Sequence[ModelMemory]) -> tuple[list[ModelMemory], bool]:
    """The model side of WLL Fig. 3 on the checkpoints it covers: those whose Euler step
    contracts (``predicted > 0``, every ``|1 + dt lam_i| < 1``, the hypothesis of the guarantee)
    and whether each of them passes :func:`ctrnn_memory_check` (False when none contracts)."""
    contracting = [c for c in checks if c.predicted > 0]
    return contracting, bool(contracting) and all(c.holds for c in contracting)


def _asymptotic_window(
    memory: np.ndarray, t: np.ndarray, start: float, depth: float
) -> tuple[float, float]:
    """From the first time after ``start`` where ``memory`` is below ``depth`` times its peak to
    the end, if at least 3 points there lie above the round-off floor of
    :func:`lrnn_core.core.memory.fit_decay`; else from ``start``."""
    floor = roundoff_floor(np.asarray(memory, np.float64))
    late = (t >= start) & (memory <= depth * memory.max())
    if late.any():
        first = t[np.argmax(late)]
        if np.sum((t >= first) & (memory > floor)) >= 3:
            return float(first), float(t[-1])
    return float(start), float(t[-1])


def with_marginal_mode(params: CTRNN) -> CTRNN:
    """The same CTRNN (direct parameterisation, no run axis) with the eigenvalue of its most
    visible mode (largest ``|C_i B_i|``) set to 0: a mode on the stability boundary, radius 0."""
    raw = np.asarray(params.raw)
    if raw.ndim != 1:
        raise ValueError(f"params must be one CTRNN (raw of shape (N,)), got {raw.shape}")
    weight = np.abs(np.asarray(params.C)[0] * np.asarray(params.B)[:, 0])
    return params._replace(raw=jnp.asarray(raw).at[int(np.argmax(weight))].set(0.0))


def filter_check(
    kept: ArrayLike, rates: ArrayLike, r2: ArrayLike, tails: ArrayLike, *, min_rate: float = 0.05
) -> bool:
    """The Fig. 3 claim on the filter's verdict: some target is kept, every kept target has a
    log-linear memory tail (fitted ``rate > min_rate``, ``r2 > 0.75``: random targets can
    oscillate as they decay), and no non-decaying target (tail ratio > :data:`NON_DECAYING`)
    is kept. ``rates``/``r2`` of rejected targets are ignored (NaN allowed there)."""
    kept = np.asarray(kept, dtype=bool)
    rates, r2, tails = (np.asarray(a, dtype=np.float64) for a in (rates, r2, tails))
    for name, a in (("rates", rates), ("r2", r2), ("tails", tails)):
        check_shape(name, a, kept.shape)
    min_rate = real_number("min_rate", min_rate, low=0.0)
    return bool(
        kept.any()
        and np.all(rates[kept] > min_rate)
        and np.all(r2[kept] > 0.75)
        and not np.any(kept & (tails > NON_DECAYING))
    )


def fits_check(
    kept: ArrayLike, fits: Sequence[DecayFit | None], tails: ArrayLike, *, min_rate: float = 0.05
) -> bool:
    """:func:`filter_check` on the log-linear memory fits of the targets (``None`` for a target
    that was not fitted: rate and ``r2`` NaN)."""
    rates = [f.rate if f else np.nan for f in fits]
    r2 = [f.r2 if f else np.nan for f in fits]
    return filter_check(kept, rates, r2, tails, min_rate=min_rate)


def linear_memory_check(
    exponential: Float[ArrayLike, "Ns betas"], polynomial: Float[ArrayLike, "Ns betas"]
) -> bool:
    """WLL Fig. 1 on the least-squares linear RNNs' ``E_m(beta)`` (rows: widths, column 0:
    ``beta = 0``): ``E_m(0)`` falls with ``m`` for both targets (the polynomial one strictly, to
    below 0.9 times the narrowest's; the exponential one to round-off, below 1e-20), the
    exponential target's error is :func:`bounded_in_width` and the polynomial one's
    :func:`grows_in_width`."""
    E_exp, E_pol = _errors(exponential), _errors(polynomial)
    return bool(
        np.all(np.diff(E_pol[:, 0]) < 0)
        and E_pol[-1, 0] < 0.9 * E_pol[0, 0]
        and np.all(np.diff(E_exp[:, 0]) <= 1e-12)
        and E_exp[-1, 0] < 1e-20
        and bounded_in_width(E_exp)
        and grows_in_width(E_pol)
    )


def rescaling_check(growth: Mapping[tuple[float, float], float], *, factor: float = 1e6) -> bool:
    """The App. C analogue on ``growth[s, a]`` (``E_widest / E_narrowest`` at a fixed ``beta``
    for the grid unit ``s`` and the target ``exp(-a t)``): unstable (growth above ``factor``)
    wherever the target is slower than the grid (``a < s``) and stable (growth at most 1) where
    the grid unit is the target's rate (``a == s``); other pairs are not judged."""
    factor = real_number("factor", factor, low=1.0)
    if not growth:
        raise ValueError("growth must hold at least one (grid unit, rate) pair")
    slower = [g > factor for (s, a), g in growth.items() if a < s]
    matched = [g <= 1.0 for (s, a), g in growth.items() if a == s]
    return bool(all(slower) and all(matched))
